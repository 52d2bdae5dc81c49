package spvtools_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

func need(t *testing.T) {
	t.Helper()
	_, err := spvtools.Path()
	testenv.Need(t, "SPIRV-Tools", err)
}

// doubler builds a compute shader doubling a float storage buffer in place.
func doubler(t testing.TB, env spirv.TargetEnv) []uint32 {
	b := spirv.NewBuilder(env)
	b.Capability(spirv.CapabilityShader)
	f32 := b.TypeFloat(32)
	u32 := b.TypeInt(32, false)
	st := b.TypeStructOf(spirv.StructType{
		Members:     []spirv.Member{{Type: b.TypeRuntimeArrayStride(f32, 4), Offset: spirv.Off(0)}},
		Decorations: []spirv.Decor{{Decoration: spirv.DecorationBlock}},
	})
	buf := b.Variable(b.TypePointer(spirv.StorageClassStorageBuffer, st), spirv.StorageClassStorageBuffer, 0)
	b.Decorate(buf, spirv.DecorationDescriptorSet, 0)
	b.Decorate(buf, spirv.DecorationBinding, 0)
	v3 := b.TypeVector(u32, 3)
	gid := b.Variable(b.TypePointer(spirv.StorageClassInput, v3), spirv.StorageClassInput, 0)
	b.Decorate(gid, spirv.DecorationBuiltIn, uint32(spirv.BuiltInGlobalInvocationId))
	void := b.TypeVoid()
	fn := b.Function(void, b.TypeFunction(void))
	b.SetBlock(fn.NewBlock())
	i := b.CompositeExtract(u32, b.Load(v3, gid), 0)
	p := b.AccessChain(b.TypePointer(spirv.StorageClassStorageBuffer, f32), buf, b.ConstantUint32(0), i)
	// Written long-hand so the optimizer has something to fold.
	two := b.FAdd(f32, b.ConstantFloat32(1), b.ConstantFloat32(1))
	b.Store(p, b.FMul(f32, b.Load(f32, p), two))
	b.Return()
	b.EntryPoint(spirv.ExecutionModelGLCompute, fn.ID(), "main")
	b.LocalSize(fn.ID(), 64, 1, 1)
	w, err := b.Words()
	require.NoError(t, err)
	return w
}

func TestValidate(t *testing.T) {
	need(t)
	for _, env := range []spirv.TargetEnv{spirv.EnvVulkan1_1, spirv.EnvVulkan1_2, spirv.EnvVulkan1_3, spirv.EnvUniversal1_6} {
		t.Run(env.String(), func(t *testing.T) {
			require.NoError(t, spvtools.Validate(doubler(t, env), env))
		})
	}
}

func TestValidateReportsTheValidatorMessage(t *testing.T) {
	need(t)
	w := doubler(t, spirv.EnvVulkan1_2)
	// Drop the OpCapability Shader instruction (words 5 and 6).
	bad := append(append([]uint32(nil), w[:5]...), w[7:]...)
	err := spvtools.Validate(bad, spirv.EnvVulkan1_2)
	require.Error(t, err)
	require.True(t, errors.Is(err, spvtools.ErrInvalid))
	var e *spvtools.Error
	require.True(t, errors.As(err, &e))
	require.Contains(t, e.Message, "Shader")

	err = spvtools.Validate([]uint32{1, 2, 3}, spirv.EnvVulkan1_2)
	require.ErrorIs(t, err, spvtools.ErrInvalid)
	require.ErrorIs(t, spvtools.Validate(nil, spirv.EnvVulkan1_2), spvtools.ErrInvalid)

	// Vulkan 1.1 accepts SPIR-V 1.3 at most: a 1.6 module is refused.
	err = spvtools.Validate(doubler(t, spirv.EnvVulkan1_3), spirv.EnvVulkan1_1)
	require.ErrorIs(t, err, spvtools.ErrInvalid)
}

func TestDisassembleAssembleRoundTrip(t *testing.T) {
	need(t)
	w := doubler(t, spirv.EnvVulkan1_2)
	text, err := spvtools.DisassembleRaw(w, spirv.EnvVulkan1_2)
	require.NoError(t, err)
	require.Contains(t, text, "OpEntryPoint GLCompute %")
	back, err := spvtools.Assemble(text, spirv.EnvVulkan1_2)
	require.NoError(t, err)
	// The assembler writes its own generator word (header word 2).
	require.Equal(t, w[:2], back[:2])
	require.Equal(t, w[3:], back[3:])

	friendly, err := spvtools.Disassemble(w, spirv.EnvVulkan1_2)
	require.NoError(t, err)
	require.Contains(t, friendly, "%float = OpTypeFloat 32")

	_, err = spvtools.Assemble("OpCapability NoSuchCapability\n", spirv.EnvVulkan1_2)
	require.ErrorIs(t, err, spvtools.ErrAssemble)
	var e *spvtools.Error
	require.ErrorAs(t, err, &e)
	require.Contains(t, e.Message, "NoSuchCapability")
}

func TestOptimize(t *testing.T) {
	need(t)
	for _, env := range []spirv.TargetEnv{spirv.EnvVulkan1_2, spirv.EnvVulkan1_3} {
		for _, lv := range []spvtools.Level{spvtools.Performance, spvtools.Size} {
			t.Run(env.String()+lv.String(), func(t *testing.T) {
				w := doubler(t, env)
				out, err := spvtools.Optimize(w, env, lv)
				require.NoError(t, err)
				require.NoError(t, spvtools.Validate(out, env))
				text, err := spvtools.DisassembleRaw(out, env)
				require.NoError(t, err)
				// 1+1 is folded into the constant 2.
				require.NotContains(t, text, "OpFAdd")
				require.Contains(t, text, "OpFMul")
			})
		}
	}
	_, err := spvtools.Optimize([]uint32{spirv.MagicNumber, 0x10000, 0, 1, 0, 0xdead}, spirv.EnvVulkan1_2, spvtools.Performance)
	require.ErrorIs(t, err, spvtools.ErrInvalid)
	_, err = spvtools.Optimize(doubler(t, spirv.EnvVulkan1_2), spirv.EnvVulkan1_2, 0)
	require.Error(t, err)
}

func TestConcurrentUse(t *testing.T) {
	need(t)
	w := doubler(t, spirv.EnvVulkan1_2)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				if err := spvtools.Validate(w, spirv.EnvVulkan1_2); err != nil {
					errs <- err
					return
				}
				out, err := spvtools.Optimize(w, spirv.EnvVulkan1_2, spvtools.Performance)
				if err != nil {
					errs <- err
					return
				}
				if _, err := spvtools.DisassembleRaw(out, spirv.EnvVulkan1_2); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestUnknownEnv(t *testing.T) {
	need(t)
	err := spvtools.Validate(doubler(t, spirv.EnvVulkan1_2), spirv.TargetEnv(200))
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "unknown target environment"))
}
