package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// BenchmarkCommand is a whole lucentc run over the corpus (go list, type
// check, lowering, codegen, validation, writing the .spv files), reported
// per kernel.
func BenchmarkCommand(b *testing.B) {
	_, err := spvtools.Path()
	if err != nil {
		b.Skip(err)
	}
	dir := b.TempDir()
	n := len(corpusKernelsB(b))
	for _, c := range []struct {
		name string
		args []string
	}{
		{"spv", []string{"-atomicfloat", "-o", dir}},
		{"spv-O", []string{"-atomicfloat", "-O", "-o", dir}},
		{"go", []string{"-atomicfloat", "-go", "-goout", dir, "-gopkg", "gen"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			args := append(c.args, corpusDir)
			for b.Loop() {
				if code := run(args, io.Discard, io.Discard); code != 0 {
					b.Fatalf("lucentc exit %d", code)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/kernel")
		})
	}
}

// BenchmarkStage times each stage of the pipeline on the corpus, per kernel:
// source → AST (gokernel.Load of the package), AST → SPIR-V (codegen), the
// validator, and the optimizer (-O).
func BenchmarkStage(b *testing.B) {
	_, err := spvtools.Path()
	if err != nil {
		b.Skip(err)
	}
	ks, errs := gokernel.Load(corpusDir)
	require.Empty(b, errs)
	env := spirv.EnvVulkan1_2
	layout := spvtools.ValidateOptions{ScalarBlockLayout: true}
	opts := codegen.Options{Env: env, FloatAtomicAdd: true}
	words := make([][]uint32, len(ks))
	for i, k := range ks {
		words[i], err = codegen.Emit(k.Func, opts)
		require.NoError(b, err)
	}
	perKernel := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ks)), "ns/kernel")
	}
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			if _, errs := gokernel.Load(corpusDir); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
		perKernel(b)
	})
	b.Run("codegen", func(b *testing.B) {
		for b.Loop() {
			for _, k := range ks {
				if _, err := codegen.Emit(k.Func, opts); err != nil {
					b.Fatal(err)
				}
			}
		}
		perKernel(b)
	})
	b.Run("validate", func(b *testing.B) {
		for b.Loop() {
			for _, w := range words {
				if err := spvtools.ValidateWith(w, env, layout); err != nil {
					b.Fatal(err)
				}
			}
		}
		perKernel(b)
	})
	b.Run("optimize", func(b *testing.B) {
		for b.Loop() {
			for _, w := range words {
				if _, err := spvtools.OptimizeWith(w, env, spvtools.Performance, layout); err != nil {
					b.Fatal(err)
				}
			}
		}
		perKernel(b)
	})
}

// BenchmarkCreate compares what a program pays at run time for a kernel:
// the generated launcher's path (device.LoadPrebuilt: a pipeline from the
// embedded artefact and signature), the same with an artefact of another
// codegen version (stale: the embedded IR decoded and compiled), and
// compiling the kernel at run time (device.Compile: codegen, signature,
// pipeline), side by side on one device. codegen-ms/op is the codegen
// share of the stale path (Kernel.CodegenTime).
func BenchmarkCreate(b *testing.B) {
	dev, err := device.Open(context.Background(), "vulkan", device.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Skip(err)
	}
	defer dev.Close()
	ks, errs := gokernel.Load(corpusDir)
	require.Empty(b, errs)
	for _, k := range ks {
		if k.Name != "Saxpy" && k.Name != "MatMul" {
			continue
		}
		words, err := codegen.Emit(k.Func, codegen.Options{Env: spirv.EnvVulkan1_2})
		require.NoError(b, err)
		sig, _, err := device.KernelSignature(k.Func)
		require.NoError(b, err)
		blob, err := ir.MarshalKernel(k.Func)
		require.NoError(b, err)
		art := vulkan.Artefact(words)
		stale := bytes.Clone(art)
		stale[0]++ // another codegen version
		for name, a := range map[string][]byte{"launcher": art, "stale": stale} {
			b.Run(k.Name+"/"+name, func(b *testing.B) {
				var emit time.Duration
				for b.Loop() {
					// As the launcher does.
					dk, err := device.LoadPrebuilt(dev, device.Prebuilt{Name: k.Name, Signature: sig, IR: blob, Artefacts: map[string][]byte{"vulkan": a}})
					if err != nil {
						b.Fatal(err)
					}
					if (dk.Function() == nil) != (name == "launcher") {
						b.Fatalf("%s: compiled %v", name, dk.Function() != nil)
					}
					emit += dk.CodegenTime
					dk.Close()
				}
				b.ReportMetric(float64(emit.Microseconds())/1e3/float64(b.N), "codegen-ms/op")
			})
		}
		b.Run(k.Name+"/compile", func(b *testing.B) {
			for b.Loop() {
				dk, err := device.Compile(dev, k.Func)
				if err != nil {
					b.Fatal(err)
				}
				dk.Close()
			}
		})
	}
}
