package device

import (
	"context"
	"fmt"
	"unsafe"
)

// Buffer is a device array of n values of T. T must be plain data (checked
// once at creation); its Go layout is its device layout.
type Buffer[T any] struct {
	*resource
	n int
}

// NewBuffer creates a buffer of n elements of T.
func NewBuffer[T any](d *Device, n int) (*Buffer[T], error) {
	if err := checkElem[T](); err != nil {
		return nil, fmt.Errorf("device: NewBuffer: %w", err)
	}
	if n <= 0 {
		return nil, fmt.Errorf("device: NewBuffer[%s]: %w: %d elements", typeOf[T](), ErrInvalidArgument, n)
	}
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	var zero T
	size := uint64(unsafe.Sizeof(zero))
	if uint64(n) > ^uint64(0)/size {
		return nil, fmt.Errorf("device: NewBuffer[%s]: %w: %d elements overflow", typeOf[T](), ErrInvalidArgument, n)
	}
	h, err := d.iface.CreateBuffer(BufferDesc{Size: size * uint64(n), ElemSize: uint32(size)})
	if err != nil {
		return nil, fmt.Errorf("device: NewBuffer[%s](%d): %w", typeOf[T](), n, err)
	}
	r, err := d.track(h, KindBuffer)
	if err != nil {
		return nil, err
	}
	return &Buffer[T]{resource: r, n: n}, nil
}

// NewBufferFrom creates a buffer of len(src) elements of T holding a copy of
// src: it uploads src on a stream of its own and waits for the upload, so the
// buffer is ready (and src free to change) when it returns, on every backend.
// An empty src is refused (a buffer has at least one element).
func NewBufferFrom[T any](d *Device, src []T) (*Buffer[T], error) {
	if err := checkElem[T](); err != nil {
		return nil, fmt.Errorf("device: NewBufferFrom: %w", err)
	}
	if len(src) == 0 {
		return nil, fmt.Errorf("device: NewBufferFrom[%s]: %w: an empty slice", typeOf[T](), ErrInvalidArgument)
	}
	if err := d.checkOpen(); err != nil {
		return nil, fmt.Errorf("device: NewBufferFrom[%s]: %w", typeOf[T](), err)
	}
	b, err := NewBuffer[T](d, len(src))
	if err != nil {
		return nil, err
	}
	if err := d.runCopy(context.Background(), b.Upload(src)); err != nil {
		_ = b.Close()
		return nil, fmt.Errorf("device: NewBufferFrom[%s](%d): %w", typeOf[T](), len(src), err)
	}
	return b, nil
}

// Read returns the buffer's contents: it downloads them on a stream of its
// own and waits. Work on other streams that writes the buffer must have
// finished (synchronize those streams first); Read does not order itself
// after it. When ctx is done first Read returns ctx's error, and the
// download finishes in the background.
func (b *Buffer[T]) Read(ctx context.Context) ([]T, error) {
	if err := b.base().usable("Buffer"); err != nil {
		return nil, fmt.Errorf("device: Buffer.Read: %w", err)
	}
	out := make([]T, b.n)
	if err := b.dev.runCopy(ctx, b.Download(out)); err != nil {
		return nil, fmt.Errorf("device: Buffer.Read %d: %w", b.h, err)
	}
	return out, nil
}

