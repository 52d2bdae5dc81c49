package spvtools

import "unsafe"

// ptr turns an address the C library returned into a pointer. The memory is
// C memory, never moved by Go; the conversion happens once, here.
func ptr(addr uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&addr))
}
