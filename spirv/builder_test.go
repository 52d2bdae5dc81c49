package spirv_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

func count(m *spirv.Module, op spirv.Op) int {
	n := 0
	for _, in := range m.Instructions {
		if in.Op == op {
			n++
		}
	}
	return n
}

// emptyCompute returns a builder with a GLCompute main whose body is open.
func emptyCompute(env spirv.TargetEnv) (*spirv.Builder, *spirv.Function) {
	b := spirv.NewBuilder(env)
	b.Capability(spirv.CapabilityShader)
	void := b.TypeVoid()
	fn := b.Function(void, b.TypeFunction(void))
	b.EntryPoint(spirv.ExecutionModelGLCompute, fn.ID(), "main")
	b.LocalSize(fn.ID(), 1, 1, 1)
	b.SetBlock(fn.NewBlock())
	return b, fn
}

func TestTypesDeduplicated(t *testing.T) {
	b := spirv.NewBuilder(spirv.EnvVulkan1_2)
	f32 := b.TypeFloat(32)
	require.Equal(t, f32, b.TypeFloat(32))
	require.NotEqual(t, f32, b.TypeFloat(64))
	require.Equal(t, b.TypeInt(32, true), b.TypeInt(32, true))
	require.NotEqual(t, b.TypeInt(32, true), b.TypeInt(32, false))
	v4 := b.TypeVector(f32, 4)
	require.Equal(t, v4, b.TypeVector(f32, 4))
	require.NotEqual(t, v4, b.TypeVector(f32, 3))
	require.Equal(t, b.TypeMatrix(v4, 4), b.TypeMatrix(v4, 4))
	require.Equal(t, b.TypeArray(f32, 8), b.TypeArray(f32, 8))
	require.NotEqual(t, b.TypeArray(f32, 8), b.TypeArray(f32, 9))
	require.NotEqual(t, b.TypeArray(f32, 8), b.TypeArrayStride(f32, 8, 4))
	require.Equal(t, b.TypeArrayStride(f32, 8, 4), b.TypeArrayStride(f32, 8, 4))
	ra := b.TypeRuntimeArray(f32)
	require.Equal(t, ra, b.TypeRuntimeArray(f32))
	require.NotEqual(t, ra, b.TypeRuntimeArrayStride(f32, 4))
	require.NotEqual(t, b.TypeRuntimeArrayStride(f32, 4), b.TypeRuntimeArrayStride(f32, 8))
	sb := b.TypePointer(spirv.StorageClassStorageBuffer, f32)
	require.Equal(t, sb, b.TypePointer(spirv.StorageClassStorageBuffer, f32))
	require.NotEqual(t, sb, b.TypePointer(spirv.StorageClassWorkgroup, f32))
	require.NotEqual(t, sb, b.TypePointer(spirv.StorageClassPhysicalStorageBuffer, f32))
	require.Equal(t, b.TypeFunction(f32, f32, v4), b.TypeFunction(f32, f32, v4))
	require.NotEqual(t, b.TypeFunction(f32, f32, v4), b.TypeFunction(f32, v4, f32))
	img := spirv.ImageType{SampledType: f32, Dim: spirv.Dim2D, Sampled: 2, Format: spirv.ImageFormatRgba8}
	require.Equal(t, b.TypeImage(img), b.TypeImage(img))
	img.Format = spirv.ImageFormatRgba32f
	require.NotEqual(t, b.TypeImage(img), b.TypeImage(spirv.ImageType{SampledType: f32, Dim: spirv.Dim2D, Sampled: 2, Format: spirv.ImageFormatRgba8}))
	require.Equal(t, b.TypeSampledImage(b.TypeImage(img)), b.TypeSampledImage(b.TypeImage(img)))
	require.Equal(t, b.TypeSampler(), b.TypeSampler())
	require.Equal(t, b.TypeAccelerationStructure(), b.TypeAccelerationStructure())
	require.Equal(t, b.TypeRayQuery(), b.TypeRayQuery())

	// Structs: the same members and decorations are one type; other
	// decorations (an Offset, Block) make another.
	plain := b.TypeStruct(f32, v4)
	require.Equal(t, plain, b.TypeStruct(f32, v4))
	layout := func(off uint32, block bool) spirv.StructType {
		st := spirv.StructType{Members: []spirv.Member{{Type: f32, Offset: spirv.Off(0)}, {Type: v4, Offset: spirv.Off(off)}}}
		if block {
			st.Decorations = []spirv.Decor{{Decoration: spirv.DecorationBlock}}
		}
		return st
	}
	a := b.TypeStructOf(layout(16, true))
	require.Equal(t, a, b.TypeStructOf(layout(16, true)))
	require.NotEqual(t, a, b.TypeStructOf(layout(4, true)))
	require.NotEqual(t, a, b.TypeStructOf(layout(16, false)))
	require.NotEqual(t, a, plain)
	named := layout(16, true)
	named.Name = "Other"
	require.Equal(t, a, b.TypeStructOf(named), "debug names do not make a new type")

	require.NoError(t, b.Err())
	m := mustRead(t, b)
	require.Equal(t, 1, count(m, spirv.OpTypeSampler))
	// Block once on a, once on the Offset-4 variant, once on the layout(16, false)? no: that one has none.
	require.Equal(t, 2, countDecorations(m, spirv.DecorationBlock))
}

