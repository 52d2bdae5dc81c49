// Package cpu is lucent's pure-Go backend, registered as "cpu": buffers in Go
// memory, streams that run their command lists in order on one goroutine
// each, events as timeline values, and kernels compiled once from the
// kernel AST into Go closures whose blocks run across GOMAXPROCS workers.
//
// It needs no driver and no cgo, so a lucent program runs wherever Go runs:
//
//	import _ "github.com/lucent-gpu/lucent/device/cpu"
//	d, err := device.Open(ctx, "cpu")
//
// Kernels compile twice where they can: the lane engine (lanes.go) runs a
// batch of up to 256 threads of a block (or of consecutive small 1-D
// blocks, where nothing tells them apart) per closure call, with divergent
// branches and loops on lists of lanes, for kernels without barriers,
// shared memory, atomics, callables, textures or switches; every kernel
// also has the per-thread engine, one thread per call (threads as
// coroutines where the kernel has barriers), which runs the rest, f16
// arithmetic included.
//
// f16 values are kept as their bits; each operation is computed in float32
// (fma in float64) and rounded to f16 (ties to even, denormals kept,
// overflow to infinity). For +, -, *, / and sqrt that is correctly rounded,
// the result a GPU with native f16 gives: float32 has more than 2·11+2
// bits. Conversions into f16 round once, from f64 too (lavapipe rounds f64
// through f32, twice). Vector reductions (dot, length) are computed wider
// and rounded once, as for f32. The IR has no f16 atomics.
//
// Kernels are checked by default: an out-of-range buffer, shared or local
// array access or storage-texture texel, an integer division by zero or a
// failed assertion (ir.Assert) stops the dispatch, and the stream's next
// Synchronize returns a *device.KernelFault naming the kernel, the argument,
// the index and range, the thread and the statement's source position (the
// same fault on both engines).
//
// With the race detector (device.WithRaceDetector, or LUCENT_RACE=1) every
// kernel runs on the per-thread engine, even one carrying its compiled Go
// function, with each load, store and atomic of shared memory and of
// buffer arguments, each texel read, written or fetched by a filter, and
// each access through a bindless slot checked against a shadow of the
// element or texel: two threads of a block touching one element with no
// barrier between them, or two blocks touching one buffer element or
// texel, one of them writing and not both atomically, make Synchronize
// return a *device.KernelRace naming the kernel, the variable, argument or
// bindless slot, the element (or texel and level), both threads and the
// positions of both statements (race.go). A buffer or texture reached both
// as an argument and through a slot is one memory to the detector.
//
// A shader created with its kernel's compiled Go function
// (device.ShaderDesc.Host, device.WithHost: the launchers lucentc -go writes
// pass it for Go-subset kernels) runs that function under kernel.Run instead
// of the AST. Its checks are Go's: an index past a buffer argument's bound
// range or an integer division by zero panics the thread, and the stream's
// Synchronize returns an error wrapping device.ErrInvalidArgument and
// kernel.ErrKernelPanic naming the kernel, its position and the thread; the
// process does not crash. Unlike the AST's loops, a Go function that never
// returns cannot be stopped: Close gives up on it after its timeout.
//
// Textures (2D and 3D, every format, mip levels) are Go memory too; kernels
// read, write, size and sample storage textures, converting texels and
// filtering as the Vulkan backend does. Bindless arrays hold buffer ranges
// and 2D textures with samplers, on the emulated path's rules (formats,
// zero past a slot's range, sampling as kernel.Texture2D).
//
// Ray tracing builds accel/bvh hierarchies on the stream's goroutine
// (device.RayTracing, accel.go).
//
// A Custom command (there is no native command buffer) calls its Func with
// 0 on the stream's goroutine, at its place in the list: after the earlier
// commands' work, before the later ones; its error or panic fails the list
// there, and the stream's next Synchronize returns it (see device.Custom).
// A Synchronize that runs queued lists itself leaves those with Custom
// commands to the worker.
//
// Not implemented (refused with errors wrapping device.ErrUnsupported that
// name what): SPIR-V shaders (ahead-of-time records and lucentc launchers
// run through the IR they carry, or their Go function) and the
// componentwise float built-ins (sqrt, min, fma, ...) on f64. The subgroup
// size is 1.
package cpu

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/softaccel"
)

