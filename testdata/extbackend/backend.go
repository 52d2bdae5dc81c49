// Package interpbackend is a lucent backend that lives outside lucent's
// module: it registers under the name "interp" and runs the kernels it
// receives as IR on the CPU with lucent's reference interpreter
// (frontend/interp), one thread after another. It exists to prove that the
// backend contract admits a backend written elsewhere: it imports only
// lucent's public packages, and the Go module graph pins the contract
// version it was built against.
//
// It keeps buffers in Go memory and runs every command list to completion
// inside Dispatch (in order, on the caller's goroutine), so streams and
// events are trivially ordered. Textures, bindless arrays, SPIR-V and custom
// commands are refused with ErrUnsupported.
package interpbackend

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

func init() { device.Register("interp", factory{}) }

type factory struct{}

func (factory) Enumerate(context.Context, device.Options) ([]device.Adapter, error) {
	return []device.Adapter{{Index: 0, Name: "lucent IR interpreter", Type: device.AdapterCPU}}, nil
}

func (factory) Open(context.Context, device.Options) (device.Interface, error) {
	return &backend{
		handles: device.NewHandleSpace(),
		objects: map[device.Handle]any{},
	}, nil
}

type buffer struct{ data []byte }

type stream struct{}

type event struct {
	value uint64
	wake  chan struct{} // closed and replaced on every signal
}

type shader struct {
	fn  *ir.Function
	sig device.Signature
}

type backend struct {
	handles *device.HandleSpace

	mu      sync.Mutex
	closed  bool
	objects map[device.Handle]any
}

func unsupported(what string) error {
	return fmt.Errorf("interp backend: %w: %s", device.ErrUnsupported, what)
}

func (b *backend) add(obj any) (device.Handle, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, device.ErrClosed
	}
	h := b.handles.New()
	b.objects[h] = obj
	return h, nil
}

func get[T any](b *backend, h device.Handle, kind string) (T, error) {
	var zero T
	if b.closed {
		return zero, device.ErrClosed
	}
	o, ok := b.objects[h]
	if !ok {
		return zero, b.handles.Missing(h, kind)
	}
	t, ok := o.(T)
	if !ok {
		return zero, fmt.Errorf("%w: handle %d is not a %s", device.ErrInvalidArgument, h, kind)
	}
	return t, nil
}

func destroy[T any](b *backend, h device.Handle, kind string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := get[T](b, h, kind); err != nil {
		return err
	}
	delete(b.objects, h)
	return nil
}

func (b *backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.objects = nil
	return nil
}

func (b *backend) Capabilities() device.Capabilities {
	return device.Capabilities{
		Backend:                 "interp",
		Adapter:                 device.Adapter{Name: "lucent IR interpreter", Type: device.AdapterCPU},
		WarpSize:                1,
		MaxWorkgroupSize:        [3]uint32{1024, 1024, 64},
		MaxWorkgroupInvocations: 1024,
		MaxWorkgroupCount:       [3]uint32{1 << 31, 1 << 16, 1 << 16},
		MaxPushConstantSize:     1 << 16,
		MaxStorageBufferRange:   1 << 40,
		MaxBufferSize:           1 << 40,
		MemoryGranularity:       4,
		TimelineSemaphores:      true,
		Float64:                 true,
		Int64:                   true,
	}
}

func (b *backend) NativeHandle() uintptr               { return 0 }
func (b *backend) WarpSize() uint32                    { return 1 }
func (b *backend) MemoryGranularity() uint64           { return 4 }
func (b *backend) SetName(device.Handle, string) error { return nil }
func (b *backend) CreateTexture(device.TextureDesc) (device.Handle, error) {
	return 0, unsupported("textures")
}
func (b *backend) DestroyTexture(h device.Handle) error { return destroy[any](b, h, "texture") }
func (b *backend) CreateBindlessArray(uint32) (device.Handle, error) {
	return 0, unsupported("bindless arrays")
}
func (b *backend) DestroyBindlessArray(h device.Handle) error {
	return destroy[any](b, h, "bindless array")
}

func (b *backend) CreateBuffer(desc device.BufferDesc) (device.Handle, error) {
	if desc.Size == 0 || desc.Size > 1<<32 {
		return 0, fmt.Errorf("%w: buffer of %d bytes", device.ErrInvalidArgument, desc.Size)
	}
	return b.add(&buffer{data: make([]byte, desc.Size)})
}

func (b *backend) DestroyBuffer(h device.Handle) error { return destroy[*buffer](b, h, "buffer") }

func (b *backend) CreateStream(device.StreamKind) (device.Handle, error) { return b.add(&stream{}) }
func (b *backend) DestroyStream(h device.Handle) error                   { return destroy[*stream](b, h, "stream") }

func (b *backend) CreateShader(desc device.ShaderDesc) (device.Handle, device.Signature, error) {
	if desc.Kernel == nil {
		return 0, device.Signature{}, unsupported("shaders from anything but lucent IR (SPIR-V is the Vulkan backend's)")
	}
	if desc.Signature == nil {
		return 0, device.Signature{}, fmt.Errorf("%w: a kernel needs its signature", device.ErrInvalidArgument)
	}
	if err := desc.Kernel.Validate(); err != nil {
		return 0, device.Signature{}, fmt.Errorf("%w: %w", device.ErrInvalidArgument, err)
	}
	h, err := b.add(&shader{fn: desc.Kernel, sig: *desc.Signature})
	return h, *desc.Signature, err
}

