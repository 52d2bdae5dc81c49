package cpu

import (
	"time"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
)

// SetCloseTimeout shortens how long Close waits, for tests of kernels that
// do not end; it returns the previous value.
func SetCloseTimeout(d time.Duration) time.Duration {
	old := closeTimeout
	closeTimeout = d
	return old
}

// SceneOf returns the hierarchy an accel of d was last built into.
func SceneOf(d *Device, h device.Handle) *bvh.Scene {
	s, err := d.structure(h, device.KindAccel)
	if err != nil {
		return nil
	}
	return s.Scene()
}
