package spirv_test

import (
	"testing"

	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// BenchmarkBuilderThroughput adds 10,000 arithmetic instructions (with the
// constant and type lookups a code generator does) per module and reports instructions per second.
func BenchmarkBuilderThroughput(b *testing.B) {
	const n = 10000
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		bl, fn := emptyCompute(spirv.EnvVulkan1_3)
		f32 := bl.TypeFloat(32)
		acc := bl.ConstantFloat32(0)
		for j := 0; j < n; j++ {
			switch j % 4 {
			case 0:
				acc = bl.FAdd(bl.TypeFloat(32), acc, bl.ConstantFloat32(float32(j%64)))
			case 1:
				acc = bl.FMul(f32, acc, acc)
			case 2:
				acc = bl.GLSL(f32, spirv.GLSLFAbs, acc)
			default:
				acc = bl.FSub(f32, acc, bl.ConstantFloat32(1))
			}
		}
		bl.Return()
		_ = fn
		if _, err := bl.Words(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "instr/s")
}

// BenchmarkKernels times, for two typical kernels in one run: building the
// module (Builder to words), reading it back, disassembling it, validating it
// with spirv-val, and optimizing it with spirv-opt -O and -Os.
func BenchmarkKernels(b *testing.B) {
	env := spirv.EnvVulkan1_2
	scalar := spvtools.ValidateOptions{ScalarBlockLayout: true}
	for _, k := range []struct {
		name  string
		build func(spirv.TargetEnv) *spirv.Builder
	}{{"saxpy", saxpy}, {"mandelbrot", mandelbrot}} {
		words, err := k.build(env).Words()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(k.name+"/build", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := k.build(env).Words(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(k.name+"/read", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := spirv.Read(words); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(k.name+"/disassemble", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := spirv.Disassemble(words); err != nil {
					b.Fatal(err)
				}
			}
		})
		if _, err := spvtools.Path(); err != nil {
			continue
		}
		b.Run(k.name+"/spirv-val", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := spvtools.ValidateWith(words, env, scalar); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, lv := range []spvtools.Level{spvtools.Performance, spvtools.Size} {
			b.Run(k.name+"/spirv-opt"+lv.String(), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := spvtools.OptimizeWith(words, env, lv, scalar); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