func countDecorations(m *spirv.Module, d spirv.Decoration) int {
	n := 0
	for _, in := range m.Instructions {
		if in.Op == spirv.OpDecorate && spirv.Decoration(in.Operands[1].Words[0]) == d {
			n++
		}
	}
	return n
}

func mustRead(t *testing.T, b *spirv.Builder) *spirv.Module {
	t.Helper()
	w, err := b.Words()
	require.NoError(t, err)
	m, err := spirv.Read(w)
	require.NoError(t, err)
	return m
}

func TestConstantsDeduplicated(t *testing.T) {
	b := spirv.NewBuilder(spirv.EnvVulkan1_2)
	require.Equal(t, b.ConstantUint32(7), b.ConstantUint32(7))
	require.NotEqual(t, b.ConstantUint32(7), b.ConstantInt32(7))
	require.NotEqual(t, b.ConstantUint32(7), b.ConstantUint32(8))
	require.Equal(t, b.ConstantFloat32(1.5), b.ConstantFloat32(1.5))
	require.NotEqual(t, b.ConstantFloat32(0), b.ConstantFloat32(float32(math.Copysign(0, -1))), "0.0 and -0.0 differ")
	require.Equal(t, b.ConstantUint64(1<<40), b.ConstantUint64(1<<40))
	require.Equal(t, b.ConstantFloat64(math.Pi), b.ConstantFloat64(math.Pi))
	require.Equal(t, b.ConstantBool(true), b.ConstantBool(true))
	require.NotEqual(t, b.ConstantBool(true), b.ConstantBool(false))
	i8 := b.TypeInt(8, true)
	require.Equal(t, b.Constant(i8, 0xff), b.Constant(i8, 0xffffffff), "narrow constants are sign-extended before deduplication")
	v2 := b.TypeVector(b.TypeFloat(32), 2)
	c := b.ConstantComposite(v2, b.ConstantFloat32(1), b.ConstantFloat32(2))
	require.Equal(t, c, b.ConstantComposite(v2, b.ConstantFloat32(1), b.ConstantFloat32(2)))
	require.NotEqual(t, c, b.ConstantComposite(v2, b.ConstantFloat32(2), b.ConstantFloat32(1)))
	require.Equal(t, b.ConstantNull(v2), b.ConstantNull(v2))
	u32 := b.TypeInt(32, false)
	require.NotEqual(t, b.SpecConstant(u32, 0, 4), b.SpecConstant(u32, 1, 4), "spec constants are never merged")
	require.NoError(t, b.Err())
	b.Constant(u32, 1, 2)
	require.ErrorIs(t, b.Err(), spirv.ErrBuild)
}

func TestDeclarationsDeduplicated(t *testing.T) {
	b, _ := emptyCompute(spirv.EnvVulkan1_2)
	b.Capability(spirv.CapabilityShader)
	b.Capability(spirv.CapabilityInt64)
	b.TypeInt(64, false) // asks for Int64 again
	b.Extension("SPV_KHR_storage_buffer_storage_class")
	b.Extension("SPV_KHR_storage_buffer_storage_class")
	require.Equal(t, b.ExtInstImport("GLSL.std.450"), b.ExtInstImport("GLSL.std.450"))
	f32 := b.TypeFloat(32)
	x := b.ConstantFloat32(2)
	b.GLSL(f32, spirv.GLSLSqrt, x)
	b.GLSL(f32, spirv.GLSLSqrt, x)
	v := b.Variable(b.TypePointer(spirv.StorageClassPrivate, f32), spirv.StorageClassPrivate, 0)
	b.Decorate(v, spirv.DecorationRestrict)
	b.Decorate(v, spirv.DecorationRestrict)
	b.Return()
	m := mustRead(t, b)
	require.Equal(t, 2, count(m, spirv.OpCapability))
	require.Equal(t, 1, count(m, spirv.OpExtension))
	require.Equal(t, 1, count(m, spirv.OpExtInstImport))
	require.Equal(t, 2, count(m, spirv.OpExtInst))
	require.Equal(t, 1, count(m, spirv.OpDecorate))
}

