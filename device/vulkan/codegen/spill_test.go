package codegen_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// TestPlace: within the budget the arguments follow the header in order
// and the ring follows them; past it the spill block's address takes 24,
// the ring 32, then the arguments by address and the uniforms, each in the
// push constants while it fits and in the spill block after, at its
// alignment; descriptors take bindings in order either way.
func TestPlace(t *testing.T) {
	u := func(size, align int) codegen.Member { return codegen.Member{Size: size, Align: align} }
	addr := codegen.Member{Address: true, Size: 16, Align: 8}
	desc := codegen.Member{Descriptor: true}
	push := func(off int) codegen.Slot { return codegen.Slot{Binding: -1, Offset: off, Bound: -1} }
	spilled := func(off int) codegen.Slot { return codegen.Slot{Binding: -1, Offset: off, Spilled: true, Bound: -1} }
	bound := func(b int) codegen.Slot { return codegen.Slot{Binding: b, Offset: -1, Bound: -1} }

	l := codegen.Place([]codegen.Member{u(4, 4), desc, addr, u(2, 2), desc}, true)
	require.Equal(t, codegen.PushLayout{Args: []codegen.Slot{push(24), bound(0), push(32), push(48), bound(1)}, Size: 72, Ring: 56}, l)
	l = codegen.Place([]codegen.Member{u(4, 4), desc, addr, u(2, 2), desc}, false)
	require.Equal(t, codegen.PushLayout{Args: []codegen.Slot{push(24), bound(0), push(32), push(48), bound(1)}, Size: 50, Ring: -1}, l)

	// 24 + 4 + 4 (pad) + 16 + 64 + 16 (ring) = 128: fits exactly.
	l = codegen.Place([]codegen.Member{u(4, 4), addr, u(64, 4)}, true)
	require.Equal(t, codegen.PushLayout{Args: []codegen.Slot{push(24), push(32), push(48)}, Size: 128, Ring: 112}, l)

	// Past the budget: the spill block's address at 24, the ring at 32,
	// the argument by address at 48, the first u32 at 64, the 65-byte
	// struct spills at 0, the second u32 still fits after the first, the
	// vec4 at 72 ends at 88, and the 48-byte array does not fit (88+48 >
	// 128): it spills at 68.
	l = codegen.Place([]codegen.Member{u(4, 4), addr, u(65, 1), desc, u(4, 4), u(16, 4), u(48, 4)}, true)
	require.Equal(t, codegen.PushLayout{Args: []codegen.Slot{push(64), push(48), spilled(0), bound(0), push(68), push(72), spilled(68)},
		Size: 88, Ring: 32, Spill: 116}, l)

	// Eight arguments by address: six fit after the address, the last two
	// spill, 8-aligned.
	ms := []codegen.Member{u(1, 1)}
	for range 8 {
		ms = append(ms, addr)
	}
	l = codegen.Place(ms, false)
	want := []codegen.Slot{spilled(32)}
	for i := range 6 {
		want = append(want, push(32+16*i))
	}
	want = append(want, spilled(0), spilled(16))
	require.Equal(t, codegen.PushLayout{Args: want, Size: 128, Ring: -1, Spill: 33}, l)
}

