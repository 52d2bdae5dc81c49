package interp_test

import (
	"encoding/binary"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

func bytesOf[T any](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))...)
}

func sliceOf[T any](b []byte) []T {
	var z T
	out := make([]T, len(b)/int(unsafe.Sizeof(z)))
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(b)), b)
	return out
}

func buf[T any](t *ir.Type, v []T) *interp.Buffer { return &interp.Buffer{Elem: t, Data: bytesOf(v)} }

func TestInterpSaxpy(t *testing.T) {
	f, err := programs.Saxpy()
	require.NoError(t, err)
	x, y := []float32{1, 2, 3, 4.5}, []float32{10, 20, 30, 40}
	bx, by := buf(ir.TF32, x), buf(ir.TF32, y)
	require.NoError(t, interp.Run(f, [3]uint32{4, 1, 1}, float32(2), bx, by))
	programs.SaxpyRef(2, x, y)
	require.Equal(t, y, sliceOf[float32](by.Data))
}

func TestInterpMandelbrot(t *testing.T) {
	f, err := programs.Mandelbrot()
	require.NoError(t, err)
	const w, h = 40, 30
	out := interp.NewBuffer(ir.TU32, w*h)
	require.NoError(t, interp.Run(f, [3]uint32{w, h, 1}, uint32(w), uint32(h), out))
	require.Equal(t, programs.MandelbrotRef(w, h), sliceOf[uint32](out.Data))
}

func TestInterpLifeCallablesControl(t *testing.T) {
	life, err := programs.Life()
	require.NoError(t, err)
	const w, h = 11, 9
	cells := make([]uint32, w*h)
	for i := range cells {
		cells[i] = uint32(i*7%3) & 1
	}
	dst := interp.NewBuffer(ir.TU32, w*h)
	require.NoError(t, interp.Run(life, [3]uint32{w, h, 1}, uint32(w), uint32(h), buf(ir.TU32, cells), dst))
	require.Equal(t, programs.LifeRef(w, h, cells), sliceOf[uint32](dst.Data))

	calls, err := programs.Callables()
	require.NoError(t, err)
	in := []int32{0, 5, -7, 101, -101, 46340}
	out := interp.NewBuffer(ir.TU32, len(in))
	require.NoError(t, interp.Run(calls, [3]uint32{uint32(len(in)), 1, 1}, buf(ir.TI32, in), out))
	require.Equal(t, programs.CallablesRef(in), sliceOf[uint32](out.Data))

	ctl, err := programs.Control()
	require.NoError(t, err)
	in = []int32{-60, -5, 0, 1, 2, 3, 51, 53, 99, math.MinInt32, math.MaxInt32}
	out = interp.NewBuffer(ir.TI32, len(in))
	require.NoError(t, interp.Run(ctl, [3]uint32{uint32(len(in)), 1, 1}, buf(ir.TI32, in), out))
	require.Equal(t, programs.ControlRef(in), sliceOf[int32](out.Data))
}

func TestInterpStructs(t *testing.T) {
	f, err := programs.Particles()
	require.NoError(t, err)
	ps := []programs.Particle{{Pos: ir.Float3{1, 2, 3}, Mass: 4, Vel: ir.Float3{1, -1, 0.5}, ID: 3, Age: 65535}, {ID: 8, Tag: 7}}
	pt := f.Params[1].Type.Elem()
	b := buf(pt, ps)
	require.NoError(t, interp.Run(f, [3]uint32{2, 1, 1}, binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.5)), b))
	require.Equal(t, programs.ParticlesRef(0.5, ps), sliceOf[programs.Particle](b.Data))
}

// TestInterpRandomKernels diffs the interpreter against Go closures on
// random integer expression kernels: two independent evaluations of the
// same AST.
func TestInterpRandomKernels(t *testing.T) {
	var xs, ys []uint32
	for _, x := range programs.IntInputs {
		for _, y := range programs.IntInputs {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	for seed := range uint64(100) {
		f, ref, err := programs.RandomInt(seed)
		require.NoError(t, err)
		out := interp.NewBuffer(ir.TU32, len(xs)*programs.RandomExprs)
		require.NoError(t, interp.Run(f, [3]uint32{uint32(len(xs)), 1, 1}, buf(ir.TU32, xs), buf(ir.TU32, ys), out))
		got := sliceOf[uint32](out.Data)
		for i := range xs {
			require.Equal(t, ref(xs[i], ys[i]), got[i*programs.RandomExprs:(i+1)*programs.RandomExprs], "seed %d x=%#x y=%#x", seed, xs[i], ys[i])
		}
	}
}

func TestInterpRejects(t *testing.T) {
	f, err := programs.Reduce()
	require.NoError(t, err)
	err = interp.Run(f, [3]uint32{256, 1, 1}, interp.NewBuffer(ir.TU32, 256), interp.NewBuffer(ir.TU32, 1))
	require.ErrorIs(t, err, interp.ErrUnsupported)
	require.ErrorContains(t, err, "shared memory")

	s, err := programs.Saxpy()
	require.NoError(t, err)
	require.ErrorContains(t, interp.Run(s, [3]uint32{1, 1, 1}, float32(1)), "takes 3 arguments")
	require.ErrorContains(t, interp.Run(s, [3]uint32{1, 1, 1}, float32(1), interp.NewBuffer(ir.TU32, 1), interp.NewBuffer(ir.TF32, 1)), "argument 1 (x)")
}

func TestInterpDispatchGroups(t *testing.T) {
	f, err := programs.DispatchInfo()
	require.NoError(t, err)
	out := interp.NewBuffer(ir.TU32, 6)
	require.NoError(t, interp.Run(f, [3]uint32{20, 7, 1}, out))
	require.Equal(t, []uint32{20, 7, 1, 3, 2, 1}, sliceOf[uint32](out.Data))
}
