package device_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// Benchmarks of what the device package adds on top of a backend: the typed
// argument binding and the validation wrapper. Each pair runs side by side in
// one process so their ratio is meaningful (docs/PERFORMANCE.md, device).

type saxpyRig struct {
	dev    *device.Device
	s      *device.Stream
	sh     *device.Shader
	x, y   *device.Buffer[float32]
	n      int
	result []float32
}

func newSaxpyRig(b *testing.B, n int, opts ...device.Option) *saxpyRig {
	// The rig leaves its resources to Device.Close; keep the leak report quiet.
	opts = append([]device.Option{device.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)
	dev, err := device.Open(context.Background(), "vulkan", opts...)
	testenv.Need(b, "a Vulkan device", err)
	r := &saxpyRig{dev: dev, n: n, result: make([]float32, n)}
	b.Cleanup(func() { _ = dev.Close() })
	if r.s, err = dev.NewStream(device.StreamCompute); err != nil {
		b.Fatal(err)
	}
	if r.sh, err = dev.NewShader(device.ShaderDesc{SPIRV: saxpySPIRV, Name: "saxpy"}); err != nil {
		b.Fatal(err)
	}
	if r.x, err = device.NewBuffer[float32](dev, n); err != nil {
		b.Fatal(err)
	}
	if r.y, err = device.NewBuffer[float32](dev, n); err != nil {
		b.Fatal(err)
	}
	data := make([]float32, n)
	if err := r.s.Submit(r.x.Upload(data), r.y.Upload(data)); err != nil {
		b.Fatal(err)
	}
	if err := r.s.Synchronize(context.Background()); err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkSubmit dispatches a small saxpy and waits for it: the round trip a
// tight host loop pays, with and without the validation wrapper.
func BenchmarkSubmit(b *testing.B) {
	for _, c := range []struct {
		name string
		opts []device.Option
	}{
		{"plain", nil},
		{"validated", []device.Option{device.WithValidation()}},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := newSaxpyRig(b, 4096, c.opts...)
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				if err := r.s.Submit(r.sh.Dispatch([3]uint32{uint32(r.n)}, r.x, r.y, float32(2), uint32(r.n))); err != nil {
					b.Fatal(err)
				}
				if err := r.s.Synchronize(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDispatchCommand builds a dispatch command: through the typed API
// (reflect-checked arguments) and by hand as a backend-level struct.
func BenchmarkDispatchCommand(b *testing.B) {
	r := newSaxpyRig(b, 64)
	size := [3]uint32{64}
	b.Run("typed", func(b *testing.B) {
		for b.Loop() {
			if err := device.CommandError(r.sh.Dispatch(size, r.x, r.y, float32(2), uint32(64))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("by-hand", func(b *testing.B) {
		var sink device.Command
		for b.Loop() {
			sink = &device.ShaderDispatch{Shader: r.sh.Handle(), Size: size, Args: []device.Arg{
				{Kind: device.ArgBuffer, Handle: r.x.Handle(), Size: 256},
				{Kind: device.ArgBuffer, Handle: r.y.Handle(), Size: 256},
				{Kind: device.ArgUniform, Uniform: []byte{0, 0, 0, 0x40}},
				{Kind: device.ArgUniform, Uniform: []byte{64, 0, 0, 0}},
			}}
		}
		_ = sink
	})
}
