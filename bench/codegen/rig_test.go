package codegen

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// rig is one kernel's resources and arguments, shared by its variants.
type rig struct {
	dims   [3]uint32
	lucent []any // Kernel.Dispatch arguments, in the DSL kernel's order
	glsl   []any // Shader.Dispatch arguments: bindings first, then push constants
	// reset restores the inputs a dispatch changes (y of saxpy, the bins).
	reset []device.Command
	// check compares the outputs of the last dispatch with the CPU reference.
	check func(s *device.Stream) error
}

// kernel is one benchmark kernel: its DSL builder, its GLSL file and a rig.
type kernel struct {
	name  string
	build func() (*ir.Function, error)
	rig   func(d *device.Device, s *device.Stream) (*rig, error)
}

// kernels are the eight kernels at the sizes every variant runs.
var kernels = []kernel{
	{"saxpy", programs.Saxpy, saxpyRig},
	{"reduce", programs.Reduce, reduceRig},
	{"scan", programs.Scan, scanRig},
	{"histogram", programs.Histogram, histogramRig},
	{"matmul", programs.MatMul, matmulRig},
	{"mandelbrot", programs.Mandelbrot, mandelbrotRig},
	{"nbody", programs.NBody, nbodyRig},
	{"blur", programs.Blur, blurRig},
}

// variant is one compiled form of a kernel.
type variant struct {
	name     string
	spirv    []uint32
	dispatch func(r *rig) device.Command
	close    func()
}

// variants compiles k three ways: lucent's codegen (device.Compile, as users
// get it), glslangValidator -V, and that module through spirv-opt -O.
func variants(tb testing.TB, d *device.Device, k kernel) []variant {
	tb.Helper()
	f, err := k.build()
	if err != nil {
		tb.Fatal(err)
	}
	lk, err := device.Compile(d, f)
	if err != nil {
		tb.Fatalf("%s: %v", k.name, err)
	}
	gw := glslang(tb, k.name)
	ow, err := spvtools.Optimize(gw, spirv.EnvVulkan1_2, spvtools.Performance)
	if err != nil {
		tb.Fatalf("%s: spirv-opt -O: %v", k.name, err)
	}
	out := []variant{{
		name:     "lucent",
		spirv:    lk.SPIRV(),
		dispatch: func(r *rig) device.Command { return lk.Dispatch(r.dims, r.lucent...) },
		close:    func() { lk.Close() },
	}}
	for _, g := range []struct {
		name  string
		words []uint32
	}{{"glslang", gw}, {"glslang-O", ow}} {
		sh, err := d.NewShader(device.ShaderDesc{SPIRV: g.words, Name: k.name + "/" + g.name})
		if err != nil {
			tb.Fatalf("%s/%s: %v", k.name, g.name, err)
		}
		out = append(out, variant{
			name:     g.name,
			spirv:    g.words,
			dispatch: func(r *rig) device.Command { return sh.Dispatch(r.dims, r.glsl...) },
			close:    func() { sh.Close() },
		})
	}
	tb.Cleanup(func() {
		for _, v := range out {
			v.close()
		}
	})
	return out
}

// glslang compiles glsl/<name>.comp with glslangValidator -V.
func glslang(tb testing.TB, name string) []uint32 {
	tb.Helper()
	path, err := exec.LookPath("glslangValidator")
	testenv.Need(tb, "glslangValidator", err)
	out := filepath.Join(tb.TempDir(), name+".spv")
	cmd := exec.Command(path, "-V", "--target-env", "vulkan1.2", "-o", out, filepath.Join("glsl", name+".comp"))
	if msg, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("glslangValidator %s: %v\n%s", name, err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	w := make([]uint32, len(data)/4)
	for i := range w {
		w[i] = uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24
	}
	return w
}

// run submits cmds on s and waits for them.
func run(s *device.Stream, cmds ...device.Command) error {
	if err := s.Submit(cmds...); err != nil {
		return err
	}
	return s.Synchronize(context.Background())
}

// newBuffer makes a buffer holding data; the device frees it on Close.
func newBuffer[T any](d *device.Device, s *device.Stream, data []T) (*device.Buffer[T], error) {
	b, err := device.NewBuffer[T](d, len(data))
	if err != nil {
		return nil, err
	}
	return b, run(s, b.Upload(data))
}

func download[T any](s *device.Stream, b *device.Buffer[T]) ([]T, error) {
	out := make([]T, b.Len())
	return out, run(s, b.Download(out))
}

// near reports whether got is within tol of want, relative to max(|want|, 1).
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(math.Abs(want), 1)
}

// compare checks got against want element by element within tol.
func compare[T float32 | uint32](what string, got, want []T, tol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !near(float64(got[i]), float64(want[i]), tol) {
			return fmt.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
	return nil
}

// rng is a small deterministic generator for inputs.
type rng uint64

func (r *rng) next() uint32 {
	*r = *r*6364136223846793005 + 1442695040888963407
	return uint32(*r >> 33)
}

func (r *rng) unit() float32 { return float32(r.next()>>8) / (1 << 24) } // [0, 1)
