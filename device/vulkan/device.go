package vulkan

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

func init() { device.Register("vulkan", factory{}) }

// factory lists and opens Vulkan physical devices.
type factory struct{}

func (factory) Enumerate(_ context.Context, opts device.Options) ([]device.Adapter, error) {
	opts.ValidationLayer = false
	opts.Debug = nil
	in, err := newInstance(opts)
	if err != nil {
		return nil, err
	}
	defer in.destroy()
	pds, err := in.physicalDevices()
	if err != nil {
		return nil, fmt.Errorf("vulkan: enumerating devices: %w", err)
	}
	var out []device.Adapter
	for _, pd := range pds {
		p, err := queryPhysical(in, pd)
		if err != nil {
			continue // below Vulkan 1.2: not usable
		}
		out = append(out, p.adapter(len(out)))
	}
	return out, nil
}

func (factory) Open(_ context.Context, opts device.Options) (device.Interface, error) {
	return Open(opts)
}

// Device is an open Vulkan device; it implements device.Interface and is safe
// for concurrent use.
type Device struct {
	closedKernels device.ClosedKernels // destroyed shaders' kernel names, for errors
	in            *instance
	phys          *physical
	caps          device.Capabilities
	vk            vk.Device
	fn            *vk.DeviceFuncs

	// softDescLimit is the largest software accel kernels read through its
	// binding (accelByBinding: maxStorageBufferRange or 0; tests change it).
	softDescLimit atomic.Uint64

	// buffersGone counts DestroyBuffer calls: bindless arrays look at their
	// buffer slots again only when it moved (bindless.slotBuffers).
	buffersGone atomic.Uint64

	queues     []*queue // compute-capable queues, streams take them round-robin
	copyQueues []*queue // transfer-only queues, for StreamCopy
	nextQueue  atomic.Uint32

	mem *memory

	// live guards the resource table. Dispatch holds it shared from looking
	// resources up to recording their use; destruction takes it exclusively,
	// so a resource is never released between the two.
	live      sync.RWMutex
	objects   map[device.Handle]any
	added     uint64 // objects ever added to the table (removals)
	handles   *device.HandleSpace
	closed    atomic.Bool
	closeOnce sync.Once

	// The lifetime gate (lifetime.go): calls in flight, and what wakes
	// Close when the last one leaves.
	calls      atomic.Int64
	drained    chan struct{}
	abandoned  atomic.Bool  // Close gave up waiting: nothing may touch Vulkan any more
	inCallback atomic.Int32 // user callbacks running on stream workers

	log *slog.Logger
	// print receives what kernels print; printWords is the data words of
	// each stream's print rings (print.go).
	print      func(device.KernelPrint)
	printWords uint32

	graveyard    graveyard
	samplers     samplerCache
	setIdx       setIndex // cached descriptor sets by resource (descset.go)
	pcache       pipelineCache
	kcache       kernelCache            // the SPIR-V cache of kernels compiled here (kernel.go)
	texLayout    vk.DescriptorSetLayout // bindless texture slots' set layout (native path), or 0
	inflight     atomic.Int64           // submissions enqueued on any stream and not yet completed on the host
	streams      sync.Map               // every *stream not yet released, destroyed ones included
	parked       parkedSet
	indexCheck   indexCheck  // the mesh index check (accel_indices.go)
	index16Check indexCheck  // the same over 16-bit indices
	boxCheck     indexCheck  // the procedural box check (accel_indices.go)
	lbvh         lbvhShaders // the software path's device mesh build (accel_lbvh.go)
	softAccel    bool        // structures built in software (accel_soft.go)
	noReplay     bool        // record every list afresh (replay.go; for tests)
	reads        readSet     // direct reads not yet made (directread.go)
	readMu       sync.Mutex  // held by the list with direct reads being encoded
	// stagedDownloads: every download goes through staging (EnvStagedDownloads).
	stagedDownloads bool
}

// queue is a VkQueue; submissions to it are serialised.
type queue struct {
	mu     sync.Mutex
	handle vk.Queue
	family uint32
	// timestampBits is the family's timestampValidBits: 0 where it has no
	// timestamps (timed lists are refused there).
	timestampBits uint32
}