// runCopy submits cmd on a new copy stream and waits for it (or ctx).
func (d *Device) runCopy(ctx context.Context, cmd Command) error {
	if err := checkCtx(ctx); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s, err := d.NewStream(StreamCopy)
	if err != nil {
		return err
	}
	err = s.Submit(cmd)
	if err == nil {
		err = s.Synchronize(ctx)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// Len returns the number of elements (0 for a nil Buffer).
func (b *Buffer[T]) Len() int {
	if b == nil {
		return 0
	}
	return b.n
}

func (b *Buffer[T]) base() *resource {
	if b == nil {
		return nil
	}
	return b.resource
}

// Close destroys the buffer once the work using it has finished; later calls,
// and calls on a nil Buffer, return nil.
func (b *Buffer[T]) Close() error { return b.base().Close() }

// Handle returns the backend handle (0 for a nil Buffer).
func (b *Buffer[T]) Handle() Handle { return b.base().Handle() }

// SetName gives the buffer a debug name.
func (b *Buffer[T]) SetName(name string) error { return b.base().SetName(name) }

// ElemSize returns the size of one element in bytes.
func (b *Buffer[T]) ElemSize() int {
	var zero T
	return int(unsafe.Sizeof(zero))
}

// View returns elements [off, off+n). A range outside the buffer gives a view
// whose Err is set; every command built from it carries the error, which
// Stream.Submit returns. A non-empty view bound to a kernel (other than by
// device address) must start at a multiple of Capabilities().MemoryGranularity
// bytes (16 on lavapipe and cpu); Submit refuses another, naming the argument.
func (b *Buffer[T]) View(off, n int) BufferView[T] {
	if b.base() == nil {
		return BufferView[T]{err: fmt.Errorf("device: %w", zeroErr("Buffer"))}
	}
	v := BufferView[T]{buf: b, off: off, n: n}
	if off < 0 || n < 0 || off > b.n || n > b.n-off {
		v.err = fmt.Errorf("device: %w: view [%d, %d+%d) of a %d-element buffer %d", ErrInvalidArgument, off, off, n, b.n, b.h)
	}
	return v
}

// All returns a view of the whole buffer.
func (b *Buffer[T]) All() BufferView[T] { return b.View(0, b.Len()) }

// Upload returns a command copying src into the buffer's first len(src)
// elements. src is read during Submit.
func (b *Buffer[T]) Upload(src []T) Command { return b.All().Upload(src) }

// Download returns a command copying the buffer's first len(dst) elements
// into dst once the GPU finishes; dst must not be touched until the stream is
// synchronized.
func (b *Buffer[T]) Download(dst []T) Command { return b.All().Download(dst) }

// CopyFrom returns a command copying src into the buffer's first src.Len()
// elements.
func (b *Buffer[T]) CopyFrom(src BufferView[T]) Command { return b.All().CopyFrom(src) }

// Fill returns a command writing value to every element (BufferView.Fill).
func (b *Buffer[T]) Fill(value T) Command { return b.All().Fill(value) }

// BufferView is a range of a Buffer's elements.
type BufferView[T any] struct {
	buf    *Buffer[T]
	off, n int
	err    error
}

// Err returns the range error of an invalid view, or nil.
func (v BufferView[T]) Err() error {
	if v.err == nil && v.buf == nil {
		return fmt.Errorf("device: %w: zero BufferView", ErrInvalidArgument)
	}
	return v.err
}

// Buffer returns the viewed buffer.
func (v BufferView[T]) Buffer() *Buffer[T] { return v.buf }

// Offset returns the first element's index.
func (v BufferView[T]) Offset() int { return v.off }

// Len returns the number of elements.
func (v BufferView[T]) Len() int { return v.n }

// View returns a sub-range of the view, range-checked like Buffer.View.
func (v BufferView[T]) View(off, n int) BufferView[T] {
	if err := v.Err(); err != nil {
		return BufferView[T]{buf: v.buf, err: err}
	}
	if off < 0 || n < 0 || off > v.n || n > v.n-off {
		return BufferView[T]{buf: v.buf, err: fmt.Errorf("device: %w: view [%d, %d+%d) of a %d-element view", ErrInvalidArgument, off, off, n, v.n)}
	}
	return BufferView[T]{buf: v.buf, off: v.off + off, n: n}
}

func (v BufferView[T]) byteRange() (off, size uint64) {
	es := uint64(v.buf.ElemSize())
	return uint64(v.off) * es, uint64(v.n) * es
}

// check returns the view's error, or ErrClosed when its buffer was closed.
func (v BufferView[T]) check() error {
	if err := v.Err(); err != nil {
		return err
	}
	if v.buf.isClosed() {
		return v.buf.errClosed()
	}
	return nil
}

// Upload returns a command copying src into the view's first len(src) elements.
func (v BufferView[T]) Upload(src []T) Command {
	if err := v.check(); err != nil {
		return bad("upload", err)
	}
	if len(src) > v.n {
		return bad("upload", fmt.Errorf("%w: %d elements into a %d-element view of buffer %d", ErrInvalidArgument, len(src), v.n, v.buf.h))
	}
	off, _ := v.byteRange()
	return &BufferUpload{Buffer: v.buf.h, Offset: off, Data: asBytes(src)}
}

// Download returns a command copying the view's first len(dst) elements into dst.
func (v BufferView[T]) Download(dst []T) Command {
	if err := v.check(); err != nil {
		return bad("download", err)
	}
	if len(dst) > v.n {
		return bad("download", fmt.Errorf("%w: %d elements from a %d-element view of buffer %d", ErrInvalidArgument, len(dst), v.n, v.buf.h))
	}
	off, _ := v.byteRange()
	return &BufferDownload{Buffer: v.buf.h, Offset: off, Data: asBytes(dst)}
}

// Fill returns a command writing value to every element of the view: a
// BufferFill where the elements' bytes repeat every 4 bytes from a 4-aligned
// offset (zeros, any 4-byte element, bytes and halves that pair up), else an
// upload of the filled range from host memory.
func (v BufferView[T]) Fill(value T) Command {
	if err := v.check(); err != nil {
		return bad("fill", err)
	}
	off, size := v.byteRange()
	p := asBytes([]T{value})
	sz := uint64(len(p))
	if sz == 0 || size == 0 {
		return &BufferFill{Buffer: v.buf.h, Offset: off, Size: 0}
	}
	periodic := off%4 == 0 && size%4 == 0
	for i := uint64(0); periodic && i < 4*sz; i++ {
		periodic = p[i%sz] == p[(i%4)%sz]
	}
	if periodic {
		var w uint32
		for i := uint64(0); i < 4; i++ {
			w |= uint32(p[i%sz]) << (8 * i)
		}
		return &BufferFill{Buffer: v.buf.h, Offset: off, Size: size, Value: w}
	}
	data := make([]byte, size)
	for i := uint64(0); i < size; i += sz {
		copy(data[i:], p)
	}
	return &BufferUpload{Buffer: v.buf.h, Offset: off, Data: data}
}

// CopyFrom returns a command copying src into the view's first src.Len() elements.
func (v BufferView[T]) CopyFrom(src BufferView[T]) Command {
	if err := v.check(); err != nil {
		return bad("copy", err)
	}
	if err := src.check(); err != nil {
		return bad("copy", fmt.Errorf("source: %w", err))
	}
	if src.n > v.n {
		return bad("copy", fmt.Errorf("%w: %d elements into a %d-element view", ErrInvalidArgument, src.n, v.n))
	}
	so, size := src.byteRange()
	do, _ := v.byteRange()
	return &BufferCopy{Src: src.buf.h, SrcOffset: so, Dst: v.buf.h, DstOffset: do, Size: size}
}

// bindArg makes a view a dispatch argument.
func (v BufferView[T]) bindArg() (Arg, argType, error) {
	if err := v.check(); err != nil {
		return Arg{}, argType{}, err
	}
	off, size := v.byteRange()
	es := uint32(v.buf.ElemSize())
	return Arg{Kind: ArgBuffer, Handle: v.buf.h, Offset: off, Size: size},
		argType{elem: typeOf[T](), res: ArgResource{Buffer: BufferDesc{Size: uint64(v.buf.n) * uint64(es), ElemSize: es}}}, nil
}

func (b *Buffer[T]) bindArg() (Arg, argType, error) { return b.All().bindArg() }

// bufferRange implements BufferRef.
func (v BufferView[T]) bufferRange() (Handle, uint64, uint64, error) {
	if err := v.check(); err != nil {
		return 0, 0, 0, err
	}
	off, size := v.byteRange()
	return v.buf.h, off, size, nil
}

func (b *Buffer[T]) bufferRange() (Handle, uint64, uint64, error) { return b.All().bufferRange() }

// BufferRef is a *Buffer[T] or a BufferView[T] of any T (for bindless arrays).
type BufferRef interface {
	bufferRange() (h Handle, off, size uint64, err error)
}

// badCommand carries the error of a command that could not be built; Submit
// reports it and never hands it to a backend.
type badCommand struct {
	what string
	err  error
}

func bad(what string, err error) Command { return &badCommand{what: what, err: err} }

func (*badCommand) command()              {}
func (*badCommand) Usages() []Usage       { return nil }
func (b *badCommand) CommandName() string { return b.what }
func (*badCommand) Queue() StreamKind     { return StreamCopy }
func (b *badCommand) Check() error        { return b.err }

// CommandError returns the error of a command the typed API could not build
// (a bad range, a mismatched argument), or nil for a valid command.
func CommandError(c Command) error {
	if c == nil {
		return fmt.Errorf("device: %w: nil command", ErrInvalidArgument)
	}
	if b, ok := c.(*badCommand); ok {
		return fmt.Errorf("device: %s: %w", b.what, b.err)
	}
	return nil
}
