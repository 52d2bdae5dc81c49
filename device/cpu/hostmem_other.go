//go:build !linux

package cpu

// hostMemory returns the host's memory in bytes; 0: not known here.
func hostMemory() uint64 { return 0 }