// Open opens the physical device opts.DeviceIndex (-1: the default choice,
// a discrete GPU first and a CPU implementation last).
func Open(opts device.Options) (_ *Device, err error) {
	in, err := newInstance(opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			in.destroy()
		}
	}()
	pds, err := in.physicalDevices()
	if err != nil {
		return nil, fmt.Errorf("vulkan: enumerating devices: %w", err)
	}
	var phys []*physical
	var adapters []device.Adapter
	for _, pd := range pds {
		p, err := queryPhysical(in, pd)
		if err != nil {
			continue
		}
		adapters = append(adapters, p.adapter(len(phys)))
		phys = append(phys, p)
	}
	if len(phys) == 0 {
		return nil, fmt.Errorf("vulkan: %w: no Vulkan 1.2 device found", device.ErrUnsupported)
	}
	idx := opts.DeviceIndex
	if idx < 0 {
		idx = device.DefaultAdapter(adapters)
	}
	if idx >= len(phys) {
		return nil, invalidf("device index %d out of range (%d adapters)", idx, len(phys))
	}
	p := phys[idx]
	if p.f12.TimelineSemaphore == 0 || p.f13.Synchronization2 == 0 {
		return nil, unsupportedf("%s lacks timeline semaphores or synchronization2", p.name())
	}
	d := &Device{in: in, phys: p, objects: map[device.Handle]any{}, handles: device.NewHandleSpace(),
		drained: make(chan struct{}, 1), log: opts.Logger}
	if d.log == nil {
		d.log = slog.Default()
	}
	po := opts
	po.Logger = d.log
	d.print, d.printWords = po.PrintTo(), printRingWords(opts.PrintCapacity)
	if err := d.createDevice(); err != nil {
		return nil, err
	}
	d.kcache.open(opts)
	if err := d.openPipelineCache(opts); err != nil {
		d.fn.DestroyDevice(d.vk, nil)
		return nil, err
	}
	d.caps = p.capabilities(idx)
	d.caps.Binding, d.caps.BindingReason = chooseBinding(p, d.caps.PushDescriptors)
	d.caps.PushDescriptors = d.caps.Binding == BindPush // in use, not merely present
	if accelByBinding(p) {
		d.softDescLimit.Store(d.caps.MaxStorageBufferRange)
	}
	d.caps.SeparateCopyQueue = len(d.copyQueues) > 0
	d.caps.Timings = d.queues[0].timestampBits > 0
	for _, w := range d.workarounds() {
		d.caps.Workarounds = append(d.caps.Workarounds, w.Name)
	}

	if d.caps.RayTracing != device.PathNative || softwareForced() {
		d.softAccel, d.caps.RayTracing = true, device.PathEmulated
		// Kernels trace the software structures in code, through their
		// device addresses (kernel ABI v1, "Accels").
		d.caps.RayQuery = device.PathNone
		if d.caps.BufferDeviceAddress {
			d.caps.RayQuery = device.PathEmulated
			d.caps.AccelRead = "address"
			if d.accelDescriptorLimit() > 0 {
				d.caps.AccelRead = "binding"
			}
		}
	}
	d.stagedDownloads = stagedDownloadsForced()
	if d.caps.Sampling == device.PathNative {
		if err := d.createTextureLayout(); err != nil {
			d.closePipelineCache()
			d.fn.DestroyDevice(d.vk, nil)
			return nil, err
		}
	}
	d.mem = newMemory(d)
	return d, nil
}

