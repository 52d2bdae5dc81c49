// Command startup is the child process of the start-up benchmark
// (startup_test.go): it opens a device, compiles -n distinct kernels (or
// loads them by name with -aot), runs each once, checks every result against
// the CPU and prints one line
//
//	ok kernels=N hits=H misses=M pipeline-loaded=B open-us=O compile-us=C run-us=R codegen-us=G pipeline-us=P
//
// as soon as the results are in; the benchmark times the process from its
// start to that line; O, C and R are the microseconds the child spent opening
// the device, compiling (or loading) the kernels, and running them; G and P
// are the parts of C that went to codegen and to building pipelines (the
// sums of Kernel.CodegenTime and Kernel.PipelineTime; P is 0 with -aot). Closing the device afterwards saves the pipeline cache.
//
// With -save it only compiles the kernels ahead of time into the store (no
// device) and prints "saved N".
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/shadercache"
)

// elems is the number of elements each kernel computes.
const elems = 256

// kernel i computes out[j] = in[j]*c(i) + b: kernels differ by a constant
// baked into their code, so each is a distinct cache entry and pipeline.
func kernel(i int) (*ir.Function, error) {
	c := constant(i)
	return dsl.Kernel1D(64, func(k *dsl.K, b dsl.F32, in, out dsl.Buf[dsl.F32]) {
		j := k.DispatchID().X()
		out.Write(j, in.Read(j).Mul(dsl.F(c)).Add(b))
	})
}

func constant(i int) float32 { return 1 + float32(i)/8 }

func kernelName(i int) string { return fmt.Sprintf("scale-%d", i) }

func main() {
	n := flag.Int("n", 1, "distinct kernels")
	dir := flag.String("cache", "", "shader cache directory (empty: no cache)")
	aot := flag.Bool("aot", false, "load the kernels by name instead of compiling them")
	save := flag.Bool("save", false, "save the kernels ahead of time into -cache and exit")
	flag.Parse()
	if err := run(*n, *dir, *aot, *save); err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(1)
	}
}

func run(n int, dir string, aot, save bool) error {
	var store shadercache.BinaryIO
	if dir != "" {
		s, err := shadercache.NewDir(dir)
		if err != nil {
			return err
		}
		store = s
	}
	if save {
		for i := range n {
			f, err := kernel(i)
			if err != nil {
				return err
			}
			if _, err := device.SaveKernel(store, kernelName(i), f); err != nil {
				return err
			}
		}
		fmt.Printf("saved %d\n", n)
		return nil
	}

	t0 := time.Now()
	d, err := device.Open(context.Background(), "vulkan", device.WithShaderCache(store))
	if err != nil {
		return err
	}
	defer d.Close()
	tOpen := time.Since(t0)
	in, err := device.NewBuffer[float32](d, elems)
	if err != nil {
		return err
	}
	outs := make([]*device.Buffer[float32], n)
	got := make([][]float32, n)
	host := make([]float32, elems)
	for j := range host {
		host[j] = float32(j) - 50
	}
	cmds := []device.Command{in.Upload(host)}
	var sig string
	var codegen, pipeline time.Duration
	for i := range n {
		var k *device.Kernel
		if aot {
			if sig == "" {
				f, err := kernel(0)
				if err != nil {
					return err
				}
				s, _, err := device.KernelSignature(f)
				if err != nil {
					return err
				}
				sig = device.SignatureText(s)
			}
			k, err = device.LoadKernel(d, store, kernelName(i), sig)
		} else {
			var f *ir.Function
			if f, err = kernel(i); err == nil {
				k, err = device.Compile(d, f)
			}
		}
		if err != nil {
			return err
		}
		defer k.Close()
		codegen += k.CodegenTime
		pipeline += k.PipelineTime
		if outs[i], err = device.NewBuffer[float32](d, elems); err != nil {
			return err
		}
		got[i] = make([]float32, elems)
		cmds = append(cmds, k.Dispatch([3]uint32{elems}, float32(0.5), in, outs[i]), outs[i].Download(got[i]))
	}
	tCompile := time.Since(t0) - tOpen
	s, err := d.NewStream(device.StreamCompute)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Submit(cmds...); err != nil {
		return err
	}
	if err := s.Synchronize(context.Background()); err != nil {
		return err
	}
	for i := range n {
		for j, x := range host {
			if want := x*constant(i) + 0.5; got[i][j] != want {
				return fmt.Errorf("kernel %d element %d: got %v, want %v", i, j, got[i][j], want)
			}
		}
	}
	tRun := time.Since(t0) - tOpen - tCompile
	st := d.CacheStats()
	fmt.Printf("ok kernels=%d hits=%d misses=%d pipeline-loaded=%d open-us=%d compile-us=%d run-us=%d codegen-us=%d pipeline-us=%d\n",
		n, st.Shader.Hits, st.Shader.Misses, st.Pipeline.LoadedBytes,
		tOpen.Microseconds(), tCompile.Microseconds(), tRun.Microseconds(), codegen.Microseconds(), pipeline.Microseconds())
	return nil
}
