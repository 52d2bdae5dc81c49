package gokernel_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/gokernel"
)

var update = flag.Bool("update", false, "rewrite the golden files of the negative corpus")

// TestBadCorpus checks each file of testdata/gokernel/bad: the front end must
// reject it with exactly the errors of its .golden file, every one of them
// positioned (file:line:col) and wrapping ErrRejected, all reported at once.
func TestBadCorpus(t *testing.T) {
	files, err := filepath.Glob("../../testdata/gokernel/bad/*.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".go"), func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			kernels, errs := gokernel.Check(name, src)
			require.NotEmpty(t, errs, "the file must be rejected")
			var lines []string
			for _, e := range errs {
				require.True(t, errors.Is(e, gokernel.ErrRejected), "%v does not wrap ErrRejected", e)
				var ge *gokernel.Error
				require.True(t, errors.As(e, &ge))
				require.True(t, ge.Pos.IsValid() && ge.Pos.Line > 0 && ge.Pos.Column > 0, "%v has no position", e)
				lines = append(lines, e.Error())
			}
			for _, k := range kernels {
				lines = append(lines, "compiled: "+k.Name)
			}
			got := strings.Join(lines, "\n") + "\n"
			golden := strings.TrimSuffix(path, ".go") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -run TestBadCorpus -update to create it")
			require.Equal(t, string(want), got)
		})
	}
}