// createDevice creates the VkDevice with every feature the runtime uses
// that the device has, and picks its queues.
func (d *Device) createDevice() error {
	p := d.phys
	compute, transfer := -1, -1
	for i, q := range p.queues {
		if q.QueueFlags&vk.QUEUE_COMPUTE_BIT != 0 && compute < 0 {
			compute = i
		}
		if q.QueueFlags&vk.QUEUE_TRANSFER_BIT != 0 && q.QueueFlags&(vk.QUEUE_COMPUTE_BIT|vk.QUEUE_GRAPHICS_BIT) == 0 && transfer < 0 {
			transfer = i
		}
	}
	if compute < 0 {
		return unsupportedf("%s has no compute queue", p.name())
	}
	prio := [4]float32{1, 1, 1, 1}
	nCompute := min(p.queues[compute].QueueCount, 4)
	qcis := []vk.DeviceQueueCreateInfo{{
		SType: vk.STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, QueueFamilyIndex: uint32(compute),
		QueueCount: nCompute, PQueuePriorities: &prio[0],
	}}
	nTransfer := uint32(0)
	if transfer >= 0 {
		nTransfer = min(p.queues[transfer].QueueCount, 2)
		qcis = append(qcis, vk.DeviceQueueCreateInfo{
			SType: vk.STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, QueueFamilyIndex: uint32(transfer),
			QueueCount: nTransfer, PQueuePriorities: &prio[0],
		})
	}

	// Enable what the device has of what the runtime uses.
	f2 := vk.PhysicalDeviceFeatures2{SType: vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2}
	want := *p // copy: enable exactly the queried features
	want.chainFeatures(&f2)
	f2.Features = p.f
	// Features no compute runtime needs, and that cost validation time, stay off.
	want.f12.BufferDeviceAddressCaptureReplay = 0
	want.f12.BufferDeviceAddressMultiDevice = 0
	want.as.AccelerationStructureCaptureReplay = 0
	// Of robustness2 only null descriptors (empty buffer views); the
	// stronger robust access costs every access on some drivers.
	want.r2.RobustBufferAccess2, want.r2.RobustImageAccess2 = 0, 0
	f2.Features.RobustBufferAccess = p.f.RobustBufferAccess

	var exts []string
	for _, e := range []string{"VK_KHR_push_descriptor", "VK_EXT_shader_atomic_float", "VK_KHR_shader_clock",
		"VK_KHR_acceleration_structure", "VK_KHR_ray_query", "VK_KHR_deferred_host_operations", "VK_KHR_portability_subset", "VK_KHR_swapchain", "VK_EXT_robustness2"} {
		if p.exts[e] && (e != "VK_EXT_robustness2" || p.r2.NullDescriptor != 0) {
			exts = append(exts, e)
		}
	}
	if want.as.AccelerationStructure != 0 && !p.exts["VK_KHR_deferred_host_operations"] {
		want.as = vk.PhysicalDeviceAccelerationStructureFeaturesKHR{SType: want.as.SType}
		want.chainFeatures(&f2)
	}
	ci := vk.DeviceCreateInfo{
		SType:                   vk.STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		PNext:                   unsafe.Pointer(&f2),
		QueueCreateInfoCount:    uint32(len(qcis)),
		PQueueCreateInfos:       &qcis[0],
		EnabledExtensionCount:   uint32(len(exts)),
		PpEnabledExtensionNames: vk.CStrings(exts),
	}
	if err := check("vkCreateDevice", d.in.fn.CreateDevice(p.handle, &ci, nil, &d.vk)); err != nil {
		return err
	}
	fn, err := vk.LoadDevice(d.in.fn, d.vk)
	if err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	d.fn = fn
	for i := uint32(0); i < nCompute; i++ {
		q := &queue{family: uint32(compute), timestampBits: p.queues[compute].TimestampValidBits}
		fn.GetDeviceQueue(d.vk, uint32(compute), i, &q.handle)
		d.queues = append(d.queues, q)
	}
	for i := uint32(0); i < nTransfer; i++ {
		q := &queue{family: uint32(transfer), timestampBits: p.queues[transfer].TimestampValidBits}
		fn.GetDeviceQueue(d.vk, uint32(transfer), i, &q.handle)
		d.copyQueues = append(d.copyQueues, q)
	}
	return nil
}

// Capabilities returns what the device can do.
func (d *Device) Capabilities() device.Capabilities { return d.caps }

// NativeDevice returns the VkDevice (device.NativeHandles).
func (d *Device) NativeDevice() uintptr { return uintptr(d.vk) }

// WarpSize returns the subgroup size.
func (d *Device) WarpSize() uint32 { return d.caps.WarpSize }

// MemoryGranularity returns the alignment buffer offsets must respect.
func (d *Device) MemoryGranularity() uint64 { return d.caps.MemoryGranularity }

// SetName gives a resource a debug name (shown in validation messages).
func (d *Device) SetName(h device.Handle, name string) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.exit()
	d.live.RLock()
	defer d.live.RUnlock()
	if err := d.alive(); err != nil {
		return err
	}
	obj, ok := d.objects[h]
	if !ok {
		return d.missing(h, "resource")
	}
	if n, ok := obj.(interface{ setName(string) }); ok {
		n.setName(name)
	}
	if !d.fn.Loaded("vkSetDebugUtilsObjectNameEXT") {
		return nil
	}
	typ, vkHandle := objectOf(obj)
	if vkHandle == 0 {
		return nil
	}
	info := vk.DebugUtilsObjectNameInfoEXT{
		SType:        vk.STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
		ObjectType:   typ,
		ObjectHandle: vkHandle,
		PObjectName:  vk.CString(name),
	}
	return check("vkSetDebugUtilsObjectNameEXT", d.fn.SetDebugUtilsObjectNameEXT(d.vk, &info))
}

func (d *Device) alive() error {
	if d.closed.Load() {
		return fmt.Errorf("vulkan: device: %w", device.ErrClosed)
	}
	return nil
}

// newHandle returns a fresh handle; one space serves every kind.
func (d *Device) newHandle() device.Handle { return d.handles.New() }

// missing explains why h is not in the table: destroyed, of another device,
// or never created.
func (d *Device) missing(h device.Handle, kind string) error {
	return fmt.Errorf("vulkan: %w", d.handles.Missing(h, kind))
}

// lookup returns the resource h as a T; callers hold d.live.
func lookup[T any](d *Device, h device.Handle, kind string) (T, error) {
	var zero T
	obj, ok := d.objects[h]
	if !ok {
		return zero, d.missing(h, kind)
	}
	t, ok := obj.(T)
	if !ok {
		return zero, invalidf("handle %d is a %s, not a %s", h, kindName(obj), kind)
	}
	return t, nil
}

