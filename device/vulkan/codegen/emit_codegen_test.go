package codegen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	fe "github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// disassemble emits f after validating it, and returns its disassembly.
func disassemble(t *testing.T, f *fe.Function, opts codegen.Options) string {
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
	for _, it := range []*fe.Type{fe.TI64, fe.TU64, fe.TI32, fe.TU32} {
		for _, op := range []fe.Op{fe.OpAtomicAdd, fe.OpAtomicSub, fe.OpAtomicMin, fe.OpAtomicMax, fe.OpAtomicExchange} {
			t.Run(it.String()+"/"+op.String(), func(t *testing.T) {
				f := fe.NewKernel("k", 1, [3]uint32{64, 1, 1})
				buf := f.AddParam("buf", fe.Buffer(fe.TF32), fe.VarArg)
				place := &fe.Index{X: &fe.Ref{Var: buf}, I: fe.LitInt(it, 3), T: fe.TF32}
				f.Body.Stmts = []fe.Stmt{&fe.ExprStmt{X: &fe.Call{Op: op, Args: []fe.Expr{place, fe.LitFloat(fe.TF32, 1.5)}, T: fe.TF32}}}
				require.NoError(t, f.Validate())
				dis := disassemble(t, f, codegen.Options{})
				if op == fe.OpAtomicExchange {
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
		t        *fe.Type
		constant bool
		want     string
	}{
		{"i64 by constant", fe.TI64, true, ""},
		{"i64 by variable", fe.TI64, false, "OpSRem %long"},
		{"i32 by constant", fe.TI32, true, "OpSRem %int"},
		{"u64 by constant", fe.TU64, true, "OpUMod %ulong"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := fe.NewKernel("k", 1, [3]uint32{64, 1, 1})
			buf := f.AddParam("buf", fe.Buffer(c.t), fe.VarArg)
			d := f.AddParam("d", c.t, fe.VarArg)
			at := func(i int64) fe.Expr { return &fe.Index{X: &fe.Ref{Var: buf}, I: fe.LitInt(fe.TU32, i), T: c.t} }
			var y fe.Expr = &fe.Ref{Var: d}
			if c.constant {
				y = fe.LitInt(c.t, 4)
			}
			f.Body.Stmts = []fe.Stmt{&fe.Assign{Dst: at(1), Src: &fe.Binary{Op: fe.Rem, X: at(0), Y: y, T: c.t}}}
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
		f := fe.NewKernel("k", 1, [3]uint32{64, 1, 1})
		buf := f.AddParam("buf", fe.Buffer(fe.TU32), fe.VarArg)
		at := &fe.Index{X: &fe.Ref{Var: buf}, I: fe.LitInt(fe.TU32, 0), T: fe.TU32}
		add := &fe.Call{Op: fe.OpAtomicAdd, Args: []fe.Expr{at, fe.LitInt(fe.TU32, 1)}, T: fe.TU32}
		// buf[0] + (add + add) + buf[0]: the second load follows the atomics.
		sum := &fe.Binary{Op: fe.Add, X: at, Y: &fe.Binary{Op: fe.Add, X: add, Y: add, T: fe.TU32}, T: fe.TU32}
		sum = &fe.Binary{Op: fe.Add, X: sum, Y: at, T: fe.TU32}
		dst := &fe.Index{X: &fe.Ref{Var: buf}, I: fe.LitInt(fe.TU32, 1), T: fe.TU32}
		f.Body.Stmts = []fe.Stmt{&fe.Assign{Dst: dst, Src: sum}}
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
// module validates; a descriptor-bound buffer gets no such compare.
func TestAddressBufferGuards(t *testing.T) {
	pair, err := fe.StructType("pair", []fe.Field{{Name: "a", Type: fe.TF32}, {Name: "b", Type: fe.TU32, Offset: 4}}, 8)
	require.NoError(t, err)
	for _, it := range []*fe.Type{fe.TU32, fe.TI32, fe.TU64, fe.TI64} {
		for _, addr := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/address=%v", it, addr), func(t *testing.T) {
				f := fe.NewKernel("k", 1, [3]uint32{64, 1, 1})
				bt := fe.Buffer(pair)
				if addr {
					bt = fe.BufferAddress(pair)
				}
				buf := f.AddParam("buf", bt, fe.VarArg)
				idx := f.AddParam("i", it, fe.VarArg)
				el := &fe.Index{X: &fe.Ref{Var: buf}, I: &fe.Ref{Var: idx}, T: pair}
				a := &fe.Member{X: el, Field: 0, T: fe.TF32}
				bm := &fe.Member{X: el, Field: 1, T: fe.TU32}
				f.Body.Stmts = []fe.Stmt{
					&fe.Assign{Dst: a, Src: &fe.Binary{Op: fe.Add, X: a, Y: fe.LitFloat(fe.TF32, 1), T: fe.TF32}},
					&fe.ExprStmt{X: &fe.Call{Op: fe.OpAtomicAdd, Args: []fe.Expr{bm, fe.LitInt(fe.TU32, 1)}, T: fe.TU32}},
				}
				require.NoError(t, f.Validate())
				dis := disassemble(t, f, codegen.Options{})
				n := strings.Count(dis, "OpULessThan")
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
	for _, build := range []func() (*fe.Function, error){programs.Saxpy, programs.Mandelbrot} {
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
		f, err := fe.Kernel2D(bx, by, func(k *fe.K, out fe.Buf[fe.U32]) {
			out.Write(k.DispatchID().X(), fe.U(1))
		}, "out")
		require.NoError(t, err)
		return strings.Count(disassemble(t, f, codegen.Options{}), "OpULessThan")
	}
	require.Zero(t, count(64, 4))
	require.Equal(t, 1, count(96, 4))
	require.Equal(t, 1, count(64, 3))
	require.Equal(t, 2, count(24, 3))
}