// section gives the rank of an instruction in the logical layout (spec 2.4).
func section(in spirv.Instruction) int {
	switch in.Op {
	case spirv.OpCapability:
		return 0
	case spirv.OpExtension:
		return 1
	case spirv.OpExtInstImport:
		return 2
	case spirv.OpMemoryModel:
		return 3
	case spirv.OpEntryPoint:
		return 4
	case spirv.OpExecutionMode, spirv.OpExecutionModeId:
		return 5
	case spirv.OpString, spirv.OpSource, spirv.OpSourceExtension, spirv.OpSourceContinued:
		return 6
	case spirv.OpName, spirv.OpMemberName:
		return 7
	case spirv.OpDecorate, spirv.OpMemberDecorate, spirv.OpDecorateId, spirv.OpDecorateString, spirv.OpMemberDecorateString:
		return 8
	case spirv.OpFunction:
		return 10
	}
	return 9
}

func TestLogicalLayoutWhateverTheOrder(t *testing.T) {
	b := spirv.NewBuilder(spirv.EnvVulkan1_3)
	void := b.TypeVoid()
	fn := b.Function(void, b.TypeFunction(void))
	b.SetBlock(fn.NewBlock())
	f32 := b.TypeFloat(32)
	b.Name(fn.ID(), "main")
	// A type made inside a function body still lands among the types.
	sh := b.Variable(b.TypePointer(spirv.StorageClassWorkgroup, b.TypeArray(f32, 4)), spirv.StorageClassWorkgroup, 0)
	p := b.AccessChain(b.TypePointer(spirv.StorageClassWorkgroup, f32), sh, b.ConstantUint32(1))
	root := b.GLSL(f32, spirv.GLSLSqrt, b.ConstantFloat32(2))
	b.Store(p, root)
	b.Return()
	b.LocalSize(fn.ID(), 4, 1, 1)
	b.Decorate(root, spirv.DecorationRelaxedPrecision) // annotation added late
	b.EntryPoint(spirv.ExecutionModelGLCompute, fn.ID(), "main")
	b.Source(spirv.SourceLanguageGLSL, 450)
	file := b.DebugString("kernel.go")
	b.Name(file, "file")
	b.Capability(spirv.CapabilityShader) // capability added last
	b.Extension("SPV_KHR_non_semantic_info")
	m := mustRead(t, b)
	last := 0
	for _, in := range m.Instructions {
		s := section(in)
		if s == 9 && last == 10 {
			continue // inside a function
		}
		require.GreaterOrEqual(t, s, last, "%v after section %d", in.Op, last)
		last = s
	}
	needTools(t)
	require.NoError(t, spvtools.Validate(m.Words(), spirv.EnvVulkan1_3))
}

func TestVersionFollowsTheEnvironment(t *testing.T) {
	for env, want := range map[spirv.TargetEnv]string{
		spirv.EnvVulkan1_1: "1.3", spirv.EnvVulkan1_2: "1.5", spirv.EnvVulkan1_3: "1.6",
		spirv.EnvUniversal1_0: "1.0", spirv.EnvUniversal1_4: "1.4",
	} {
		b, _ := emptyCompute(env)
		b.Return()
		m := mustRead(t, b)
		require.Equal(t, want, m.Header.Version.String(), env.String())
	}
	require.ErrorIs(t, spirv.NewBuilder(spirv.TargetEnv(99)).Err(), spirv.ErrBuild)
}

// TestEntryPointInterface checks that SPIR-V 1.4+ lists every global the
// entry point's call tree uses (and not the unused one), and 1.3 only Input/Output.
func TestEntryPointInterface(t *testing.T) {
	for _, env := range []spirv.TargetEnv{spirv.EnvVulkan1_1, spirv.EnvVulkan1_2, spirv.EnvVulkan1_3} {
		t.Run(env.String(), func(t *testing.T) {
			b := spirv.NewBuilder(env)
			b.Capability(spirv.CapabilityShader)
			void, f32, u32 := b.TypeVoid(), b.TypeFloat(32), b.TypeInt(32, false)
			v3 := b.TypeVector(u32, 3)
			gid := b.Variable(b.TypePointer(spirv.StorageClassInput, v3), spirv.StorageClassInput, 0)
			b.Decorate(gid, spirv.DecorationBuiltIn, uint32(spirv.BuiltInGlobalInvocationId))
			pPriv := b.TypePointer(spirv.StorageClassPrivate, f32)
			used := b.Variable(pPriv, spirv.StorageClassPrivate, 0)
			unused := b.Variable(pPriv, spirv.StorageClassPrivate, 0)
			wg := b.Variable(b.TypePointer(spirv.StorageClassWorkgroup, f32), spirv.StorageClassWorkgroup, 0)
			fnT := b.TypeFunction(void)
			helper := b.Function(void, fnT)
			b.SetBlock(helper.NewBlock())
			b.Store(wg, b.ConstantFloat32(1)) // used only by a callee
			b.Return()
			main := b.Function(void, fnT)
			b.SetBlock(main.NewBlock())
			b.Load(v3, gid)
			b.Store(used, b.ConstantFloat32(2))
			b.FunctionCall(void, helper.ID())
			b.Return()
			b.EntryPoint(spirv.ExecutionModelGLCompute, main.ID(), "main")
			b.LocalSize(main.ID(), 1, 1, 1)
			m := mustRead(t, b)
			var iface []spirv.ID
			for _, in := range m.Instructions {
				if in.Op == spirv.OpEntryPoint {
					for _, o := range in.Operands[3:] {
						iface = append(iface, o.ID())
					}
				}
			}
			if env == spirv.EnvVulkan1_1 {
				require.Equal(t, []spirv.ID{gid}, iface)
			} else {
				require.ElementsMatch(t, []spirv.ID{gid, used, wg}, iface)
				require.NotContains(t, iface, unused)
			}
			needTools(t)
			require.NoError(t, spvtools.Validate(m.Words(), env))
		})
	}
}

func TestBuilderErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func(b *spirv.Builder, fn *spirv.Function)
		want  string
	}{
		{"outside a block", func(b *spirv.Builder, fn *spirv.Function) {
			b.Return()
			b.SetBlock(nil)
			b.FAdd(b.TypeFloat(32), b.ConstantFloat32(1), b.ConstantFloat32(2))
		}, "outside a block"},
		{"after the terminator", func(b *spirv.Builder, fn *spirv.Function) {
			b.Return()
			b.Return()
		}, "after the terminator"},
		{"no terminator", func(b *spirv.Builder, fn *spirv.Function) {}, "has no terminator"},
		{"unselected block without terminator", func(b *spirv.Builder, fn *spirv.Function) {
			fn.NewBlock()
			b.Return()
		}, "has no terminator"},
		{"branch to another function's block", func(b *spirv.Builder, fn *spirv.Function) {
			other := b.Function(b.TypeVoid(), b.TypeFunction(b.TypeVoid()))
			blk := other.NewBlock()
			b.Branch(blk.ID())
			b.SetBlock(blk)
			b.Return()
		}, "not a block of function"},
		{"two merges", func(b *spirv.Builder, fn *spirv.Function) {
			m := fn.NewBlock()
			b.SelectionMerge(m.ID(), spirv.SelectionControlNone)
			b.SelectionMerge(m.ID(), spirv.SelectionControlNone)
		}, "already has a merge"},
		{"bad vector", func(b *spirv.Builder, fn *spirv.Function) { b.TypeVector(b.TypeFloat(32), 5) }, "5 components"},
		{"bad int width", func(b *spirv.Builder, fn *spirv.Function) { b.TypeInt(12, false) }, "width 12"},
		{"function variable as global", func(b *spirv.Builder, fn *spirv.Function) {
			b.Variable(b.TypePointer(spirv.StorageClassFunction, b.TypeFloat(32)), spirv.StorageClassFunction, 0)
		}, "belong to a function"},
		{"variable type mismatch", func(b *spirv.Builder, fn *spirv.Function) {
			b.Variable(b.TypePointer(spirv.StorageClassPrivate, b.TypeFloat(32)), spirv.StorageClassWorkgroup, 0)
		}, "not a pointer type in storage class Workgroup"},
		{"GLSL operand count", func(b *spirv.Builder, fn *spirv.Function) {
			b.GLSL(b.TypeFloat(32), spirv.GLSLFma, b.ConstantFloat32(1))
		}, "Fma takes 3 operands"},
		{"switch on a non-integer", func(b *spirv.Builder, fn *spirv.Function) {
			b.Switch(b.ConstantBool(true), fn.NewBlock().ID())
		}, "no known integer type"},
		{"not an atomic", func(b *spirv.Builder, fn *spirv.Function) {
			b.Atomic(spirv.OpFAdd, 1, 1, spirv.ScopeDevice, 0, 1)
		}, "not a read-modify-write atomic"},
		{"phi parent", func(b *spirv.Builder, fn *spirv.Function) {
			b.Phi(b.TypeFloat(32), spirv.PhiIncoming{Value: b.ConstantFloat32(1), Parent: 999})
			b.Return()
		}, "parent 999"},
		{"undefined id", func(b *spirv.Builder, fn *spirv.Function) {
			f32 := b.TypeFloat(32)
			b.FAdd(f32, b.ConstantFloat32(1), b.NewID())
			b.Return()
		}, "which no instruction defines"},
		{"undefined phi value", func(b *spirv.Builder, fn *spirv.Function) {
			entry := b.CurrentBlock()
			next := fn.NewBlock()
			b.Branch(next.ID())
			b.SetBlock(next)
			b.Phi(b.TypeFloat(32), spirv.PhiIncoming{Value: b.NewID(), Parent: entry.ID()})
			b.Return()
		}, "which no instruction defines"},
		{"entry point not a function", func(b *spirv.Builder, fn *spirv.Function) {
			b.Return()
			b.EntryPoint(spirv.ExecutionModelGLCompute, b.TypeVoid(), "x")
		}, "not a function of this module"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, fn := emptyCompute(spirv.EnvVulkan1_2)
			c.build(b, fn)
			_, err := b.Words()
			require.ErrorIs(t, err, spirv.ErrBuild)
			require.ErrorContains(t, err, c.want)
		})
	}
}

