package gokernel_test

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/gokernel"
)

// A kernel calls helpers in other packages of its own module, here one whose
// path has no dot (module probe), and those call a third package: each is
// loaded from source and checked by the same rules.
func TestLoadModuleHelpers(t *testing.T) {
	ks, errs := (&gokernel.Config{Dir: "../../testdata/gokernel/probe"}).Load("./kern")
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	require.Equal(t, "probe/kern", ks[0].Package)

	g := compileOn(t, openDevice(t), ks[0])
	xs, ys := []float32{3, 0, -1, 0.5}, []float32{4, 0, 1, -2}
	ob := upload(g, make([]float32, len(xs)))
	g.submit(g.k.Dispatch([3]uint32{uint32(len(xs))}, upload(g, xs), upload(g, ys), ob))
	want := make([]float32, len(xs))
	for i := range xs {
		want[i] = float32(math.Sqrt(float64(4*xs[i]*xs[i] + 4*ys[i]*ys[i])))
	}
	requireClose(t, want, download(g, ob), 1e-6)
}

// A helper in another package of the module is checked by the same rules,
// and its rejection points into that package's file.
func TestLoadModuleHelperRejected(t *testing.T) {
	ks, errs := (&gokernel.Config{Dir: "../../testdata/gokernel/probe"}).Load("./kernbad")
	require.Empty(t, ks)
	require.Len(t, errs, 1)
	require.True(t, errors.Is(errs[0], gokernel.ErrRejected), "%v", errs[0])
	var ge *gokernel.Error
	require.True(t, errors.As(errs[0], &ge))
	require.Equal(t, "sum.go", filepath.Base(ge.Pos.Filename))
	require.Contains(t, ge.Msg, "local ys would hold a buffer<f32>: a resource cannot be kept in a local variable")
}