func init() { device.Register("cpu", factory{}) }

type factory struct{}

func adapter() device.Adapter {
	return device.Adapter{Index: 0, Name: fmt.Sprintf("lucent cpu (%d threads)", runtime.GOMAXPROCS(0)),
		Type: device.AdapterCPU, Driver: "lucent cpu backend (pure Go, " + runtime.Version() + ")", APIVersion: "1.0"}
}

func (factory) Enumerate(ctx context.Context, opts device.Options) ([]device.Adapter, error) {
	return []device.Adapter{adapter()}, nil
}

func (factory) Open(ctx context.Context, opts device.Options) (device.Interface, error) {
	if opts.DeviceIndex != 0 && opts.DeviceIndex != -1 {
		return nil, fmt.Errorf("cpu: %w: adapter %d (there is one, #0)", device.ErrInvalidArgument, opts.DeviceIndex)
	}
	return New(opts), nil
}

// closeTimeout bounds how long Close waits for submitted work.
var closeTimeout = 10 * time.Second

// Device is an open cpu device. It implements device.Interface.
type Device struct {
	closedKernels device.ClosedKernels // destroyed shaders' kernel names, for errors
	handles       *device.HandleSpace
	log           *slog.Logger
	print         func(device.KernelPrint) // what kernels print goes here (print.go)
	race          bool                     // kernels run with the race detector (race.go)

	calls    atomic.Int64
	closed   atomic.Bool
	drained  chan struct{}
	done     chan struct{} // closed once Close has waited for the work: event waits in streams end
	hostDone chan struct{} // closed when Close begins: host waits in flight return ErrClosed
	quiet    chan struct{} // closed once Close begun and no call is in flight: no signal can be enqueued (awaitEvent)

	dropMu sync.Mutex
	dropCh chan struct{} // closed and replaced when a stream drops queued work (awaitEvent)

	mu   sync.Mutex
	objs map[device.Handle]any // *buffer, *stream, *event, *shader
	name map[device.Handle]string

	inCallback atomic.Int32 // callbacks running now, on any stream
	abandon    atomic.Bool  // set when Close gives up waiting: running kernels stop at their next loop iteration
	// hostCtx is the context of kernels run as compiled Go (ShaderDesc.Host),
	// cancelled when Close gives up waiting: kernel.Run starts no more blocks.
	hostCtx    context.Context
	hostCancel context.CancelFunc
	streams    []*stream     // every stream made, destroyed or not (Close waits for all)
	accelSeq   atomic.Uint64 // accel builds submitted (softaccel.Structure.Destroy)
}

