package device

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"
)

// Host and device share one memory layout (scalar block layout at Go's own
// offsets), so a T is copied to the device byte for byte. That only makes sense
// for plain data: checkPOD rejects, once per type, anything holding a Go
// pointer or header (pointers, maps, slices, strings, interfaces, funcs,
// chans, unsafe pointers, uintptrs) and zero-sized types.

var podCache sync.Map // reflect.Type -> error (nil when fine)

func checkPOD(t reflect.Type) error {
	if v, ok := podCache.Load(t); ok {
		if v == nil {
			return nil
		}
		return v.(error)
	}
	err := podError(t, t.String())
	if err == nil && t.Size() == 0 {
		err = invalidf("type %s has size 0", t)
	}
	podCache.Store(t, err)
	return err
}

func podError(t reflect.Type, path string) error {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return nil
	case reflect.Array:
		return podError(t.Elem(), path+"[]")
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if err := podError(f.Type, path+"."+f.Name); err != nil {
				return err
			}
		}
		return nil
	}
	return invalidf("%s is a %s: device data must be plain values (no pointers, maps, slices, strings, interfaces, funcs, chans)", path, t.Kind())
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// checkElem validates T as a buffer or pixel element type.
func checkElem[T any]() error {
	return checkPOD(typeOf[T]())
}

// asBytes views a slice of plain values as bytes (no copy).
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// uniformBytes copies a plain value's memory (Go layout = scalar block layout).
func uniformBytes(v any) ([]byte, reflect.Type, error) {
	// The common scalars and vectors skip reflect.New.
	switch x := v.(type) {
	case float32:
		return rawBytes(x), reflect.TypeOf(v), nil
	case uint32:
		return rawBytes(x), reflect.TypeOf(v), nil
	case int32:
		return rawBytes(x), reflect.TypeOf(v), nil
	case [2]float32:
		return rawBytes(x), reflect.TypeOf(v), nil
	case [3]float32:
		return rawBytes(x), reflect.TypeOf(v), nil
	case [4]float32:
		return rawBytes(x), reflect.TypeOf(v), nil
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return nil, nil, invalidf("nil value")
	}
	t := rv.Type()
	if err := checkPOD(t); err != nil {
		return nil, t, err
	}
	p := reflect.New(t)
	p.Elem().Set(rv)
	b := make([]byte, t.Size())
	copy(b, unsafe.Slice((*byte)(p.UnsafePointer()), t.Size()))
	return b, t, nil
}

func rawBytes[T any](v T) []byte {
	b := make([]byte, unsafe.Sizeof(v))
	copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&v)), len(b)))
	return b
}

// scalarOf describes a scalar or a vector (array of 2–4 scalars) type.
func scalarOf(t reflect.Type) (kind ScalarKind, bits uint8, comps uint8, ok bool) {
	comps = 1
	if t.Kind() == reflect.Array && t.Len() >= 2 && t.Len() <= 4 {
		comps = uint8(t.Len())
		t = t.Elem()
	}
	bits = uint8(t.Size() * 8)
	switch t.Kind() {
	case reflect.Bool:
		return ScalarBool, bits, comps, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return ScalarInt, bits, comps, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return ScalarUint, bits, comps, true
	case reflect.Float32, reflect.Float64:
		return ScalarFloat, bits, comps, true
	}
	return 0, 0, 0, false
}

// checkScalar compares a Go type with what an argument declares: a scalar
// or vector, or the layout of another type (checkLayout); it says nothing
// when the argument declares neither or t is no scalar or vector.
func checkScalar(a Argument, t reflect.Type) error {
	if a.Scalar == ScalarUnknown {
		return checkLayout(a, t)
	}
	k, bits, comps, ok := scalarOf(t)
	if !ok {
		return nil
	}
	wantComps := max(a.Components, 1)
	if k != a.Scalar || (a.ScalarBits != 0 && bits != a.ScalarBits) || comps != wantComps {
		return fmt.Errorf("kernel expects %s, got %s", scalarName(a.Scalar, a.ScalarBits, wantComps), t)
	}
	return nil
}

func scalarName(k ScalarKind, bits, comps uint8) string {
	s := k.String()
	if bits != 0 {
		s = fmt.Sprintf("%s%d", s, bits)
	}
	if comps > 1 {
		s = fmt.Sprintf("%d×%s", comps, s)
	}
	return s
}
