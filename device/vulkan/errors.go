package vulkan

import (
	"errors"
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/internal/vkc"
)

// resultError is a failed VkResult that also matches the device sentinel it
// stands for with errors.Is.
type resultError struct {
	r        vkc.Result
	sentinel error
}

func (e *resultError) Error() string {
	if e.sentinel != nil {
		return fmt.Sprintf("%v (%v)", e.r, e.sentinel)
	}
	return e.r.Error()
}

func (e *resultError) Unwrap() []error {
	if e.sentinel != nil {
		return []error{e.r, e.sentinel}
	}
	return []error{e.r}
}

// wrapResult turns a vkc.Result error into one that matches device's sentinels.
func wrapResult(err error) error {
	var r vkc.Result
	if !errors.As(err, &r) {
		return err
	}
	var s error
	switch r {
	case vkc.ErrorOutOfHostMemory, vkc.ErrorOutOfDeviceMemory:
		s = device.ErrOutOfMemory
	case vkc.ErrorDeviceLost:
		s = device.ErrDeviceLost
	case vkc.ErrorLayerNotPresent, vkc.ErrorExtensionNotPresnt, vkc.ErrorFeatureNotPresent,
		vkc.ErrorIncompatibleDriver, vkc.ErrorFormatNotSupported, vkc.ErrorInitializationFail:
		s = device.ErrUnsupported
	}
	return &resultError{r: r, sentinel: s}
}

// check turns a VkResult into nil or an error naming the call.
func check(call string, r vkc.Result) error {
	if r >= 0 {
		return nil
	}
	return fmt.Errorf("vulkan: %s: %w", call, wrapResult(r))
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("vulkan: %w: %s", device.ErrInvalidArgument, fmt.Sprintf(format, args...))
}

func unsupportedf(format string, args ...any) error {
	return fmt.Errorf("vulkan: %w: %s", device.ErrUnsupported, fmt.Sprintf(format, args...))
}
