package vulkan

import (
	"reflect"

	"github.com/lucent-gpu/lucent/device"
)

// Extension implements device.Extender: the Vulkan backend presents
// (device.Presenter), hands out its Vulkan objects (device.NativeHandles) and
// reports its pipeline cache (device.PipelineCacheReporter) and, where the
// builds acceleration structures (device.RayTracing: natively where the
// device has VK_KHR_acceleration_structure, accel.go; in software elsewhere,
// accel_soft.go).
func (d *Device) Extension(t reflect.Type) any {
	switch t {
	case reflect.TypeFor[device.Presenter](), reflect.TypeFor[device.NativeHandles](),
		reflect.TypeFor[device.PipelineCacheReporter](), reflect.TypeFor[device.ShaderCacheReporter]():
		return d
	case reflect.TypeFor[device.RayTracing]():
		return d
	}
	return nil
}

var (
	_ device.Presenter             = (*Device)(nil)
	_ device.NativeHandles         = (*Device)(nil)
	_ device.PipelineCacheReporter = (*Device)(nil)
	_ device.ShaderCacheReporter   = (*Device)(nil)
	_ device.RayTracing            = (*Device)(nil)
)

// NativeObject returns the Vulkan object behind a handle (see
// device.NativeHandles).
func (d *Device) NativeObject(h device.Handle) (uintptr, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	d.live.RLock()
	defer d.live.RUnlock()
	if err := d.alive(); err != nil {
		return 0, err
	}
	obj, err := lookup[any](d, h, "resource")
	if err != nil {
		return 0, err
	}
	switch o := obj.(type) {
	case *buffer:
		return uintptr(o.raw.handle), nil
	case *texture:
		return uintptr(o.image), nil
	case *shader:
		return uintptr(o.pipeline), nil
	case *event:
		return uintptr(o.sem), nil
	case *stream:
		return uintptr(o.sem), nil
	case *bindless:
		return uintptr(o.table.raw.handle), nil
	case *surface:
		return uintptr(o.handle), nil
	case *structure:
		o.mu.Lock()
		defer o.mu.Unlock()
		if o.soft != nil && o.nodes != nil {
			return uintptr(o.nodes.raw.handle), nil // the buffer of its arrays
		}
		return uintptr(o.as.handle), nil
	}
	return 0, invalidf("handle %d is a %s, which has no native object", h, kindName(obj))
}