func TestEmitChecksOperandsAgainstTheGrammar(t *testing.T) {
	b, _ := emptyCompute(spirv.EnvVulkan1_2)
	f32 := b.TypeFloat(32)
	x, y := b.ConstantFloat32(1), b.ConstantFloat32(2)

	// Emit and the typed helpers agree, and Emit'd types deduplicate with them.
	t32, err := b.Emit(spirv.OpTypeFloat, uint32(32))
	require.NoError(t, err)
	require.Equal(t, f32, t32)
	c, err := b.Emit(spirv.OpConstant, f32, float32(1))
	require.NoError(t, err)
	require.Equal(t, x, c)
	sum, err := b.Emit(spirv.OpFAdd, f32, x, y)
	require.NoError(t, err)
	require.NotZero(t, sum)
	v := b.Variable(b.TypePointer(spirv.StorageClassPrivate, f32), spirv.StorageClassPrivate, 0)
	_, err = b.Emit(spirv.OpStore, v, sum, spirv.MemoryAccessAligned, uint32(4))
	require.NoError(t, err)
	_, err = b.Emit(spirv.OpDecorate, v, spirv.DecorationAlignment, uint32(4))
	require.NoError(t, err)
	_, err = b.Emit(spirv.OpReturn)
	require.NoError(t, err)
	w, err := b.Words()
	require.NoError(t, err)
	m, err := spirv.Read(w)
	require.NoError(t, err)
	require.Contains(t, m.Disassemble(), "OpStore %")
	require.Contains(t, m.Disassemble(), "Aligned 4\n")

	type ids struct{ f32, x, y, v spirv.ID }
	bad := []struct {
		name string
		op   spirv.Op
		args func(ids) []any
		want string
	}{
		{"missing operand", spirv.OpFAdd, func(i ids) []any { return []any{i.f32, i.x} }, "missing operand"},
		{"too many", spirv.OpFAdd, func(i ids) []any { return []any{i.f32, i.x, i.y, i.y} }, "too many"},
		{"wrong kind", spirv.OpFAdd, func(i ids) []any { return []any{i.f32, i.x, uint32(3)} }, "uint32 is not a IdRef"},
		{"result type not an id", spirv.OpFAdd, func(i ids) []any { return []any{32, i.x, i.y} }, "result type must be an ID"},
		{"wrong enum", spirv.OpDecorate, func(i ids) []any { return []any{i.v, spirv.BuiltInPosition} }, "is not a Decoration"},
		{"missing enum parameter", spirv.OpDecorate, func(i ids) []any { return []any{i.v, spirv.DecorationSpecId} }, "missing operand LiteralInteger"},
		{"missing mask parameter", spirv.OpLoad, func(i ids) []any { return []any{i.f32, i.v, spirv.MemoryAccessAligned} }, "missing operand LiteralInteger"},
		{"constant width", spirv.OpConstant, func(i ids) []any { return []any{i.f32, float64(1)} }, "needs 1 words"},
		{"unknown opcode", spirv.Op(0xfff0), func(ids) []any { return nil }, "unknown opcode"},
		{"function by Emit", spirv.OpLabel, func(ids) []any { return nil }, "use Function"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			b, _ := emptyCompute(spirv.EnvVulkan1_2)
			f32 := b.TypeFloat(32)
			v := b.Variable(b.TypePointer(spirv.StorageClassPrivate, f32), spirv.StorageClassPrivate, 0)
			_, err := b.Emit(c.op, c.args(ids{f32, b.ConstantFloat32(1), b.ConstantFloat32(2), v})...)
			require.ErrorIs(t, err, spirv.ErrBuild)
			require.ErrorContains(t, err, c.want)
		})
	}
}

