package cpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// halfDouble is out[i] = out[i] + out[i] on f16, the addition in a
// callable where inCallable is set.
func halfDouble(inCallable bool) *ir.Function {
	f := ir.NewKernel("half", 1, [3]uint32{64, 1, 1})
	out := f.AddParam("out", ir.Buffer(ir.TF16), ir.VarArg)
	dst := &ir.Index{X: &ir.Ref{Var: out}, I: dispatchX(), T: ir.TF16}
	var sum ir.Expr = &ir.Binary{Op: ir.Add, X: dst, Y: dst, T: ir.TF16}
	if inCallable {
		g := ir.NewCallable("twice", ir.TF16)
		p := g.AddParam("x", ir.TF16, ir.VarParam)
		g.Body.Stmts = []ir.Stmt{&ir.Return{Value: &ir.Binary{Op: ir.Add, X: &ir.Ref{Var: p}, Y: &ir.Ref{Var: p}, T: ir.TF16}}}
		sum = &ir.Call{Func: g, Args: []ir.Expr{dst}, T: ir.TF16}
	}
	f.Body.Stmts = append(f.Body.Stmts, &ir.Assign{Dst: dst, Src: sum})
	return f
}

// TestF16KernelsOnThePerThreadEngine: a kernel with f16 arithmetic, in its
// body or in a callable, stays off the lane engine, saying why, and runs
// on the per-thread engine: each addition rounded to f16, overflowing to
// infinity, denormals kept.
func TestF16KernelsOnThePerThreadEngine(t *testing.T) {
	d := open(t)
	s := stream(t, d, device.StreamCompute)
	type half struct{ Bits uint16 }
	in := []half{{0x3c00}, {0x7bff}, {0x0001}, {0x3555}, {0xfc00}, {0x7e00}, {0x8000}, {0x3c01}}
	want := []uint16{0x4000, 0x7c00, 0x0002, 0x3955, 0xfc00, 0x7e00, 0x8000, 0x4001}
	for _, inCallable := range []bool{false, true} {
		f := halfDouble(inCallable)
		require.NoError(t, f.Validate())
		on, why, err := cpu.LaneEngine(f)
		require.NoError(t, err)
		require.False(t, on, "the lane engine took an f16 kernel")
		require.Contains(t, why, "f16 arithmetic")
		k, err := device.Compile(d, f)
		require.NoError(t, err)
		buf := newBuf(t, d, in)
		got := make([]half, len(in))
		require.NoError(t, s.Submit(k.Dispatch([3]uint32{uint32(len(in))}, buf), buf.Download(got)))
		require.NoError(t, s.Synchronize(ctxT(t)))
		require.NoError(t, k.Close())
		for i := range want {
			if i == 5 {
				require.Equal(t, uint16(0x7c00), got[i].Bits&0x7c00, "NaN + NaN is a NaN")
				require.NotZero(t, got[i].Bits&0x3ff, "NaN + NaN is a NaN")
				continue
			}
			require.Equal(t, want[i], got[i].Bits, "element %d (callable %v)", i, inCallable)
		}
	}
}

// TestF16AtomicsRefused: the IR has no f16 atomics; a kernel asking for
// one is refused when compiled, naming the type.
func TestF16AtomicsRefused(t *testing.T) {
	d := open(t)
	f := ir.NewKernel("half_atomic", 1, [3]uint32{64, 1, 1})
	out := f.AddParam("out", ir.Buffer(ir.TF16), ir.VarArg)
	dst := &ir.Index{X: &ir.Ref{Var: out}, I: ir.LitInt(ir.TU32, 0), T: ir.TF16}
	f.Body.Stmts = append(f.Body.Stmts, &ir.ExprStmt{X: &ir.Call{Op: ir.OpAtomicAdd, Args: []ir.Expr{dst, ir.LitFloat(ir.TF16, 1)}, T: ir.TF16}})
	_, err := device.Compile(d, f)
	require.Error(t, err)
	require.ErrorContains(t, err, "atomics need i32, u32, i64, u64 or f32, got f16")
}
