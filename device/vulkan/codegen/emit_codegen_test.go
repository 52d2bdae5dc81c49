package codegen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// disassemble emits f after validating it, and returns its disassembly.
func disassemble(t *testing.T, f *ir.Function, opts codegen.Options) string {
	t.Helper()
	w := emitValid(t, f, opts)
	dis, err := spvtools.Disassemble(w, spirv.EnvVulkan1_3)
	if err != nil {
		testenv.Need(t, "SPIRV-Tools", err)
	}
	return dis
}

// TestFloatAtomicCASConstantIndex: a float32 atomic lowered to a
// compare-and-swap loop (no native float atomics) on buf[c], for constant
// indices of every integer width and signedness; the index reaches the u32
// view by a conversion, never by a bitcast between widths.
func TestFloatAtomicCASConstantIndex(t *testing.T) {
	for _, it := range []*ir.Type{ir.TI64, ir.TU64, ir.TI32, ir.TU32} {
		for _, op := range []ir.Op{ir.OpAtomicAdd, ir.OpAtomicSub, ir.OpAtomicMin, ir.OpAtomicMax, ir.OpAtomicExchange} {
			t.Run(it.String()+"/"+op.String(), func(t *testing.T) {
				f := ir.NewKernel("k", 1, [3]uint32{64, 1, 1})
				buf := f.AddParam("buf", ir.Buffer(ir.TF32), ir.VarArg)
				place := &ir.Index{X: &ir.Ref{Var: buf}, I: ir.LitInt(it, 3), T: ir.TF32}
				f.Body.Stmts = []ir.Stmt{&ir.ExprStmt{X: &ir.Call{Op: op, Args: []ir.Expr{place, ir.LitFloat(ir.TF32, 1.5)}, T: ir.TF32}}}
				require.NoError(t, f.Validate())
				dis := disassemble(t, f, codegen.Options{})
				if op == ir.OpAtomicExchange {
					require.Contains(t, dis, "OpAtomicExchange %uint")
				} else {
					require.Contains(t, dis, "OpAtomicCompareExchange %uint")
				}
				if it.String() == "i64" || it.String() == "u64" {
					require.Contains(t, dis, "OpUConvert %uint")
				}
				require.NotContains(t, dis, "AtomicFAdd")
			})
		}
	}
}

// TestSRemConstant64: a 64-bit signed remainder by a constant is emitted as
// x - (x/c)*c (Mesa 22.3 computes that OpSRem as a modulo); every other
// remainder keeps its own instruction.
func TestSRemConstant64(t *testing.T) {
	cases := []struct {
		name     string
		t        *ir.Type
		constant bool
		want     string
	}{
		{"i64 by constant", ir.TI64, true, ""},
		{"i64 by variable", ir.TI64, false, "OpSRem %long"},
		{"i32 by constant", ir.TI32, true, "OpSRem %int"},
		{"u64 by constant", ir.TU64, true, "OpUMod %ulong"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := ir.NewKernel("k", 1, [3]uint32{64, 1, 1})
			buf := f.AddParam("buf", ir.Buffer(c.t), ir.VarArg)
			d := f.AddParam("d", c.t, ir.VarArg)
			at := func(i int64) ir.Expr { return &ir.Index{X: &ir.Ref{Var: buf}, I: ir.LitInt(ir.TU32, i), T: c.t} }
			var y ir.Expr = &ir.Ref{Var: d}
			if c.constant {
				y = ir.LitInt(c.t, 4)
			}
			f.Body.Stmts = []ir.Stmt{&ir.Assign{Dst: at(1), Src: &ir.Binary{Op: ir.Rem, X: at(0), Y: y, T: c.t}}}
			require.NoError(t, f.Validate())
			dis := disassemble(t, f, codegen.Options{})
			if c.want == "" {
				require.NotContains(t, dis, "OpSRem")
				require.Contains(t, dis, "OpSDiv %long")
				require.Contains(t, dis, "OpISub %long")
				return
			}
			require.Contains(t, dis, c.want)
		})
	}
}

// TestReuseWithinStatement: a node reached twice in one statement is
// computed once (n-body's inverse square root is one instruction, not
// three), but an effect is never merged and a load after an effect is
// emitted again.
func TestReuseWithinStatement(t *testing.T) {
	t.Run("nbody computes inv once", func(t *testing.T) {
		f, err := programs.NBody()
		require.NoError(t, err)
		dis := disassemble(t, f, codegen.Options{})
		require.Equal(t, 1, strings.Count(dis, "InverseSqrt"), dis)
	})
	t.Run("effects run as often as they appear", func(t *testing.T) {
		f := ir.NewKernel("k", 1, [3]uint32{64, 1, 1})
		buf := f.AddParam("buf", ir.Buffer(ir.TU32), ir.VarArg)
		at := &ir.Index{X: &ir.Ref{Var: buf}, I: ir.LitInt(ir.TU32, 0), T: ir.TU32}
		add := &ir.Call{Op: ir.OpAtomicAdd, Args: []ir.Expr{at, ir.LitInt(ir.TU32, 1)}, T: ir.TU32}
		// buf[0] + (add + add) + buf[0]: the second load follows the atomics.
		sum := &ir.Binary{Op: ir.Add, X: at, Y: &ir.Binary{Op: ir.Add, X: add, Y: add, T: ir.TU32}, T: ir.TU32}
		sum = &ir.Binary{Op: ir.Add, X: sum, Y: at, T: ir.TU32}
		dst := &ir.Index{X: &ir.Ref{Var: buf}, I: ir.LitInt(ir.TU32, 1), T: ir.TU32}
		f.Body.Stmts = []ir.Stmt{&ir.Assign{Dst: dst, Src: sum}}
		require.NoError(t, f.Validate())
		dis := disassemble(t, f, codegen.Options{})
		require.Equal(t, 2, strings.Count(dis, "OpAtomicIAdd"), dis)
		require.Equal(t, 2, strings.Count(dis, "OpLoad %uint"), dis)
	})
}