// TestSpecialConstantsDisassemble builds constants whose text is tricky (NaN,
// infinities, denormals, -0, narrow and 64-bit signed ints, a 64-bit switch)
// and compares our disassembly with spirv-dis's.
func TestSpecialConstantsDisassemble(t *testing.T) {
	b, fn := emptyCompute(spirv.EnvVulkan1_2)
	b.Capability(spirv.CapabilityInt8)
	f16, f64 := b.TypeFloat(16), b.TypeFloat(64)
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(-1)), math.SmallestNonzeroFloat32, float32(math.Copysign(0, -1)), 1e-10, 123456789, 0.1} {
		b.ConstantFloat32(v)
	}
	b.Constant(b.TypeFloat(32), 0xffc00001)
	for _, v := range []float64{math.NaN(), math.Inf(1), 5e-324, 1e300, -0.1, 2.5} {
		b.ConstantFloat64(v)
	}
	_ = f64
	for _, bits := range []uint16{0x3c00, 0x7c00, 0x0001, 0x8000, 0x7e00, 0xc500} {
		b.Constant(f16, uint32(bits))
	}
	b.Constant(b.TypeInt(8, true), 0x80)
	b.Constant(b.TypeInt(16, false), 0xffff)
	b.ConstantInt64(math.MinInt64)
	b.ConstantUint64(math.MaxUint64)
	sel := b.IAdd(b.TypeInt(64, true), b.ConstantInt64(-1), b.ConstantInt64(0))
	c1, c2, merge := fn.NewBlock(), fn.NewBlock(), fn.NewBlock()
	b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
	b.Switch(sel, merge.ID(), spirv.SwitchCase{Value: 1 << 40, Target: c1.ID()}, spirv.SwitchCase{Value: ^uint64(4), Target: c2.ID()})
	for _, blk := range []*spirv.Block{c1, c2} {
		b.SetBlock(blk)
		b.Branch(merge.ID())
	}
	b.SetBlock(merge)
	b.Return()
	w, err := b.Words()
	require.NoError(t, err)
	needTools(t)
	checkRoundTrips(t, w, spirv.EnvVulkan1_2)
}

func TestLocalSizeID(t *testing.T) {
	b, fn := emptyCompute(spirv.EnvVulkan1_3)
	u32 := b.TypeInt(32, false)
	x := b.SpecConstant(u32, 0, 64)
	b.LocalSizeID(fn.ID(), x, b.ConstantUint32(1), b.ConstantUint32(1))
	b.Return()
	w, err := b.Words()
	require.NoError(t, err)
	m, err := spirv.Read(w)
	require.NoError(t, err)
	require.Equal(t, 1, count(m, spirv.OpExecutionModeId))
	needTools(t)
	checkRoundTrips(t, w, spirv.EnvVulkan1_3)
	require.NoError(t, spvtools.ValidateWith(w, spirv.EnvVulkan1_3, spvtools.ValidateOptions{AllowLocalSizeID: true}))

	old := spirv.NewBuilder(spirv.EnvUniversal1_1)
	old.ExecutionModeID(1, spirv.ExecutionModeLocalSizeId, 2, 3, 4)
	require.ErrorContains(t, old.Err(), "needs SPIR-V 1.2")
}

func TestEnumStrings(t *testing.T) {
	require.Equal(t, "StorageBuffer", spirv.StorageClassStorageBuffer.String())
	require.Equal(t, "GlobalInvocationId", spirv.BuiltInGlobalInvocationId.String())
	require.Equal(t, "Acquire|WorkgroupMemory", (spirv.MemorySemanticsAcquire | spirv.MemorySemanticsWorkgroupMemory).String())
	require.Equal(t, "None", spirv.MemoryAccessNone.String())
	require.Equal(t, "Volatile|0x80000000", (spirv.MemoryAccessVolatile | 0x80000000).String())
	require.Equal(t, "Capability(99999)", spirv.Capability(99999).String())
	require.Equal(t, "OpFAdd", spirv.OpFAdd.String())
	require.Equal(t, "OpSDot", spirv.OpSDotKHR.String(), "aliases print the alphabetically first spelling, as spirv-dis")
	require.Equal(t, "OpTypeAccelerationStructureKHR", spirv.OpTypeAccelerationStructureNV.String())
	require.Equal(t, "RayGenerationNV", spirv.ExecutionModelRayGenerationKHR.String(), "enum aliases print the first spelling in the grammar, as spirv-dis")
	require.Equal(t, "FMix", spirv.GLSLFMix.String())
	d, ok := spirv.LookupOp(spirv.OpSwitch)
	require.True(t, ok)
	require.Equal(t, spirv.QuantVariadic, d.Operands[2].Quant)
	require.Equal(t, spirv.KindPairLiteralIntegerIdRef, d.Operands[2].Kind)
}

