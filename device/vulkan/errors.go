package vulkan

import (
	"errors"
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

// resultError is a failed VkResult that also matches the device sentinel it
// stands for with errors.Is.
type resultError struct {
	r        vk.Result
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

// wrapResult turns a vk.Result error into one that matches device's sentinels.
func wrapResult(err error) error {
	var r vk.Result
	if !errors.As(err, &r) {
		return err
	}
	var s error
	switch r {
	case vk.ERROR_OUT_OF_HOST_MEMORY, vk.ERROR_OUT_OF_DEVICE_MEMORY:
		s = device.ErrOutOfMemory
	case vk.ERROR_DEVICE_LOST:
		s = device.ErrDeviceLost
	case vk.ERROR_LAYER_NOT_PRESENT, vk.ERROR_EXTENSION_NOT_PRESENT, vk.ERROR_FEATURE_NOT_PRESENT,
		vk.ERROR_INCOMPATIBLE_DRIVER, vk.ERROR_FORMAT_NOT_SUPPORTED, vk.ERROR_INITIALIZATION_FAILED:
		s = device.ErrUnsupported
	default:
		if errors.Is(r, vk.ErrMissingCommand) {
			s = device.ErrUnsupported
		}
	}
	return &resultError{r: r, sentinel: s}
}

// check turns a VkResult into nil or an error naming the call.
func check(call string, r vk.Result) error {
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
