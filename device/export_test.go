package device

// WaitCompiles waits for the compiles CompileContext left running in the
// background to finish (and to destroy what they built).
func WaitCompiles(d *Device) { d.compiles.Wait() }

// CheckDeviceLimits is checkDeviceLimits, for tests with made-up limits.
var CheckDeviceLimits = checkDeviceLimits
