//go:build !amd64 && !arm64

package kernel

// goroutineID identifies the calling goroutine by the number in its stack
// trace header: portable, about a microsecond.
func goroutineID() uintptr { return uintptr(goid()) }