// New opens a cpu device (device.Open(ctx, "cpu") is the usual way in).
func New(opts device.Options) *Device {
	l := opts.Logger
	if l == nil {
		l = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	opts.Logger = l
	return &Device{handles: device.NewHandleSpace(), log: l, print: opts.PrintTo(), race: opts.RaceDetector, drained: make(chan struct{}, 1), done: make(chan struct{}), hostDone: make(chan struct{}), quiet: make(chan struct{}), dropCh: make(chan struct{}),
		objs: map[device.Handle]any{}, name: map[device.Handle]string{}, hostCtx: ctx, hostCancel: cancel}
}

var errClosed = fmt.Errorf("cpu: device: %w", device.ErrClosed)

// enter admits a call, or fails with ErrClosed once Close began.
func (d *Device) enter() error {
	d.calls.Add(1)
	if d.closed.Load() {
		d.exit()
		return errClosed
	}
	return nil
}

func (d *Device) exit() {
	if d.calls.Add(-1) == 0 && d.closed.Load() {
		select {
		case d.drained <- struct{}{}:
		default:
		}
	}
}

// Capabilities reports what the backend does: subgroups of one thread,
// textures up to maxTexture2D and maxTexture3D per side, bindless arrays on
// the emulated path.
func (d *Device) Capabilities() device.Capabilities {
	return device.Capabilities{
		Backend: "cpu", Adapter: adapter(), WarpSize: 1, Subgroups: true,
		MaxWorkgroupSize: [3]uint32{1024, 1024, 64}, MaxWorkgroupInvocations: 1024,
		MaxWorkgroupCount: [3]uint32{1<<32 - 1, 1<<32 - 1, 1<<32 - 1}, MaxSharedMemory: 64 << 10,
		MaxPushConstantSize: 128, MaxStorageBufferRange: 1<<32 - 1, MaxBufferSize: 1 << 40,
		MaxTextureSize2D: maxTexture2D, MaxTextureSize3D: maxTexture3D,
		MemoryGranularity: granularity, TimelineSemaphores: true, ScalarBlockLayout: true, BufferDeviceAddress: true,
		Float16: true, Float64: true, Int8: true, Int16: true, Int64: true, Storage8: true, Storage16: true,
		AtomicFloat32Add: true, AtomicInt64: true,
		Bindless: device.PathEmulated, Sampling: device.PathEmulated,
		Timings: true, // wall clock per command, on the stream's goroutine

		RayTracing: device.PathEmulated, // accel/bvh hierarchies in Go memory (accel.go)
		RayQuery:   device.PathEmulated, // bvh.Scene's traversal (rayquery.go)
	}
}

// The largest texture side the backend makes, per dimension.
const (
	maxTexture2D = 16384
	maxTexture3D = 2048
)

// granularity is the alignment of buffer offsets: a view's elements are then
// aligned for the atomics of sync/atomic.
const granularity = 16

func (d *Device) NativeHandle() uintptr     { return 0 }
func (d *Device) WarpSize() uint32          { return 1 }
func (d *Device) MemoryGranularity() uint64 { return granularity }

func (d *Device) SetName(h device.Handle, name string) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.objs[h]; !ok {
		return fmt.Errorf("cpu: SetName: %w", d.handles.Missing(h, "resource"))
	}
	d.name[h] = name
	return nil
}

func (d *Device) add(o any) device.Handle {
	h := d.handles.New()
	d.mu.Lock()
	d.objs[h] = o
	d.mu.Unlock()
	return h
}

// lookup returns the live object of h as a T, or an error naming kind.
func lookup[T any](d *Device, h device.Handle, kind string) (T, error) {
	d.mu.Lock()
	o, ok := d.objs[h]
	d.mu.Unlock()
	t, isT := o.(T)
	if !ok {
		return t, d.handles.Missing(h, kind)
	}
	if !isT {
		return t, fmt.Errorf("%w: handle %d is a %s, not a %s", device.ErrInvalidArgument, h, kindName(o), kind)
	}
	return t, nil
}

// kindName is what an object of the table is, in errors.
func kindName(o any) string {
	switch o := o.(type) {
	case *buffer:
		return "buffer"
	case *texture:
		return "texture"
	case *stream:
		return "stream"
	case *event:
		return "event"
	case *shader:
		return "shader"
	case *bindless:
		return "bindless array"
	case *softaccel.Structure:
		return o.Kind().String()
	}
	return fmt.Sprintf("%T", o)
}

// remove destroys h's object; resources in flight stay alive through the
// command lists that hold them (Go's collector releases them after).
func remove[T any](d *Device, h device.Handle, kind string) (T, error) {
	var zero T
	if err := d.enter(); err != nil {
		return zero, err
	}
	defer d.exit()
	o, err := lookup[T](d, h, kind)
	if err != nil {
		return zero, fmt.Errorf("cpu: Destroy: %w", err)
	}
	d.mu.Lock()
	delete(d.objs, h)
	delete(d.name, h)
	d.mu.Unlock()
	return o, nil
}

