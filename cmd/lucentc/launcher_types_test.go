package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/internal/testenv"
)

// typesKernels has a kernel that only reads one buffer and writes another,
// and one that traces an accel.
const typesKernels = `package kern

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func Scale(a float32, x, y []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(y)) {
		y[i] = a * x[i]
	}
}

//lucent:kernel block=64
func Shadow(scene kernel.Accel, rays []kernel.Ray, hit []uint32) {
	i := kernel.DispatchID().X
	if i < uint32(len(rays)) && scene.TraceAny(rays[i]) {
		hit[i] = 1
	}
}
`

// typesProgram runs both through their launchers on the backend its
// argument names (cpu when none; exit status 3 when it cannot be opened): a
// read-only view where the kernel reads, an *accel.Accel for the accel. On
// a Vulkan device with native ray queries the accel kernel's launcher
// compiles its IR, as the device refuses the software SPIR-V it holds.
const typesProgram = `package main

import (
	"context"
	"fmt"
	"os"

	"example.com/e2e/kern"
	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/kernel"
)

func main() {
	backend := "cpu"
	if len(os.Args) > 1 {
		backend = os.Args[1]
	}
	if err := run(backend); err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("ok")
}

func run(backend string) error {
	ctx := context.Background()
	dev, err := device.Open(ctx, backend, device.WithValidation())
	if err != nil {
		fmt.Println("no device:", err)
		os.Exit(3)
	}
	defer dev.Close()
	s, err := dev.NewStream(device.StreamCompute)
	if err != nil {
		return err
	}
	defer s.Close()
	scale, err := kern.NewScale(dev)
	if err != nil {
		return err
	}
	defer scale.Close()
	// The view starts 16 bytes in, an offset every device allows.
	x, err := device.NewBufferFrom(dev, []float32{0, 0, 0, 0, 2, 3, 4, 0})
	if err != nil {
		return err
	}
	defer x.Close()
	y, err := device.NewBuffer[float32](dev, 4)
	if err != nil {
		return err
	}
	defer y.Close()
	got := make([]float32, 4)
	if err := s.Submit(scale.DispatchViews(3, 2, x.View(4, 3).ReadOnly(), y.All()), y.Download(got)); err != nil {
		return err
	}
	if err := s.Synchronize(ctx); err != nil {
		return err
	}
	if fmt.Sprint(got) != "[4 6 8 0]" {
		return fmt.Errorf("scale: %v", got)
	}

	// One triangle in the z=0 plane; one ray through it, one beside it.
	vb, err := device.NewBufferFrom(dev, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
	if err != nil {
		return err
	}
	defer vb.Close()
	ib, err := device.NewBufferFrom(dev, [][3]uint32{{0, 1, 2}})
	if err != nil {
		return err
	}
	defer ib.Close()
	m, err := accel.NewMesh(dev, vb.All(), ib.All(), accel.Options{})
	if err != nil {
		return err
	}
	defer m.Close()
	acc, err := accel.NewAccel(dev, accel.Options{})
	if err != nil {
		return err
	}
	defer acc.Close()
	if _, err := acc.Add(accel.Instance{Primitive: m, Mask: 1}); err != nil {
		return err
	}
	rays, err := device.NewBufferFrom(dev, []kernel.Ray{
		{Origin: kernel.F3(0.2, 0.2, -1), Dir: kernel.F3(0, 0, 1), TMax: 10, Mask: 1},
		{Origin: kernel.F3(2, 2, -1), Dir: kernel.F3(0, 0, 1), TMax: 10, Mask: 1},
	})
	if err != nil {
		return err
	}
	defer rays.Close()
	hits, err := device.NewBuffer[uint32](dev, 2)
	if err != nil {
		return err
	}
	defer hits.Close()
	shadow, err := kern.NewShadow(dev)
	if err != nil {
		return err
	}
	defer shadow.Close()
	hit := make([]uint32, 2)
	if err := s.Submit(m.Build(), acc.Build(), shadow.Dispatch(2, acc, rays, hits), hits.Download(hit)); err != nil {
		return err
	}
	if err := s.Synchronize(ctx); err != nil {
		return err
	}
	if fmt.Sprint(hit) != "[1 0]" {
		return fmt.Errorf("shadow: %v", hit)
	}
	return nil
}
`

// The launchers type a buffer the kernel only reads as a device.ReadView
// in the views and an accel as an *accel.Accel; the program using them
// builds and runs, and programs that pass a read-only view where the
// kernel writes, or write through one, do not compile.
func TestGenerateLauncherTypes(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{
		"kern/kern.go": typesKernels,
		"main.go":      typesProgram,
		"badwrite/main.go": `package main

import (
	"example.com/e2e/kern"
	"github.com/lucent-gpu/lucent/device"
)

func main() {
	var k *kern.ScaleKernel
	var x, y *device.Buffer[float32]
	_ = k.DispatchViews(4, 2, x.ReadOnly(), y.ReadOnly())
}
`,
		"badupload/main.go": `package main

import "github.com/lucent-gpu/lucent/device"

func main() {
	var x *device.Buffer[float32]
	_ = x.ReadOnly().Upload([]float32{1})
}
`,
	})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "./kern")
	require.Equal(t, 0, code, stderr)
	gen, err := os.ReadFile(filepath.Join(dir, "kern", goFileName))
	require.NoError(t, err)
	src := string(gen)
	require.Contains(t, src, "func (k *ScaleKernel) DispatchViews(threads uint32, a float32, x device.ReadView[float32], y device.BufferView[float32]) device.Command")
	require.Contains(t, src, "func (k *ShadowKernel) Dispatch(threads uint32, scene *accel.Accel, rays *device.Buffer[kernel.Ray], hit *device.Buffer[uint32]) device.Command")
	require.Contains(t, src, "func (k *ShadowKernel) DispatchIndirect(groups device.BufferView[uint32], scene *accel.Accel, rays device.ReadView[kernel.Ray], hit device.BufferView[uint32]) device.Command")
	require.Contains(t, src, "Access by the kernel: x read-only, y write-only.")

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	prog := filepath.Join(t.TempDir(), "prog")
	out, err := goCommand(t, ctx, dir, "build", "-o", prog, ".")
	require.NoError(t, err, out)
	b, err := exec.CommandContext(ctx, prog).CombinedOutput()
	require.NoError(t, err, string(b))
	require.Equal(t, "ok\n", string(b))
	// On Vulkan as the device comes (native ray queries on Mesa 25's
	// lavapipe, software on 22.3) and forced to software structures.
	for _, env := range []string{"", "LUCENT_ACCEL=software"} {
		cmd := exec.CommandContext(ctx, prog, "vulkan")
		if env != "" {
			cmd.Env = append(os.Environ(), env)
		}
		b, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 3 {
			testenv.Need(t, "Vulkan device", errors.New(strings.TrimSpace(string(b))))
		}
		require.NoError(t, err, "vulkan %s: %s", env, b)
		require.Equal(t, "ok\n", string(b), "vulkan %s", env)
	}

	out, err = goCommand(t, ctx, dir, "build", "-o", os.DevNull, "./badwrite")
	require.Error(t, err)
	require.Contains(t, out, "badwrite/main.go:11:")
	require.Contains(t, out, "cannot use y.ReadOnly() (value of struct type device.ReadView[float32]) as device.BufferView[float32] value")
	out, err = goCommand(t, ctx, dir, "build", "-o", os.DevNull, "./badupload")
	require.Error(t, err)
	require.Contains(t, out, "x.ReadOnly().Upload undefined")
}