func kindName(obj any) string {
	switch o := obj.(type) {
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
	case *structure:
		return o.kind.String()
	}
	return "resource"
}

// add registers obj under a new handle.
func (d *Device) add(obj any) (device.Handle, error) {
	d.live.Lock()
	defer d.live.Unlock()
	if err := d.alive(); err != nil {
		return 0, err
	}
	h := d.newHandle()
	d.objects[h] = obj
	d.added++
	return h, nil
}

// removals counts the objects ever taken out of the table, however they
// were (it changes with every delete from d.objects, which needs no help
// from the code deleting): while it is unchanged, every handle seen alive
// is still alive. Callers hold d.live.
func (d *Device) removals() uint64 { return d.added - uint64(len(d.objects)) }

// remove takes h out of the table and returns its object; its release is
// then deferred by the caller until the GPU is done with it.
func remove[T any](d *Device, h device.Handle, kind string) (T, error) {
	d.live.Lock()
	defer d.live.Unlock()
	var zero T
	if err := d.alive(); err != nil {
		return zero, err
	}
	t, err := lookup[T](d, h, kind)
	if err != nil {
		return zero, err
	}
	delete(d.objects, h)
	return t, nil
}

// Close waits for all submitted work, releases every resource and the device.
// A second Close returns nil; so does one racing the first, once the first
// has finished (an abandoned device's later Close calls return nil too).
//
// Calls racing Close either complete before Close releases anything or fail
// with ErrClosed; host waits in flight return ErrClosed. Close waits at most
// closeTimeout (10 s) for the calls in flight and the submitted work: when
// a stream's work has not finished by then (a kernel that does not end), it
// returns an error naming the stream and wrapping device.ErrDeviceLost, and
// abandons the device: its Vulkan objects, its memory and the VkDevice are
// leaked, since destroying what the GPU may still use is undefined. Called
// from a callback of one of the device's streams (which Close would wait
// for), it returns an error wrapping device.ErrInvalidArgument and closes
// nothing.
func (d *Device) Close() error {
	if err := d.CloseAllowed(); err != nil {
		return err
	}
	var err error
	d.closeOnce.Do(func() { err = d.close() })
	return err
}

// CloseAllowed refuses Close from a callback of one of the device's streams
// (device.CloseGuard).
func (d *Device) CloseAllowed() error {
	if s := d.callbackStream(); s != nil {
		return invalidf("Close called from a callback of stream %d: it would wait for that callback to return", s.h)
	}
	return nil
}

func (d *Device) close() error {
	deadline := time.Now().Add(closeTimeout)
	d.closed.Store(true)
	if !d.drain(deadline) {
		return d.abandon(fmt.Errorf("vulkan: Close: %d call(s) still in flight after %v: %w", d.calls.Load(), closeTimeout, device.ErrDeviceLost))
	}
	// No call runs any more, and none can start: the table is Close's.
	d.live.Lock()
	objs := d.objects
	d.objects = nil
	d.live.Unlock()

	var firstErr error
	// Let every stream finish (callbacks included), all at once, then wait
	// for their workers to release them.
	var streams []*stream
	var dropped []int
	d.streams.Range(func(k, _ any) bool {
		s := k.(*stream)
		streams = append(streams, s)
		dropped = append(dropped, s.finish())
		return true
	})
	var stuck []*stream
	for i, s := range streams {
		done, err := s.finished(deadline, dropped[i])
		if !done {
			stuck = append(stuck, s)
		} else if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if len(stuck) > 0 {
		var names []string
		for _, s := range stuck {
			names = append(names, fmt.Sprintf("stream %d", s.h))
		}
		return d.abandon(fmt.Errorf("vulkan: Close: %s still running after %v (a kernel that does not end?); "+
			"the device and its objects are leaked: %w", strings.Join(names, ", "), closeTimeout, device.ErrDeviceLost))
	}
	d.fn.DeviceWaitIdle(d.vk)
	d.graveyard.reapAll()
	for _, o := range objs {
		if r, ok := o.(interface{ release() }); ok {
			r.release()
		}
	}
	d.samplers.release(d)
	d.fn.DestroyDescriptorSetLayout(d.vk, d.texLayout, nil)
	d.closePipelineCache()
	d.mem.release()
	d.fn.DestroyDevice(d.vk, nil)
	d.in.destroy()
	return firstErr
}

// abandon gives the device up without destroying anything (its GPU work may
// still run): stream workers stop, and err is what Close returns.
func (d *Device) abandon(err error) error {
	d.abandoned.Store(true)
	d.streams.Range(func(k, _ any) bool {
		k.(*stream).notify()
		return true
	})
	d.log.Error("vulkan: device abandoned at Close", "error", err)
	return err
}