// CloseAllowed refuses Close from a callback of one of the device's streams.
func (d *Device) CloseAllowed() error {
	if s := d.callbackStream(); s != nil {
		return fmt.Errorf("cpu: Close: %w: called from a callback of stream %d, it would wait for that callback", device.ErrInvalidArgument, s.h)
	}
	return nil
}

// Close waits (at most closeTimeout) for submitted work and releases the device.
func (d *Device) Close() error {
	if err := d.CloseAllowed(); err != nil {
		return err
	}
	if d.closed.Swap(true) {
		return nil
	}
	close(d.hostDone)
	deadline := time.Now().Add(closeTimeout)
	for d.calls.Load() > 0 && time.Now().Before(deadline) {
		select {
		case <-d.drained:
		case <-time.After(time.Millisecond):
		}
	}
	close(d.quiet)
	d.mu.Lock()
	streams := append([]*stream(nil), d.streams...)
	d.mu.Unlock()
	for _, s := range streams {
		if !s.idle(deadline) {
			d.abandon.Store(true)
			d.hostCancel()
			close(d.done)
			for _, s := range streams {
				s.stop()
			}
			return fmt.Errorf("cpu: Close: stream %d still runs work after %v: %w", s.h, closeTimeout, device.ErrDeviceLost)
		}
	}
	close(d.done)
	d.hostCancel()
	var errs []error
	for _, s := range streams {
		s.stop()
		s.mu.Lock()
		n := s.dropped
		s.mu.Unlock()
		if n > 0 {
			errs = append(errs, fmt.Errorf("cpu: Close: stream %d: %w: %d item(s) waited for event signals never submitted", s.h, device.ErrInvalidArgument, n))
		}
	}
	d.mu.Lock()
	d.objs = map[device.Handle]any{}
	d.mu.Unlock()
	return errors.Join(errs...)
}

// buffer is a device buffer: Go memory, 8-byte aligned for atomics.
type buffer struct {
	data      []byte
	back      []uint64    // keeps the aligned backing
	elem      uint32      // BufferDesc.ElemSize, which dispatches check
	destroyed atomic.Bool // bindless slots holding it refuse dispatches
}

func (b *buffer) desc() device.BufferDesc {
	return device.BufferDesc{Size: uint64(len(b.data)), ElemSize: b.elem}
}

func (d *Device) CreateBuffer(desc device.BufferDesc) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	if desc.Size == 0 {
		return 0, fmt.Errorf("cpu: CreateBuffer: %w: size 0", device.ErrInvalidArgument)
	}
	if desc.Size > d.Capabilities().MaxBufferSize {
		return 0, fmt.Errorf("cpu: CreateBuffer: %w: %d bytes, more than the backend's %d", device.ErrOutOfMemory, desc.Size, d.Capabilities().MaxBufferSize)
	}
	if err := fitsHost(desc.Size); err != nil {
		return 0, fmt.Errorf("cpu: CreateBuffer: %w", err)
	}
	b, err := newBuffer(desc.Size)
	if err != nil {
		return 0, fmt.Errorf("cpu: CreateBuffer(%d bytes): %w", desc.Size, err)
	}
	b.elem = desc.ElemSize
	return d.add(b), nil
}

// fitsHost refuses an allocation larger than the host's memory: Go's
// runtime cannot map it and ends the program (a fatal error, not a panic
// newBuffer could recover), where the caller is owed ErrOutOfMemory.
func fitsHost(size uint64) error {
	if m := hostMemory(); m != 0 && size > m {
		return fmt.Errorf("%w: %d bytes, more than the host's %d bytes of memory and swap", device.ErrOutOfMemory, size, m)
	}
	return nil
}

func newBuffer(size uint64) (b *buffer, err error) {
	defer func() {
		if recover() != nil {
			b, err = nil, device.ErrOutOfMemory
		}
	}()
	back := make([]uint64, (size+7)/8)
	return &buffer{back: back, data: bytesOf(back)[:size]}, nil
}

func (d *Device) DestroyBuffer(h device.Handle) error {
	b, err := remove[*buffer](d, h, "buffer")
	if err == nil {
		b.destroyed.Store(true)
	}
	return err
}
