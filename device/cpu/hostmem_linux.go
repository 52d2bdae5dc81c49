package cpu

import "syscall"

// hostMemory returns the host's memory, RAM and swap, in bytes (0: not known).
func hostMemory() uint64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return (uint64(si.Totalram) + uint64(si.Totalswap)) * uint64(si.Unit)
}