func (b *backend) DestroyShader(h device.Handle) error { return destroy[*shader](b, h, "shader") }

func (b *backend) CreateEvent() (device.Handle, error) {
	return b.add(&event{wake: make(chan struct{})})
}

func (b *backend) DestroyEvent(h device.Handle) error { return destroy[*event](b, h, "event") }

// Work runs to completion inside Dispatch, so a signal is reached at once.
func (b *backend) SignalEvent(ev, st device.Handle, value uint64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, err := get[*event](b, ev, "event")
	if err != nil {
		return err
	}
	if _, err := get[*stream](b, st, "stream"); err != nil {
		return err
	}
	if value > e.value {
		e.value = value
		close(e.wake)
		e.wake = make(chan struct{})
	}
	return nil
}

func (b *backend) WaitEvent(ev, st device.Handle, value uint64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := get[*event](b, ev, "event"); err != nil {
		return err
	}
	_, err := get[*stream](b, st, "stream")
	return err
}

func (b *backend) EventCompleted(ev device.Handle, value uint64) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, err := get[*event](b, ev, "event")
	if err != nil {
		return false, err
	}
	return e.value >= value, nil
}

func (b *backend) SynchronizeEvent(ctx context.Context, ev device.Handle, value uint64) error {
	for {
		b.mu.Lock()
		e, err := get[*event](b, ev, "event")
		if err != nil {
			b.mu.Unlock()
			return err
		}
		done, wake := e.value >= value, e.wake
		b.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (b *backend) SynchronizeStream(ctx context.Context, st device.Handle) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, err := get[*stream](b, st, "stream")
	return err
}

// Dispatch runs the list now, in order, then its callbacks.
func (b *backend) Dispatch(st device.Handle, list *device.CommandList) error {
	b.mu.Lock()
	if _, err := get[*stream](b, st, "stream"); err != nil {
		b.mu.Unlock()
		return err
	}
	for i, c := range list.Commands {
		if err := b.run(c); err != nil {
			b.mu.Unlock()
			return fmt.Errorf("interp backend: command %d: %w", i, err)
		}
	}
	b.mu.Unlock()
	for _, f := range list.Callbacks {
		f()
	}
	return nil
}

// span returns [off, off+size) of a buffer (device.WholeSize: to the end).
func (b *backend) span(h device.Handle, off, size uint64) ([]byte, error) {
	buf, err := get[*buffer](b, h, "buffer")
	if err != nil {
		return nil, err
	}
	n := uint64(len(buf.data))
	if size == device.WholeSize && off <= n {
		size = n - off
	}
	if off > n || size > n-off {
		return nil, fmt.Errorf("%w: bytes [%d, %d+%d) of a %d-byte buffer", device.ErrInvalidArgument, off, off, size, n)
	}
	return buf.data[off : off+size], nil
}

func (b *backend) run(c device.Command) error {
	switch c := c.(type) {
	case *device.BufferUpload:
		dst, err := b.span(c.Buffer, c.Offset, uint64(len(c.Data)))
		if err != nil {
			return err
		}
		copy(dst, c.Data)
	case *device.BufferDownload:
		src, err := b.span(c.Buffer, c.Offset, uint64(len(c.Data)))
		if err != nil {
			return err
		}
		copy(c.Data, src)
	case *device.BufferCopy:
		src, err := b.span(c.Src, c.SrcOffset, c.Size)
		if err != nil {
			return err
		}
		dst, err := b.span(c.Dst, c.DstOffset, c.Size)
		if err != nil {
			return err
		}
		copy(dst, src)
	case *device.ShaderDispatch:
		return b.dispatch(c)
	default:
		return unsupported(fmt.Sprintf("%T commands", c))
	}
	return nil
}

func (b *backend) dispatch(c *device.ShaderDispatch) error {
	sh, err := get[*shader](b, c.Shader, "shader")
	if err != nil {
		return err
	}
	f := sh.fn
	if len(c.Args) != len(f.Params) {
		return fmt.Errorf("%w: %s takes %d arguments, got %d", device.ErrInvalidArgument, f.Name, len(f.Params), len(c.Args))
	}
	size := c.Size
	if c.Indirect != 0 {
		g, err := b.span(c.Indirect, c.IndirectOffset, 12)
		if err != nil {
			return err
		}
		for i := range 3 {
			size[i] = binary.LittleEndian.Uint32(g[4*i:]) * f.BlockSize[i]
		}
	}
	args := make([]any, len(c.Args))
	for i, a := range c.Args {
		p := f.Params[i]
		switch a.Kind {
		case device.ArgBuffer:
			data, err := b.span(a.Handle, a.Offset, a.Size)
			if err != nil {
				return err
			}
			args[i] = &interp.Buffer{Elem: p.Type.Elem(), Data: data}
		case device.ArgUniform:
			args[i] = a.Uniform
		default:
			return unsupported(fmt.Sprintf("%v arguments", a.Kind))
		}
	}
	return interp.Run(f, size, args...)
}
