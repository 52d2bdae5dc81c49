package vulkan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
	"github.com/lucent-gpu/lucent/vk"
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

// BenchmarkShaderChecks compares what the checks cost with what the driver
// takes to build the pipeline, for lucent's saxpy (385 words) and matmul
// (1057 words) as foreign modules (docs/PERFORMANCE.md).
func BenchmarkShaderChecks(b *testing.B) {
	needSPIRVTools(b)
	d, err := Open(device.Options{DeviceIndex: -1})
	testenv.Need(b, "a Vulkan device", err)
	defer func() { require.NoError(b, d.Close()) }()
	env, opts := d.spirvTarget()
	for _, name := range []string{"Saxpy", "MatMul"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "modules", "lucent_"+name+".spv"))
		require.NoError(b, err)
		words := u32s(raw)
		b.Run(name+"/spirv-val", func(b *testing.B) {
			for b.Loop() {
				require.NoError(b, validateSPIRV(words, env, opts))
			}
		})
		b.Run(name+"/parse", func(b *testing.B) {
			for b.Loop() {
				m, err := parseSPIRV(words, "main")
				require.NoError(b, err)
				require.NoError(b, d.checkLimits(m, m.localSize, name))
			}
		})
		for _, trusted := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/CreateShader/trusted=%v", name, trusted), func(b *testing.B) {
				for b.Loop() {
					h, _, err := d.CreateShader(device.ShaderDesc{SPIRV: words, Name: name, Trusted: trusted})
					require.NoError(b, err)
					require.NoError(b, d.DestroyShader(h))
				}
			})
		}
	}
}

// withBinding returns words with the Binding 1 decoration made binding b.
func withBinding(words []uint32, b uint32) []uint32 {
	out := append([]uint32(nil), words...)
	for i := 5; i < len(out); i += int(out[i] >> 16) {
		if out[i] == 4<<16|uint32(spirv.OpDecorate) && out[i+2] == uint32(spirv.DecorationBinding) && out[i+3] == 1 {
			out[i+3] = b
		}
	}
	return out
}

// Drivers size a set layout by its highest binding: one resource at
// binding 2^24 took lavapipe 9 s to create (found by FuzzNewShader).
// Reflected bindings past maxBinding are refused (a given signature is laid
// out by kernel ABI v1, which numbers bindings from 0).
func TestCreateShaderRefusesHugeBindings(t *testing.T) {
	needSPIRVTools(t)
	d, _ := openDevice(t)
	raw, err := os.ReadFile(filepath.Join("testdata", "modules", "glsl_saxpy.spv"))
	require.NoError(t, err)
	words := withBinding(u32s(raw), 1<<24)
	_, _, err = d.CreateShader(device.ShaderDesc{SPIRV: words, Name: "far"})
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.Contains(t, err.Error(), `"far"`)
	require.Contains(t, err.Error(), "binding 16777216")

	h, _, err := d.CreateShader(device.ShaderDesc{SPIRV: withBinding(u32s(raw), maxBinding), Name: "edge"})
	require.NoError(t, err)
	require.NoError(t, d.DestroyShader(h))
}

// The header's schema word is reserved (0): spirv-val lets any value pass,
// lavapipe fails the pipeline with VK_ERROR_UNKNOWN (found by FuzzNewShader,
// testdata/fuzz/FuzzNewShader/7b72c662dbd8831c).
func TestReflectRejectsReservedSchema(t *testing.T) {
	a := computeHeader(32, 8, 1, 1)
	a.words[4] = 8704
	_, err := parseSPIRV(a.words, "main")
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.Contains(t, err.Error(), "schema")
}

// A module the driver refuses after every check passed gives an error of a
// lucent class: ErrUnsupported, unless the driver ran out of memory or lost
// the device.
func TestDriverRefusalIsClassed(t *testing.T) {
	err := driverRefused("s", check("vkCreateComputePipelines", vk.ERROR_UNKNOWN))
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.Contains(t, err.Error(), `shader "s"`)
	require.Contains(t, err.Error(), "VK_ERROR_UNKNOWN")
	err = driverRefused("s", check("vkCreateShaderModule", vk.ERROR_OUT_OF_HOST_MEMORY))
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	require.False(t, errors.Is(err, device.ErrUnsupported))
}
