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

// exactSource has kernels whose launchers need exact types: a bindless
// array, textures of declared formats (2D and 3D), and buffers only read or
// only written.
const exactSource = `package kern

import "github.com/lucent-gpu/lucent/kernel"

// Gather adds slot 0 and slot 1 of tab into out.
//
//lucent:kernel block=64
func Gather(tab kernel.Bindless, out []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(out)) {
		out[i] = kernel.BindlessBuffer[float32](tab, 0)[i] + kernel.BindlessBuffer[float32](tab, 1)[i]
	}
}

// Luma writes the mean of src's colour channels to dst.
//
//lucent:kernel block=8,8 format=src:rgba8 format=dst:r32f
func Luma(src, dst kernel.Texture2D[kernel.Float4]) {
	id := kernel.DispatchID()
	c := src.Read(id.X, id.Y)
	dst.Write(id.X, id.Y, kernel.Float4{X: (c.X + c.Y + c.Z) / 3})
}

// Stamp writes each cell's x+y+z into vol.
//
//lucent:kernel block=4,4,4 format=vol:r32ui
func Stamp(vol kernel.Texture3D[kernel.Uint4]) {
	id := kernel.DispatchID()
	vol.Write(id.X, id.Y, id.Z, kernel.Uint4{X: id.X + id.Y + id.Z})
}

// Copy copies in to out.
//
//lucent:kernel block=64
func Copy(in, out []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(out)) {
		out[i] = in[i]
	}
}
`

// exactProgram runs Gather and Luma through their launchers on the cpu
// backend and on Vulkan.
const exactProgram = `package main

import (
	"context"
	"fmt"
	"os"

	"example.com/e2e/kern"
	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
)

func main() {
	ctx := context.Background()
	for _, name := range []string{"cpu", "vulkan"} {
		dev, err := device.Open(ctx, name, device.WithValidation())
		if err != nil {
			fmt.Println("no device:", err)
			os.Exit(3)
		}
		err = run(ctx, dev)
		if cerr := dev.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Printf("FAIL on %s: %v\n", name, err)
			os.Exit(1)
		}
		fmt.Println(name, "ok")
	}
}

func run(ctx context.Context, dev *device.Device) error {
	stream, err := dev.NewStream(device.StreamCompute)
	if err != nil {
		return err
	}
	defer stream.Close()
	gather, err := kern.NewGather(dev)
	if err != nil {
		return err
	}
	defer gather.Close()
	const n = 100
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i), float32(1000*i)
	}
	ba, err := device.NewBufferFrom(dev, a)
	if err != nil {
		return err
	}
	defer ba.Close()
	bb, err := device.NewBufferFrom(dev, b)
	if err != nil {
		return err
	}
	defer bb.Close()
	out, err := device.NewBuffer[float32](dev, n)
	if err != nil {
		return err
	}
	defer out.Close()
	tab, err := dev.NewBindlessArray(2)
	if err != nil {
		return err
	}
	defer tab.Close()
	if err := tab.EmplaceBuffer(0, ba); err != nil {
		return err
	}
	if err := tab.EmplaceBuffer(1, bb); err != nil {
		return err
	}
	got := make([]float32, n)
	if err := stream.Submit(tab.Update(), gather.Dispatch(n, tab, out), out.Download(got)); err != nil {
		return fmt.Errorf("gather: %w", err)
	}
	if err := stream.Synchronize(ctx); err != nil {
		return fmt.Errorf("gather: %w", err)
	}
	for i, v := range got {
		if v != a[i]+b[i] {
			return fmt.Errorf("gather[%d] = %v, want %v", i, v, a[i]+b[i])
		}
	}

	luma, err := kern.NewLuma(dev)
	if err != nil {
		return err
	}
	defer luma.Close()
	const w, h = 8, 8
	src, err := device.NewImage[[4]uint8](dev, device.RGBA8Unorm, w, h, 1)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := device.NewImage[float32](dev, device.R32Float, w, h, 1)
	if err != nil {
		return err
	}
	defer dst.Close()
	px := make([][4]uint8, w*h)
	for i := range px {
		px[i] = [4]uint8{255, 255, 255, 255}
	}
	res := make([]float32, w*h)
	if err := stream.Submit(src.Upload(px), luma.Dispatch(w, h, src, dst), dst.Download(res)); err != nil {
		return fmt.Errorf("luma: %w", err)
	}
	if err := stream.Synchronize(ctx); err != nil {
		return fmt.Errorf("luma: %w", err)
	}
	for i, v := range res {
		if v != 1 {
			return fmt.Errorf("luma[%d] = %v, want 1", i, v)
		}
	}
	return nil
}
`

// TestGenerateExactTypes: the launchers take a bindless array as a
// *device.BindlessArray, textures as images or volumes of the pixel type of
// their declared format, and say which buffers the kernel only reads or
// only writes; the program using them builds and runs.
func TestGenerateExactTypes(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"kern/kern.go": exactSource, "main.go": exactProgram})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "./kern")
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(filepath.Join(dir, "kern", goFileName))
	require.NoError(t, err)
	src := string(b)
	require.Contains(t, src, "func (k *GatherKernel) Dispatch(threads uint32, tab *device.BindlessArray, out *device.Buffer[float32]) device.Command")
	require.Contains(t, src, "func (k *LumaKernel) Dispatch(threadsX, threadsY uint32, src *device.Image[[4]uint8], dst *device.Image[float32]) device.Command")
	require.Contains(t, src, "func (k *LumaKernel) DispatchViews(threadsX, threadsY uint32, src device.TextureLevel[[4]uint8], dst device.TextureLevel[float32]) device.Command")
	require.Contains(t, src, "func (k *StampKernel) Dispatch(threadsX, threadsY, threadsZ uint32, vol *device.Volume[uint32]) device.Command")
	require.Contains(t, src, "func (k *StampKernel) DispatchIndirect(groups device.BufferView[uint32], vol device.TextureLevel[uint32]) device.Command")
	require.Contains(t, src, "// Access by the kernel: in read-only, out write-only.\n")
	require.Contains(t, src, "// Access by the kernel: src read-only, dst write-only.\n")
	require.Contains(t, src, "// Access by the kernel: tab read-only, out write-only.\n")

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	prog := filepath.Join(t.TempDir(), "prog")
	out, err := goCommand(t, ctx, dir, "build", "-o", prog, ".")
	require.NoError(t, err, out)
	cmd := exec.CommandContext(ctx, prog)
	cmd.Dir = dir
	res, err := cmd.CombinedOutput()
	require.Contains(t, string(res), "cpu ok\n")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		testenv.Need(t, "Vulkan device", errors.New(strings.TrimSpace(string(res))))
	}
	require.NoError(t, err, string(res))
	require.Contains(t, string(res), "vulkan ok\n")
}