// TestFunctionsParamsAndLocals builds a callee with parameters, a local
// variable and a returned value, calls it, and validates the module.
func TestFunctionsParamsAndLocals(t *testing.T) {
	b := spirv.NewBuilder(spirv.EnvVulkan1_2)
	b.Capability(spirv.CapabilityShader)
	void, f32 := b.TypeVoid(), b.TypeFloat(32)
	pFn := b.TypePointer(spirv.StorageClassFunction, f32)
	helper := b.FunctionWithControl(f32, b.TypeFunction(f32, f32, pFn), spirv.FunctionControlDontInline)
	x := helper.Param(f32)
	out := helper.Param(pFn)
	b.SetBlock(helper.NewBlock())
	tmp := helper.Variable(pFn, b.ConstantFloat32(0))
	b.Store(tmp, b.FMul(f32, x, b.ConstantFloat32(2)))
	b.Store(out, x)
	b.ReturnValue(b.FAdd(f32, b.Load(f32, tmp), x))
	b.Name(helper.ID(), "helper")

	main := b.Function(void, b.TypeFunction(void))
	b.SetBlock(main.NewBlock())
	local := main.Variable(pFn, 0)
	r := b.FunctionCall(f32, helper.ID(), b.ConstantFloat32(3), local)
	priv := b.Variable(b.TypePointer(spirv.StorageClassPrivate, f32), spirv.StorageClassPrivate, b.ConstantFloat32(1))
	b.Store(priv, b.FAdd(f32, r, b.Load(f32, local)))
	b.Return()
	b.EntryPoint(spirv.ExecutionModelGLCompute, main.ID(), "main")
	b.LocalSize(main.ID(), 1, 1, 1)
	w, err := b.Words()
	require.NoError(t, err)
	m, err := spirv.Read(w)
	require.NoError(t, err)
	require.Equal(t, 2, count(m, spirv.OpFunctionParameter))
	require.Equal(t, 2, count(m, spirv.OpFunction))
	needTools(t)
	require.NoError(t, spvtools.Validate(w, spirv.EnvVulkan1_2))
	checkRoundTrips(t, w, spirv.EnvVulkan1_2)
}

// TestPointerArithmetic walks a PhysicalStorageBuffer pointer built from a
// 64-bit address with OpPtrAccessChain, which needs a strided pointer type.
func TestPointerArithmetic(t *testing.T) {
	for _, env := range []spirv.TargetEnv{spirv.EnvVulkan1_2, spirv.EnvVulkan1_3} {
		b, _ := emptyCompute(env)
		f32, u64 := b.TypeFloat(32), b.TypeInt(64, false)
		psb := spirv.StorageClassPhysicalStorageBuffer
		p := b.TypePointerStride(psb, f32, 4)
		require.NotEqual(t, p, b.TypePointer(psb, f32))
		require.Equal(t, p, b.TypePointerStride(psb, f32, 4))
		base := b.ConvertUToPtr(p, b.ConstantUint64(0x10000))
		q := b.PtrAccessChain(p, base, b.ConstantInt32(3))
		aligned := []uint32{uint32(spirv.MemoryAccessAligned), 4}
		b.Store(q, b.FAdd(f32, b.Load(f32, q, aligned...), b.ConstantFloat32(1)), aligned...)
		b.ConvertPtrToU(u64, q)
		b.Return()
		w, err := b.Words()
		require.NoError(t, err)
		needTools(t)
		require.NoError(t, spvtools.Validate(w, env))
		checkRoundTrips(t, w, env)
	}
}

