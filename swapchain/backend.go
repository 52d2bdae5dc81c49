package swapchain

import (
	"fmt"

	"github.com/lucent-gpu/lucent/device"
)

var errInvalid = device.ErrInvalidArgument

// presenterOf finds the device's presentation extension (device.Presenter),
// through the validation wrapper when the device has one, so that its
// checks hold for surfaces, swapchains and presents too.
func presenterOf(dev *device.Device) (device.Presenter, error) {
	if dev == nil {
		return nil, fmt.Errorf("swapchain: %w: nil device", errInvalid)
	}
	p, err := device.Extension[device.Presenter](dev)
	if err != nil {
		return nil, fmt.Errorf("swapchain: the %q backend cannot present: %w", dev.Backend(), err)
	}
	return p, nil
}
