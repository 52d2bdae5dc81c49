package vulkan

import (
	"reflect"

	"github.com/lucent-gpu/lucent/device"
)

// Extension implements device.Extender: the Vulkan backend presents
// (device.Presenter) and reports its pipeline cache
// (device.PipelineCacheReporter).
func (d *Device) Extension(t reflect.Type) any {
	switch t {
	case reflect.TypeFor[device.Presenter](), reflect.TypeFor[device.PipelineCacheReporter]():
		return d
	}
	return nil
}

var (
	_ device.Presenter             = (*Device)(nil)
	_ device.PipelineCacheReporter = (*Device)(nil)
)
