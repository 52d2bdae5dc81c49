//go:build amd64 || arm64

package kernel

// getg returns the address of the calling goroutine's runtime descriptor,
// read from the register or thread-local slot where the Go runtime keeps it.
// It identifies the goroutine for as long as it runs (the runtime reuses the
// descriptor only after the goroutine has exited).
func getg() uintptr

// goroutineID identifies the calling goroutine in a few nanoseconds.
func goroutineID() uintptr { return getg() }
