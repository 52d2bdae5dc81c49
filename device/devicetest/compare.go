package devicetest

import (
	"context"
	"fmt"
	"reflect"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/kernel/kerneltest"
)

// Buffer is a buffer argument of Compare: the same initial elements on the
// device and for kernel.Run, and after the run the two results, compared
// element by element.
type Buffer[T any] struct {
	init      []T
	host, dev []T
	buf       *device.Buffer[T]
}

// NewBuffer returns a buffer argument holding a copy of elems (elems itself
// is not changed).
func NewBuffer[T any](elems []T) *Buffer[T] {
	return &Buffer[T]{init: append([]T(nil), elems...)}
}

// Host returns the elements after kernel.Run ran the kernel (nil before
// Compare).
func (b *Buffer[T]) Host() []T { return b.host }

// Device returns the elements after the device ran the kernel (nil before
// Compare).
func (b *Buffer[T]) Device() []T { return b.dev }

func (b *Buffer[T]) open(d *device.Device) error {
	b.host = append([]T(nil), b.init...)
	b.dev = make([]T, len(b.init))
	var err error
	b.buf, err = device.NewBufferFrom(d, b.init)
	return err
}

func (b *Buffer[T]) close() {
	if b.buf != nil {
		_ = b.buf.Close()
		b.buf = nil
	}
}

func (b *Buffer[T]) deviceArg() any               { return b.buf }
func (b *Buffer[T]) hostArg() reflect.Value       { return reflect.ValueOf(b.host) }
func (b *Buffer[T]) download() device.Command     { return b.buf.Download(b.dev) }
func (b *Buffer[T]) compare(maxULPs uint64) error { return kerneltest.Compare(b.dev, b.host, maxULPs) }

// bufferArg is a *Buffer[T] as Compare uses it.
type bufferArg interface {
	open(*device.Device) error
	close()
	deviceArg() any
	hostArg() reflect.Value
	download() device.Command
	compare(maxULPs uint64) error
}

// Compare runs a Go-subset kernel both ways and compares the results: on
// dev as shader (its launcher's Shader(), or a device.Kernel's compiled from
// the kernel) over size threads, and as the Go function fn with kernel.Run
// over the same grid in the shader's blocks. args are the kernel's
// arguments in order: a *Buffer for each slice parameter (each run starts
// from its elements) and a value of the parameter's exact type for the
// others (both runs take it as it is).
//
// It returns nil when every buffer holds the same elements after both runs
// (kerneltest.Compare, floats within maxULPs), else an error naming the
// first argument that differs and wrapping the *kerneltest.Mismatch of its
// first differing element (the device's result is "got", kernel.Run's
// "want"); an argument of the wrong kind or type, or a failed run, is an
// error too (wrapping device.ErrInvalidArgument for bad arguments).
// kernel.Run's subgroups are its default (8 threads): a kernel whose result
// depends on the subgroup size may differ on a device with another.
func Compare(ctx context.Context, dev *device.Device, shader *device.Shader, size [3]uint32, fn any, maxULPs uint64, args ...any) error {
	if shader == nil {
		return fmt.Errorf("devicetest: Compare: %w: nil shader", device.ErrInvalidArgument)
	}
	sig := shader.Signature()
	fv := reflect.ValueOf(fn)
	if fv.Kind() != reflect.Func || fv.IsNil() {
		return fmt.Errorf("devicetest: Compare: %w: fn is %T, not a kernel function", device.ErrInvalidArgument, fn)
	}
	ft := fv.Type()
	if ft.NumIn() != len(args) || len(sig.Args) != len(args) || ft.NumOut() != 0 {
		return fmt.Errorf("devicetest: Compare: %w: %d arguments for a kernel function %v and a shader of %d", device.ErrInvalidArgument, len(args), ft, len(sig.Args))
	}
	label := func(i int) string { return sig.Args[i].Label(i) }
	devArgs := make([]any, len(args))
	hostArgs := make([]reflect.Value, len(args))
	var bufs []bufferArg
	var names []string
	defer func() {
		for _, b := range bufs {
			b.close()
		}
	}()
	for i, a := range args {
		if b, ok := a.(bufferArg); ok {
			if reflect.ValueOf(b).IsNil() {
				return fmt.Errorf("devicetest: Compare: %w: %s: nil *Buffer", device.ErrInvalidArgument, label(i))
			}
			if err := b.open(dev); err != nil {
				return fmt.Errorf("devicetest: Compare: %s: %w", label(i), err)
			}
			bufs = append(bufs, b)
			names = append(names, label(i))
			devArgs[i], hostArgs[i] = b.deviceArg(), b.hostArg()
		} else {
			if a == nil {
				return fmt.Errorf("devicetest: Compare: %w: %s: nil", device.ErrInvalidArgument, label(i))
			}
			if reflect.TypeOf(a).Kind() == reflect.Slice {
				return fmt.Errorf("devicetest: Compare: %w: %s: a %T: give a slice's elements as devicetest.NewBuffer(elems)", device.ErrInvalidArgument, label(i), a)
			}
			devArgs[i], hostArgs[i] = a, reflect.ValueOf(a)
		}
		if want := ft.In(i); hostArgs[i].Type() != want {
			hint := ""
			if _, ok := a.(bufferArg); !ok && want.Kind() == reflect.Slice {
				hint = fmt.Sprintf(": give its elements as devicetest.NewBuffer(elems []%v)", want.Elem())
			}
			return fmt.Errorf("devicetest: Compare: %w: %s: %v for a %v parameter%s", device.ErrInvalidArgument, label(i), hostArgs[i].Type(), want, hint)
		}
	}

	s, err := dev.NewStream(device.StreamCompute)
	if err != nil {
		return fmt.Errorf("devicetest: Compare: %w", err)
	}
	defer s.Close()
	cmds := []device.Command{shader.Dispatch(size, devArgs...)}
	for _, b := range bufs {
		cmds = append(cmds, b.download())
	}
	if err := s.Submit(cmds...); err != nil {
		return fmt.Errorf("devicetest: Compare: on the device: %w", err)
	}
	if err := s.Synchronize(ctx); err != nil {
		return fmt.Errorf("devicetest: Compare: on the device: %w", err)
	}

	bs := sig.BlockSize
	grid := kernel.Grid{Block: kernel.Uint3{X: max(bs[0], 1), Y: max(bs[1], 1), Z: max(bs[2], 1)}, Size: kernel.Uint3{X: size[0], Y: size[1], Z: size[2]}}
	if err := kernel.Run(ctx, grid, func() { fv.Call(hostArgs) }); err != nil {
		return fmt.Errorf("devicetest: Compare: with kernel.Run: %w", err)
	}

	for i, b := range bufs {
		if err := b.compare(maxULPs); err != nil {
			return fmt.Errorf("devicetest: Compare: %s: the device's result against kernel.Run's: %w", names[i], err)
		}
	}
	return nil
}