// spillModule is a kernel past the push budget with every kind of member
// that lives in the push constants (uniforms of several alignments, a
// bool, a matrix, a 64-bit integer, buffers by address, an accel): 30 f32
// uniforms, then buffers by address enough to spill some of them.
func spillModule(nBig int) *ir.Function {
	f := ir.NewKernel("spill", 1, [3]uint32{64, 1, 1})
	out := f.AddParam("out", ir.Buffer(ir.TF32), ir.VarArg)
	var sum ir.Expr = ir.LitFloat(ir.TF32, 0)
	add := func(e ir.Expr) { sum = &ir.Binary{Op: ir.Add, X: sum, Y: e, T: ir.TF32} }
	for i := range 30 {
		add(&ir.Ref{Var: f.AddParam(fmt.Sprintf("f%d", i), ir.TF32, ir.VarArg)})
	}
	for i := range nBig {
		big := f.AddParam(fmt.Sprintf("big%d", i), ir.BufferAddress(ir.TF32), ir.VarArg)
		add(&ir.Index{X: &ir.Ref{Var: big}, I: ir.LitInt(ir.TU32, 0), T: ir.TF32})
		add(&ir.Cast{X: &ir.Call{Op: ir.OpBufferSize, Args: []ir.Expr{&ir.Ref{Var: big}}, T: ir.TU32}, T: ir.TF32})
	}
	scene := f.AddParam("scene", ir.Accel, ir.VarArg)
	v := f.AddParam("v", ir.Vector(ir.TF32, 3), ir.VarArg)
	m := f.AddParam("m", ir.Matrix(4, 4), ir.VarArg)
	b := f.AddParam("b", ir.TBool, ir.VarArg)
	d := f.AddParam("d", ir.TU64, ir.VarArg)
	add(&ir.Swizzle{X: &ir.Ref{Var: v}, Comps: []uint8{2}, T: ir.TF32})
	add(&ir.Cast{X: &ir.Ref{Var: d}, T: ir.TF32})
	add(&ir.Swizzle{X: &ir.Index{X: &ir.Ref{Var: m}, I: ir.LitInt(ir.TU32, 1), T: ir.Vector(ir.TF32, 4)}, Comps: []uint8{3}, T: ir.TF32})
	v3 := &ir.Construct{T: ir.Vector(ir.TF32, 3), Args: []ir.Expr{ir.LitFloat(ir.TF32, 1)}}
	hit := &ir.Call{Op: ir.OpRayAny, T: ir.TBool, Args: []ir.Expr{&ir.Ref{Var: scene}, v3, ir.LitFloat(ir.TF32, 0), v3, ir.LitFloat(ir.TF32, 1), ir.LitInt(ir.TU32, 0xff)}}
	val := &ir.Call{Op: ir.OpSelect, Args: []ir.Expr{&ir.Binary{Op: ir.LogicAnd, X: &ir.Ref{Var: b}, Y: hit, T: ir.TBool}, sum, ir.LitFloat(ir.TF32, -1)}, T: ir.TF32}
	f.Body.Stmts = []ir.Stmt{
		&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: out}, I: ir.LitInt(ir.TU32, 0), T: ir.TF32}, Src: val},
		&ir.Print{Format: "%v %d", Args: []ir.Expr{&ir.Ref{Var: v}, &ir.Ref{Var: d}}},
	}
	return f
}

// TestEmitSpill: kernels past the push budget, with buffers by address and
// an accel in the push constants or in the spill block, printing, plain
// and checked, on both ray paths, pass spirv-val.
func TestEmitSpill(t *testing.T) {
	for _, nBig := range []int{1, 6} {
		f := spillModule(nBig)
		require.NoError(t, f.Validate())
		args, lay := codegen.Layout(f, codegen.Options{})
		require.Positive(t, lay.Spill)
		require.LessOrEqual(t, lay.Size, codegen.MaxPushSize)
		require.Equal(t, 32, lay.Ring, "after the spill block's address")
		byName := map[string]codegen.Argument{}
		for _, a := range args {
			byName[a.Var.Name] = a
		}
		require.Equal(t, 48, byName["big0"].Offset, "arguments by address first, after the ring")
		require.False(t, byName["big0"].Spilled)
		require.Equal(t, nBig == 6, byName["scene"].Spilled, "%d buffers by address", nBig)
		require.True(t, byName["m"].Spilled)
		for _, opts := range []codegen.Options{{}, {Checked: true}, {NativeRayQuery: true}, {Checked: true, NativeRayQuery: true}} {
			emitValid(t, f, opts)
		}
	}
}
