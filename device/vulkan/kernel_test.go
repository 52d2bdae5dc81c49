package vulkan

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/shadercache"
	"github.com/lucent-gpu/lucent/spirv"
)

func scaleBy(t *testing.T, c float32) *ir.Function {
	t.Helper()
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		out.Write(i, out.Read(i).Mul(dsl.F(c)))
	}, "out")
	require.NoError(t, err)
	return f
}

// TestShaderCacheKeyCoversOptions: the SPIR-V cache key covers the options
// codegen runs with, device capabilities included, and is stable across
// traces of the same kernel.
func TestShaderCacheKeyCoversOptions(t *testing.T) {
	f := scaleBy(t, 3)
	base := codegen.Options{Env: spirv.EnvVulkan1_2}
	keys := map[shadercache.Key]string{}
	for name, o := range map[string]codegen.Options{
		"base":                     base,
		"float atomic add":         {Env: spirv.EnvVulkan1_2, FloatAtomicAdd: true},
		"names":                    {Env: spirv.EnvVulkan1_2, Names: true},
		"env":                      {Env: spirv.EnvVulkan1_3},
		"native bindless textures": {Env: spirv.EnvVulkan1_2, NativeBindlessTextures: true},
		"loop exit flags":          {Env: spirv.EnvVulkan1_2, LoopExitFlags: true},
	} {
		k := ShaderCacheKey(f, o)
		require.NotContains(t, keys, k, "%s collides with %s", name, keys[k])
		keys[k] = name
	}
	require.Equal(t, ShaderCacheKey(f, base), ShaderCacheKey(scaleBy(t, 3), base), "stable across traces")
	require.NotEqual(t, ShaderCacheKey(f, base), ShaderCacheKey(scaleBy(t, 5), base))
}

// TestCreateShaderFromKernel: the backend compiles a kernel handed over as
// its AST, reports the codegen it ran, and refuses a description carrying
// SPIR-V beside the kernel or lacking the kernel's signature.
func TestCreateShaderFromKernel(t *testing.T) {
	d, _ := openDevice(t)
	f := scaleBy(t, 3)
	sig := device.Signature{BlockSize: f.BlockSize,
		Args: []device.Argument{{Kind: device.ArgBuffer, Name: "out", ElemSize: 4, Access: device.Read | device.Write}}}
	var rep device.ShaderReport
	h, got, err := d.CreateShader(device.ShaderDesc{Kernel: f, Signature: &sig, Report: &rep})
	require.NoError(t, err)
	require.NoError(t, d.DestroyShader(h))
	require.Equal(t, sig.Args, got.Args)
	require.NotEmpty(t, rep.SPIRV)
	require.False(t, rep.CacheHit)

	_, _, err = d.CreateShader(device.ShaderDesc{Kernel: f, Signature: &sig, SPIRV: rep.SPIRV})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "both a kernel and SPIR-V")
	_, _, err = d.CreateShader(device.ShaderDesc{Kernel: f})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "no signature")
}

// TestABILayoutMatchesCodegen holds the two descriptions of a kernel's
// arguments that codegen.Place lays out together: the one abiLayout makes
// of a logical signature and the one codegen.Layout makes of the kernel,
// for every kernel of the corpus, plain and checked, and kernels past the
// push budget (spilled arguments of every kind and alignment among ones
// that still fit, printing or not).
func TestABILayoutMatchesCodegen(t *testing.T) {
	all := programs.All()
	all["printing"] = func() (*ir.Function, error) {
		return dsl.Kernel1D(64, func(k *dsl.K, a dsl.U32, b dsl.Buf[dsl.U32], c dsl.Val[uint16]) {
			k.Printf("%d %d", a, c)
		}, "a", "b", "c")
	}
	for _, nBig := range []int{1, 7} {
		all[fmt.Sprintf("spill%d", nBig)] = func() (*ir.Function, error) {
			f := ir.NewKernel("spill", 1, [3]uint32{64, 1, 1})
			f.AddParam("out", ir.Buffer(ir.TF32), ir.VarArg)
			for i := range 20 {
				f.AddParam(fmt.Sprintf("f%d", i), ir.TF32, ir.VarArg)
			}
			for i := range nBig {
				f.AddParam(fmt.Sprintf("big%d", i), ir.BufferAddress(ir.TU32), ir.VarArg)
			}
			f.AddParam("scene", ir.Accel, ir.VarArg)
			f.AddParam("v", ir.Vector(ir.TF32, 3), ir.VarArg)
			f.AddParam("m", ir.Matrix(4, 4), ir.VarArg)
			f.AddParam("b", ir.TBool, ir.VarArg)
			f.AddParam("d", ir.TU64, ir.VarArg)
			f.AddParam("small", ir.TU16, ir.VarArg)
			return f, f.Validate()
		}
	}
	spilled := 0
	for name, build := range all {
		f, err := build()
		require.NoError(t, err, name)
		for _, checked := range []bool{false, true} {
			for _, native := range []bool{false, true} {
				args, push := codegen.Layout(f, codegen.Options{Checked: checked, NativeRayQuery: native})
				sig, _, err := device.KernelSignature(f)
				require.NoError(t, err, name)
				sig.Checked = checked
				lay, err := abiLayout(sig, name, !native)
				require.NoError(t, err, name)
				require.True(t, lay.header, name)
				require.Equal(t, uint32(push.Size), lay.pushSize, name)
				require.Equal(t, uint32(push.Spill), lay.spillSize, name)
				require.Equal(t, push.Ring >= 0, lay.prints, name)
				if push.Ring >= 0 {
					require.Equal(t, uint32(push.Ring), lay.printOffset, name)
				}
				for i, a := range args {
					l := lay.args[i]
					switch {
					case a.Binding >= 0:
						require.NotEqual(t, noDescriptor, l.desc, "%s %s", name, a.Var.Name)
						require.Equal(t, uint32(a.Binding), l.binding, "%s %s", name, a.Var.Name)
						continue
					case a.Bound >= 0:
						// A software accel: a binding and push-constant words.
						require.Equal(t, ir.Accel, a.Var.Type, "%s %s", name, a.Var.Name)
						require.False(t, native, "%s %s", name, a.Var.Name)
						require.True(t, l.accelBuffer, "%s %s", name, a.Var.Name)
						require.Equal(t, uint32(a.Bound), l.binding, "%s %s", name, a.Var.Name)
					default:
						require.Equal(t, noDescriptor, l.desc, "%s %s", name, a.Var.Name)
						require.False(t, l.accelBuffer, "%s %s", name, a.Var.Name)
					}
					require.Equal(t, uint32(a.Offset), l.offset, "%s %s", name, a.Var.Name)
					require.Equal(t, a.Spilled, l.spilled, "%s %s", name, a.Var.Name)
					if a.Spilled && !native {
						spilled++
					}
				}
			}
		}
	}
	require.NotZero(t, spilled)
}

// TestDriverVersion: the workaround table's version of a driver is the Mesa
// release its driver info names (lavapipe's driverVersion is 1), else the
// driverVersion it reports.
func TestDriverVersion(t *testing.T) {
	for info, want := range map[string]uint32{
		"Mesa 22.3.6 (LLVM 15.0.6)":           codegen.MesaVersion(22, 3, 6),
		"Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6)": codegen.MesaVersion(25, 0, 7),
		"Mesa 23.1":                           codegen.MesaVersion(23, 1, 0),
		"535.104.05":                          1,
		"":                                    1,
		"Mesa x":                              1,
	} {
		require.Equal(t, want, driverVersion(1, info), info)
	}
}
