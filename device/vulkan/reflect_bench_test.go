package vulkan

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkReflect reflects every seed module of FuzzReflect (the device
// tests' GLSL shaders and lucent's kernels, 198–1057 words) and sizes its
// Workgroup variables: what every module passes before the driver sees it.
func BenchmarkReflect(b *testing.B) {
	seeds := reflectSeeds(b)
	words := 0
	for _, w := range seeds {
		words += len(w)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range seeds {
			m, err := parseSPIRV(w, "main")
			require.NoError(b, err)
			_, err = m.sharedMemory()
			require.NoError(b, err)
			_, _ = m.reflect("main") // some seeds are refused, as the device tests expect
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(seeds)), "ns/module")
	b.ReportMetric(float64(words*b.N)/b.Elapsed().Seconds()/1e6, "Mwords/s")
}

var update = flag.Bool("update", false, "rewrite testdata/reflect_seeds.golden")

// What reflection says about each seed module (signature, layout, workgroup
// size, shared memory, or the error) is pinned by a golden file, so a change
// of parser cannot change a result unseen.
func TestReflectSeedsGolden(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "testdata")
	ents, err := os.ReadDir(filepath.Join(dir, "modules"))
	require.NoError(t, err)
	var sb strings.Builder
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, "modules", e.Name()))
		require.NoError(t, err)
		fmt.Fprintf(&sb, "%s:\n", e.Name())
		m, err := parseSPIRV(u32s(b), "main")
		if err != nil {
			fmt.Fprintf(&sb, "\tparse: %v\n", err)
			continue
		}
		shared, err := m.sharedMemory()
		fmt.Fprintf(&sb, "\tlocal size %v, shared %d %v\n", m.localSize, shared, err)
		r, err := m.reflect("main")
		if err != nil {
			fmt.Fprintf(&sb, "\treflect: %v\n", err)
			continue
		}
		fmt.Fprintf(&sb, "\t%v\n\t%+v\n\t%+v\n", r.sig, r.sig.Args, r.lay)
	}
	golden := filepath.Join(dir, "reflect_seeds.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(sb.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), sb.String())
}
