package cpu

import "time"

// SetCloseTimeout shortens how long Close waits, for tests of kernels that
// do not end; it returns the previous value.
func SetCloseTimeout(d time.Duration) time.Duration {
	old := closeTimeout
	closeTimeout = d
	return old
}
