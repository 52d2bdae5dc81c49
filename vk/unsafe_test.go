package vk

import "unsafe"

// unsafePointer turns a pointer to a struct into a pNext value.
func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }

func pointerOf[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