// TestAddressBufferGuards: every access through a buffer passed by device
// address (load, store, atomic, a member of a struct element, signed and
// 64-bit indices) is guarded by a compare of the index with the view's
// element count, the push-constant member after the address, and the
// module validates; a descriptor-bound buffer gets no such compare (a
// 64-bit index into one only saturates to 32 bits).
func TestAddressBufferGuards(t *testing.T) {
	pair, err := ir.StructType("pair", []ir.Field{{Name: "a", Type: ir.TF32}, {Name: "b", Type: ir.TU32, Offset: 4}}, 8)
	require.NoError(t, err)
	for _, it := range []*ir.Type{ir.TU32, ir.TI32, ir.TU64, ir.TI64} {
		for _, addr := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/address=%v", it, addr), func(t *testing.T) {
				f := ir.NewKernel("k", 1, [3]uint32{64, 1, 1})
				bt := ir.Buffer(pair)
				if addr {
					bt = ir.BufferAddress(pair)
				}
				buf := f.AddParam("buf", bt, ir.VarArg)
				idx := f.AddParam("i", it, ir.VarArg)
				el := &ir.Index{X: &ir.Ref{Var: buf}, I: &ir.Ref{Var: idx}, T: pair}
				a := &ir.Member{X: el, Field: 0, T: ir.TF32}
				bm := &ir.Member{X: el, Field: 1, T: ir.TU32}
				f.Body.Stmts = []ir.Stmt{
					&ir.Assign{Dst: a, Src: &ir.Binary{Op: ir.Add, X: a, Y: ir.LitFloat(ir.TF32, 1), T: ir.TF32}},
					&ir.ExprStmt{X: &ir.Call{Op: ir.OpAtomicAdd, Args: []ir.Expr{bm, ir.LitInt(ir.TU32, 1)}, T: ir.TU32}},
				}
				require.NoError(t, f.Validate())
				dis := disassemble(t, f, codegen.Options{})
				n := strings.Count(dis, "OpULessThan")
				if !addr && it.Bits() == 64 {
					// A 64-bit index saturates to u32 at each access (so
					// 2³²+1 is not 1), with no guard.
					require.Equal(t, 3, n, dis)
					require.Equal(t, 3, strings.Count(dis, "OpSelect %ulong"), dis)
					require.Equal(t, 1, strings.Count(dis, "OpSelectionMerge"), "the early return only: %s", dis)
					return
				}
				if !addr {
					require.Zero(t, n, dis)
					return
				}
				require.Equal(t, 3, n, "a load, a store and an atomic: %s", dis)
				// One selection each, plus the early return past dispatch_size.
				require.Equal(t, 4, strings.Count(dis, "OpSelectionMerge"), dis)
				require.Contains(t, dis, "OpPhi %float")
				require.Contains(t, dis, "OpPhi %uint")
			})
		}
	}
}

// TestDispatchSizeOnlyWhereRead: a kernel that reads DispatchSize or
// DispatchGroups loads NumWorkgroups for the indirect case; one that reads
// neither has no trace of it (its cost is nil).
func TestDispatchSizeOnlyWhereRead(t *testing.T) {
	f, err := programs.DispatchInfo()
	require.NoError(t, err)
	dis := disassemble(t, f, codegen.Options{})
	require.Contains(t, dis, "BuiltIn NumWorkgroups")
	require.Contains(t, dis, "OpSelect %v3uint")
	for _, build := range []func() (*ir.Function, error){programs.Saxpy, programs.Mandelbrot} {
		f, err := build()
		require.NoError(t, err)
		dis := disassemble(t, f, codegen.Options{})
		require.NotContains(t, dis, "NumWorkgroups")
		require.NotContains(t, dis, "OpSelect %v3uint")
	}
}

// TestEarlyReturnWrapCheck: a block size that is not a power of two adds
// one compare (dispatch_id < ThreadID, an id wrapped past 2³²) to the early
// return of that dimension; a power of two adds none.
func TestEarlyReturnWrapCheck(t *testing.T) {
	count := func(bx, by int) int {
		f, err := dsl.Kernel2D(bx, by, func(k *dsl.K, out dsl.Buf[dsl.U32]) {
			out.Write(k.DispatchID().X(), dsl.U(1))
		}, "out")
		require.NoError(t, err)
		return strings.Count(disassemble(t, f, codegen.Options{}), "OpULessThan")
	}
	require.Zero(t, count(64, 4))
	require.Equal(t, 1, count(96, 4))
	require.Equal(t, 1, count(64, 3))
	require.Equal(t, 2, count(24, 3))
}