// TestEmitBuildsAWholeModule makes a module with Emit alone (but for the
// function and its blocks): the instructions land in their sections, merges
// before terminators, and spirv-val accepts it.
func TestEmitBuildsAWholeModule(t *testing.T) {
	b := spirv.NewBuilder(spirv.EnvVulkan1_3)
	emit := func(op spirv.Op, args ...any) spirv.ID {
		t.Helper()
		id, err := b.Emit(op, args...)
		require.NoError(t, err)
		return id
	}
	void := emit(spirv.OpTypeVoid)
	fnT := emit(spirv.OpTypeFunction, void)
	fn := b.Function(void, fnT)
	entry := fn.NewBlock()
	b.SetBlock(entry)
	emit(spirv.OpCapability, spirv.CapabilityShader)
	emit(spirv.OpCapability, spirv.CapabilityInt64)
	emit(spirv.OpCapability, spirv.CapabilityShader)
	emit(spirv.OpEntryPoint, spirv.ExecutionModelGLCompute, fn.ID(), "main")
	emit(spirv.OpExecutionMode, fn.ID(), spirv.ExecutionModeLocalSize, uint32(4), uint32(1), uint32(1))
	emit(spirv.OpName, fn.ID(), "main")
	glsl := emit(spirv.OpExtInstImport, "GLSL.std.450")
	require.Equal(t, glsl, b.ExtInstImport("GLSL.std.450"))
	f32 := emit(spirv.OpTypeFloat, uint32(32))
	i64 := emit(spirv.OpTypeInt, uint32(64), uint32(1))
	u32 := emit(spirv.OpTypeInt, uint32(32), uint32(0))
	pPriv := emit(spirv.OpTypePointer, spirv.StorageClassPrivate, f32)
	pFn := emit(spirv.OpTypePointer, spirv.StorageClassFunction, f32)
	out := emit(spirv.OpVariable, pPriv, spirv.StorageClassPrivate)
	local := emit(spirv.OpVariable, pFn, spirv.StorageClassFunction)
	emit(spirv.OpDecorate, out, spirv.DecorationAliased)
	two := emit(spirv.OpConstant, f32, float32(2))
	big := emit(spirv.OpConstant, i64, int64(-1)<<40)
	spec := emit(spirv.OpSpecConstant, u32, uint32(7))
	emit(spirv.OpDecorate, spec, spirv.DecorationSpecId, uint32(3))
	emit(spirv.OpSpecConstantOp, u32, spirv.OpIAdd, spec, b.ConstantUint32(1))
	root := emit(spirv.OpExtInst, f32, glsl, spirv.GLSLSqrt, two)
	emit(spirv.OpStore, local, root)
	sel := emit(spirv.OpIAdd, i64, big, emit(spirv.OpConstant, i64, int64(1)))
	c1, def, merge := fn.NewBlock(), fn.NewBlock(), fn.NewBlock()
	emit(spirv.OpSelectionMerge, merge.ID(), spirv.SelectionControlNone)
	emit(spirv.OpSwitch, sel, def.ID(), uint64(1)<<40, c1.ID(), uint64(3), def.ID())
	for _, blk := range []*spirv.Block{c1, def} {
		b.SetBlock(blk)
		emit(spirv.OpBranch, merge.ID())
	}
	b.SetBlock(merge)
	ph := emit(spirv.OpPhi, f32, b.ConstantFloat32(1), c1.ID(), b.ConstantFloat32(2), def.ID())
	emit(spirv.OpStore, out, emit(spirv.OpFAdd, f32, ph, emit(spirv.OpLoad, f32, local)))
	emit(spirv.OpReturn)
	w, err := b.Words()
	require.NoError(t, err)
	m, err := spirv.Read(w)
	require.NoError(t, err)
	require.Equal(t, 2, count(m, spirv.OpCapability))
	needTools(t)
	require.NoError(t, spvtools.Validate(w, spirv.EnvVulkan1_3))
	checkRoundTrips(t, w, spirv.EnvVulkan1_3)

	// A 32-bit case literal on a 64-bit selector is refused.
	b2, fn2 := emptyCompute(spirv.EnvVulkan1_3)
	i64b := b2.TypeInt(64, true)
	sel2 := b2.IAdd(i64b, b2.ConstantInt64(1), b2.ConstantInt64(2))
	blk := fn2.NewBlock()
	_, err = b2.Emit(spirv.OpSwitch, sel2, blk.ID(), uint32(1), blk.ID())
	require.ErrorContains(t, err, "must be a uint64")
}

// TestForwardPointer builds a linked list node in PhysicalStorageBuffer
// memory whose first member points to the node type itself, and walks it.
func TestForwardPointer(t *testing.T) {
	for _, env := range []spirv.TargetEnv{spirv.EnvVulkan1_2, spirv.EnvVulkan1_3} {
		b, _ := emptyCompute(env)
		psb := spirv.StorageClassPhysicalStorageBuffer
		f32 := b.TypeFloat(32)
		next := b.TypeForwardPointer(psb)
		node := b.TypeStructOf(spirv.StructType{
			Name:        "Node",
			Members:     []spirv.Member{{Type: next, Name: "next", Offset: spirv.Off(0)}, {Type: f32, Name: "value", Offset: spirv.Off(8)}},
			Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}},
		})
		b.DefineForwardPointer(next, node)
		require.Equal(t, next, b.TypePointer(psb, node))
		head := b.ConvertUToPtr(next, b.ConstantUint64(0x1000))
		aligned := []uint32{uint32(spirv.MemoryAccessAligned), 8}
		second := b.Load(next, b.AccessChain(b.TypePointer(psb, next), head, b.ConstantInt32(0)), aligned...)
		v := b.Load(f32, b.AccessChain(b.TypePointer(psb, f32), second, b.ConstantInt32(1)), uint32(spirv.MemoryAccessAligned), 4)
		b.Store(b.AccessChain(b.TypePointer(psb, f32), head, b.ConstantInt32(1)), v, uint32(spirv.MemoryAccessAligned), 4)
		b.Return()
		w, err := b.Words()
		require.NoError(t, err)
		needTools(t)
		require.NoError(t, spvtools.Validate(w, env))
		checkRoundTrips(t, w, env)
	}

	b, _ := emptyCompute(spirv.EnvVulkan1_2)
	b.TypeForwardPointer(spirv.StorageClassPhysicalStorageBuffer)
	b.Return()
	_, err := b.Words()
	require.ErrorContains(t, err, "never defined")
	b.DefineForwardPointer(12345, b.TypeFloat(32))
	require.ErrorContains(t, b.Err(), "not a pending forward pointer")
}
