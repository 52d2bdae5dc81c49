package device_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
)

// benchDevice opens the default device without the validation layer, which
// would dominate the timings.
func benchDevice(b *testing.B) *device.Device {
	d, err := device.Open(context.Background(), "vulkan")
	testenv.Need(b, "Vulkan device", err)
	b.Cleanup(func() { d.Close() })
	return d
}

// glslang compiles testdata/frontend/<name>.comp with glslangValidator.
func glslang(b *testing.B, name string) []uint32 {
	b.Helper()
	path, err := exec.LookPath("glslangValidator")
	testenv.Need(b, "glslangValidator", err)
	out := filepath.Join(b.TempDir(), name+".spv")
	cmd := exec.Command(path, "-V", "--target-env", "vulkan1.2", "-o", out, filepath.Join("..", "testdata", "frontend", name+".comp"))
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("glslangValidator: %v\n%s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	w := make([]uint32, len(data)/4)
	for i := range w {
		w[i] = uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24
	}
	return w
}

// BenchmarkCompile puts lucent's codegen (AST → SPIR-V words) beside
// glslangValidator (GLSL → SPIR-V, a process per compile) and the pipeline
// creation of either module on the same device.
func BenchmarkCompile(b *testing.B) {
	d := benchDevice(b)
	for _, name := range []string{"saxpy", "mandelbrot"} {
		f, err := programs.All()[name]()
		if err != nil {
			b.Fatal(err)
		}
		words, err := codegen.Emit(f, codegen.Options{Env: spirv.EnvVulkan1_2})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/lucent-codegen", func(b *testing.B) {
			for b.Loop() {
				if _, err := codegen.Emit(f, codegen.Options{Env: spirv.EnvVulkan1_2}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/lucent-pipeline", func(b *testing.B) {
			sig, _, err := device.KernelSignature(f)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				// Trusted, as Compile's: the driver's cost alone.
				sh, err := d.NewShader(device.ShaderDesc{SPIRV: words, Signature: &sig, Trusted: true})
				if err != nil {
					b.Fatal(err)
				}
				sh.Close()
			}
		})
		b.Run(name+"/glslang-process", func(b *testing.B) {
			for b.Loop() {
				glslang(b, name)
			}
		})
		gw := glslang(b, name)
		b.Run(name+"/glslang-pipeline", func(b *testing.B) {
			for b.Loop() {
				// Trusted, to compare the driver's cost alone (NewShader
				// validates glslang's output otherwise: docs/PERFORMANCE.md).
				sh, err := d.NewShader(device.ShaderDesc{SPIRV: gw, Trusted: true})
				if err != nil {
					b.Fatal(err)
				}
				sh.Close()
			}
		})
	}
}

// BenchmarkRun times the kernels themselves, lucent's SPIR-V beside
// glslang's for the same computation, on the same device and buffers.
func BenchmarkRun(b *testing.B) {
	d := benchDevice(b)
	ctx := context.Background()
	s, err := d.NewStream(device.StreamCompute)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	sync := func(b *testing.B, c device.Command) {
		if err := s.Submit(c); err != nil {
			b.Fatal(err)
		}
		if err := s.Synchronize(ctx); err != nil {
			b.Fatal(err)
		}
	}
	compileDSL := func(b *testing.B, name string) *device.Kernel {
		f, err := programs.All()[name]()
		if err != nil {
			b.Fatal(err)
		}
		k, err := device.Compile(d, f)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { k.Close() })
		return k
	}
	compileGLSL := func(b *testing.B, name string) *device.Shader {
		sh, err := d.NewShader(device.ShaderDesc{SPIRV: glslang(b, name)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { sh.Close() })
		return sh
	}

	const w, h = 512, 512
	img, err := device.NewBuffer[uint32](d, w*h)
	if err != nil {
		b.Fatal(err)
	}
	defer img.Close()
	b.Run("mandelbrot512/lucent", func(b *testing.B) {
		k := compileDSL(b, "mandelbrot")
		for b.Loop() {
			sync(b, k.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), img))
		}
	})
	// The device's driver workarounds off (on Mesa 22 the loop exit of
	// mandelbrot's escape test becomes a flag: the cost of loop-exit-flags).
	b.Run("mandelbrot512/lucent-noworkarounds", func(b *testing.B) {
		f, err := programs.Mandelbrot()
		if err != nil {
			b.Fatal(err)
		}
		k, err := device.Compile(d, f, device.WithoutDriverWorkarounds())
		if err != nil {
			b.Fatal(err)
		}
		defer k.Close()
		for b.Loop() {
			sync(b, k.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), img))
		}
	})
	b.Run("mandelbrot512/glslang", func(b *testing.B) {
		sh := compileGLSL(b, "mandelbrot")
		for b.Loop() {
			sync(b, sh.Dispatch([3]uint32{w, h}, img, uint32(w), uint32(h)))
		}
	})

	const n = 1 << 22
	x, err := device.NewBuffer[float32](d, n)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	y, err := device.NewBuffer[float32](d, n)
	if err != nil {
		b.Fatal(err)
	}
	defer y.Close()
	b.Run("saxpy4M/lucent", func(b *testing.B) {
		k := compileDSL(b, "saxpy")
		b.SetBytes(3 * 4 * n)
		for b.Loop() {
			sync(b, k.Dispatch([3]uint32{n}, float32(2), x, y))
		}
	})
	b.Run("saxpy4M/glslang", func(b *testing.B) {
		sh := compileGLSL(b, "saxpy")
		b.SetBytes(3 * 4 * n)
		for b.Loop() {
			sync(b, sh.Dispatch([3]uint32{n}, x, y, float32(2), uint32(n)))
		}
	})
}
