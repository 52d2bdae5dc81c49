package vulkan

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
	"github.com/stretchr/testify/require"
)

// limitModule builds a valid compute module of the given local size that
// keeps shared float32s in Workgroup memory (none when shared is 0). With
// noShaderCap the Shader capability is left out, which spirv-val refuses and
// drivers take without a word.
func limitModule(t testing.TB, x, y, z, shared uint32, noShaderCap bool) []uint32 {
	t.Helper()
	b := spirv.NewBuilder(spirv.EnvVulkan1_2)
	if !noShaderCap {
		b.Capability(spirv.CapabilityShader)
	}
	void := b.TypeVoid()
	f32 := b.TypeFloat(32)
	var wg spirv.ID
	if shared > 0 {
		arr := b.TypeArray(f32, shared)
		wg = b.Variable(b.TypePointer(spirv.StorageClassWorkgroup, arr), spirv.StorageClassWorkgroup, 0)
	}
	fn := b.Function(void, b.TypeFunction(void))
	b.SetBlock(fn.NewBlock())
	if shared > 0 {
		p := b.AccessChain(b.TypePointer(spirv.StorageClassWorkgroup, f32), wg, b.ConstantUint32(shared-1))
		b.Store(p, b.ConstantFloat32(1))
	}
	b.Return()
	b.EntryPoint(spirv.ExecutionModelGLCompute, fn.ID(), "main")
	b.LocalSize(fn.ID(), x, y, z)
	w, err := b.Words()
	require.NoError(t, err)
	return w
}

func needSPIRVTools(t testing.TB) {
	t.Helper()
	if _, err := spvtools.Path(); err != nil {
		t.Skipf("SPIRV-Tools: %v", err) // the module checks then need Trusted
	}
}

// SPIR-V from outside lucent's compiler is checked by spirv-val before the
// driver sees it; the error names the shader and carries spirv-val's message.
func TestCreateShaderValidatesForeignModules(t *testing.T) {
	needSPIRVTools(t)
	d, _ := openDevice(t)
	_, _, err := d.CreateShader(device.ShaderDesc{SPIRV: limitModule(t, 8, 1, 1, 0, true), Name: "nocap"})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorIs(t, err, spvtools.ErrInvalid)
	require.Contains(t, err.Error(), `"nocap"`)
	require.Contains(t, err.Error(), "Shader")

	h, sig, err := d.CreateShader(device.ShaderDesc{SPIRV: limitModule(t, 8, 1, 1, 16, false), Name: "ok"})
	require.NoError(t, err)
	require.Equal(t, [3]uint32{8, 1, 1}, sig.BlockSize)
	require.NoError(t, d.DestroyShader(h))
}

// Without SPIRV-Tools a foreign module is refused (ErrUnsupported, saying
// how to proceed) unless the caller marks it Trusted.
func TestCreateShaderWithoutSPIRVToolsNeedsTrust(t *testing.T) {
	d, _ := openDevice(t)
	old := validateSPIRV
	validateSPIRV = func([]uint32, spirv.TargetEnv, spvtools.ValidateOptions) error {
		return fmt.Errorf("%w: tried libSPIRV-Tools-shared.so", spvtools.ErrUnavailable)
	}
	t.Cleanup(func() { validateSPIRV = old })
	words := limitModule(t, 8, 1, 1, 0, false)
	_, _, err := d.CreateShader(device.ShaderDesc{SPIRV: words, Name: "foreign"})
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorIs(t, err, spvtools.ErrUnavailable)
	require.Contains(t, err.Error(), `"foreign"`)
	require.Contains(t, err.Error(), "Trusted")

	h, _, err := d.CreateShader(device.ShaderDesc{SPIRV: words, Name: "foreign", Trusted: true})
	require.NoError(t, err)
	require.NoError(t, d.DestroyShader(h))
}

// Device limits are checked before the driver, for trusted modules too; the
// error names the shader and the limit.
func TestCreateShaderChecksDeviceLimits(t *testing.T) {
	d, _ := openDevice(t)
	caps := d.Capabilities()
	maxSize, maxInv := caps.MaxWorkgroupSize, caps.MaxWorkgroupInvocations
	cases := []struct {
		name    string
		words   []uint32
		sig     *device.Signature
		limit   string
		trusted bool
	}{
		{"huge x", limitModule(t, 1<<31-1, 1, 1, 0, false), nil, "maxComputeWorkGroupSize", false},
		{"huge z", limitModule(t, 1, 1, maxSize[2]+1, 0, false), nil, "maxComputeWorkGroupSize", false},
		{"invocations", limitModule(t, maxSize[0], maxSize[1], 1, 0, false), nil, "maxComputeWorkGroupInvocations", false},
		{"shared", limitModule(t, 1, 1, 1, caps.MaxSharedMemory/4+1, false), nil, "maxComputeSharedMemorySize", false},
		{"trusted huge x", limitModule(t, 1<<31-1, 1, 1, 0, false), nil, "maxComputeWorkGroupSize", true},
		{"trusted shared", limitModule(t, 1, 1, 1, caps.MaxSharedMemory/4+1, false), &device.Signature{}, "maxComputeSharedMemorySize", true},
		{"signature block", limitModule(t, 8, 1, 1, 0, false), &device.Signature{BlockSize: [3]uint32{1 << 20, 1, 1}}, "maxComputeWorkGroupSize", true},
	}
	require.Greater(t, uint64(maxSize[0])*uint64(maxSize[1]), uint64(maxInv), "the invocations case needs x*y past the limit")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.trusted {
				needSPIRVTools(t)
			}
			_, _, err := d.CreateShader(device.ShaderDesc{SPIRV: c.words, Signature: c.sig, Name: "big", Trusted: c.trusted})
			require.ErrorIs(t, err, device.ErrUnsupported)
			require.Contains(t, err.Error(), `"big"`)
			require.Contains(t, err.Error(), c.limit)
		})
	}
	// At the limits is fine.
	needSPIRVTools(t)
	h, _, err := d.CreateShader(device.ShaderDesc{SPIRV: limitModule(t, maxSize[0], 1, 1, caps.MaxSharedMemory/4, false), Name: "edge"})
	require.NoError(t, err)
	require.NoError(t, d.DestroyShader(h))
}

// A module the reflection parser cannot read is an error even when trusted.
func TestCreateShaderTrustedStillParsed(t *testing.T) {
	d, _ := openDevice(t)
	a := computeHeader(0xffffffff, 8, 1, 1)
	_, _, err := d.CreateShader(device.ShaderDesc{SPIRV: a.words, Signature: &device.Signature{}, Name: "bound", Trusted: true})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.Contains(t, err.Error(), "bound")
	require.False(t, errors.Is(err, device.ErrUnsupported))
}
