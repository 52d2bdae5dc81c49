package kernel

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"
)

// ErrHostArgument is wrapped by HostSlice's and HostValue's errors: the
// bytes a backend gave do not fit the Go type.
var ErrHostArgument = errors.New("kernel: host argument does not fit")

// HostSlice views b, a buffer's bytes on a backend whose buffers are Go
// memory, as the []T a kernel function takes: no copy, so the kernel's
// writes are the buffer's. The launchers lucentc -go writes call it for a
// device.HostFunc; they do so only for element types whose Go layout is the
// kernel's (lucentc checks it). b must hold whole elements, aligned for T,
// and T must be plain data (numbers, arrays and structs of them).
func HostSlice[T any](b []byte) ([]T, error) {
	var z T
	if !plain(reflect.TypeFor[T]()) {
		return nil, fmt.Errorf("%w: %T is not plain data (numbers, arrays and structs of them)", ErrHostArgument, z)
	}
	size, align := unsafe.Sizeof(z), unsafe.Alignof(z)
	if size == 0 {
		return nil, fmt.Errorf("%w: a zero-size element type %T", ErrHostArgument, z)
	}
	if uintptr(len(b))%size != 0 {
		return nil, fmt.Errorf("%w: %d bytes are not whole %d-byte %T elements", ErrHostArgument, len(b), size, z)
	}
	if len(b) == 0 {
		return []T{}, nil
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%align != 0 {
		return nil, fmt.Errorf("%w: the bytes of a []%T at %#x are not %d-byte aligned", ErrHostArgument, z, uintptr(p), align)
	}
	return unsafe.Slice((*T)(p), uintptr(len(b))/size), nil
}

// HostValue reads b, a uniform argument's bytes, as the T a kernel function
// takes (a copy), for the launchers' device.HostFunc. b must be exactly
// T's size, and T plain data.
func HostValue[T any](b []byte) (T, error) {
	var v T
	if !plain(reflect.TypeFor[T]()) {
		return v, fmt.Errorf("%w: %T is not plain data (numbers, arrays and structs of them)", ErrHostArgument, v)
	}
	if uintptr(len(b)) != unsafe.Sizeof(v) {
		return v, fmt.Errorf("%w: %d bytes for a %d-byte %T", ErrHostArgument, len(b), unsafe.Sizeof(v), v)
	}
	if len(b) > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&v)), len(b)), b)
	}
	return v, nil
}

// plain reports whether any bytes are a valid t: no pointers, no bools.
func plain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Array:
		return plain(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plain(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
