package spirv_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

func needTools(t testing.TB) {
	t.Helper()
	_, err := spvtools.Path()
	testenv.Need(t, "SPIRV-Tools", err)
}

// TestShapesValidate builds each shape for Vulkan 1.1, 1.2 and 1.3 and runs
// spirv-val on it, then checks the reader and disassembler on it: the module
// reads and writes back to the same words, our disassembly is the text
// spirv-dis --raw-id prints, and SPIRV-Tools assembles our text back to the
// same words.
func TestShapesValidate(t *testing.T) {
	needTools(t)
	for _, sh := range shapes {
		for _, env := range []spirv.TargetEnv{spirv.EnvVulkan1_1, spirv.EnvVulkan1_2, spirv.EnvVulkan1_3} {
			t.Run(sh.name+"/"+env.String(), func(t *testing.T) {
				b := sh.build(env)
				words, err := b.Words()
				require.NoError(t, err)
				require.Equal(t, uint32(env.SPIRVVersion()), words[1])
				opts := spvtools.ValidateOptions{ScalarBlockLayout: sh.scalar}
				require.NoError(t, spvtools.ValidateWith(words, env, opts))
				checkRoundTrips(t, words, env)
			})
		}
	}
}

func checkRoundTrips(t *testing.T, words []uint32, env spirv.TargetEnv) {
	t.Helper()
	m, err := spirv.Read(words)
	require.NoError(t, err)
	require.Equal(t, words, m.Words(), "read(write(m)) changed the words")
	m2, err := spirv.Read(m.Words())
	require.NoError(t, err)
	require.Equal(t, m, m2)

	ours := m.Disassemble()
	theirs, err := spvtools.DisassembleRaw(words, env)
	require.NoError(t, err)
	require.Equal(t, theirs, ours, "disassembly differs from spirv-dis --raw-id")
	back, err := spvtools.Assemble(ours, env)
	require.NoError(t, err)
	require.Equal(t, words[:2], back[:2])
	require.Equal(t, words[3:], back[3:], "assembling our disassembly gave other words")
}

// rayQuery traces one ray per invocation against an acceleration structure
// with a ray query (built through Emit, which the typed helpers do not cover)
// and stores whether it hit. lavapipe lacks ray queries, so this shape is only validated.
func rayQuery(env spirv.TargetEnv) (*spirv.Builder, error) {
	k := newKernel(env, 64)
	b := k.b
	out := k.buffer(k.u32, 4, 0, "hits")
	as := b.TypeAccelerationStructure()
	tlas := b.Variable(b.TypePointer(spirv.StorageClassUniformConstant, as), spirv.StorageClassUniformConstant, 0)
	b.Decorate(tlas, spirv.DecorationDescriptorSet, 0)
	b.Decorate(tlas, spirv.DecorationBinding, 1)
	rq := k.fn.Variable(b.TypePointer(spirv.StorageClassFunction, b.TypeRayQuery()), 0)
	v3f := b.TypeVector(k.f32, 3)
	i := k.index()
	fx := b.ConvertUToF(k.f32, i)
	origin := b.CompositeConstruct(v3f, fx, b.ConstantFloat32(0), b.ConstantFloat32(-1))
	dir := b.ConstantComposite(v3f, b.ConstantFloat32(0), b.ConstantFloat32(0), b.ConstantFloat32(1))
	if _, err := b.Emit(spirv.OpRayQueryInitializeKHR, rq, b.Load(as, tlas), b.ConstantUint32(uint32(spirv.RayFlagsOpaqueKHR)),
		b.ConstantUint32(0xff), origin, b.ConstantFloat32(0), dir, b.ConstantFloat32(100)); err != nil {
		return nil, err
	}
	if _, err := b.Emit(spirv.OpRayQueryProceedKHR, k.boolT, rq); err != nil {
		return nil, err
	}
	hitType, err := b.Emit(spirv.OpRayQueryGetIntersectionTypeKHR, k.u32, rq, b.ConstantUint32(1))
	if err != nil {
		return nil, err
	}
	b.Store(k.elem(out, k.ptrSBu32, i), hitType)
	b.Return()
	return b, nil
}

func TestRayQueryShapeValidates(t *testing.T) {
	needTools(t)
	for _, env := range []spirv.TargetEnv{spirv.EnvVulkan1_2, spirv.EnvVulkan1_3} {
		t.Run(env.String(), func(t *testing.T) {
			b, err := rayQuery(env)
			require.NoError(t, err)
			words, err := b.Words()
			require.NoError(t, err)
			require.NoError(t, spvtools.Validate(words, env))
			checkRoundTrips(t, words, env)
		})
	}
}
