package device_test

import (
	"context"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// BenchmarkChecked runs saxpy (1Mi elements) and mandelbrot (512×512)
// compiled unchecked and checked, alternately in one process, on the backend
// under test (docs/PERFORMANCE.md, the checked mode; goal ≤ 1.3×).
func BenchmarkChecked(b *testing.B) {
	d, err := device.Open(context.Background(), testBackend())
	testenv.Need(b, "Vulkan device", err)
	defer d.Close()
	s, err := d.NewStream(device.StreamCompute)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const n, w, h = 1 << 20, 512, 512
	x, _ := device.NewBuffer[float32](d, n)
	y, _ := device.NewBuffer[float32](d, n)
	out, _ := device.NewBuffer[uint32](d, w*h)
	defer x.Close()
	defer y.Close()
	defer out.Close()
	saxpy, err := programs.Saxpy()
	if err != nil {
		b.Fatal(err)
	}
	mandel, err := programs.Mandelbrot()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cmd  func(k *device.Kernel) device.Command
	}{
		{"saxpy", func(k *device.Kernel) device.Command { return k.Dispatch([3]uint32{n}, float32(2), x, y) }},
		{"mandelbrot", func(k *device.Kernel) device.Command { return k.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), out) }},
	} {
		for _, checked := range []bool{false, true} {
			name := c.name + "/unchecked"
			var opts []device.CompileOption
			if checked {
				name, opts = c.name+"/checked", append(opts, device.WithChecked())
			}
			b.Run(name, func(b *testing.B) {
				f := saxpy
				if c.name == "mandelbrot" {
					f = mandel
				}
				k, err := device.Compile(d, f, opts...)
				if err != nil {
					b.Fatal(err)
				}
				defer k.Close()
				cmd := c.cmd(k)
				for range b.N {
					if err := s.Submit(cmd); err != nil {
						b.Fatal(err)
					}
					if err := s.Synchronize(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
