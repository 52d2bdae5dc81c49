package device

import (
	"errors"
	"reflect"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

type podVec struct{ X, Y, Z float32 }

type podParticle struct {
	Pos  podVec
	Mass float64
	ID   uint32
	Tags [4]int16
}

type withString struct {
	N    int32
	Name string
}

type nested struct {
	A [2]struct {
		P *int
	}
}

func TestCheckPOD(t *testing.T) {
	ok := []reflect.Type{
		reflect.TypeFor[float32](), reflect.TypeFor[uint8](), reflect.TypeFor[bool](),
		reflect.TypeFor[[4]float32](), reflect.TypeFor[podParticle](), reflect.TypeFor[complex64](),
	}
	for _, typ := range ok {
		require.NoError(t, checkPOD(typ), "%s", typ)
	}
	bad := map[reflect.Type]string{
		reflect.TypeFor[*int]():           "*int is a ptr",
		reflect.TypeFor[[]float32]():      "slice",
		reflect.TypeFor[map[int]int]():    "map",
		reflect.TypeFor[string]():         "string",
		reflect.TypeFor[any]():            "interface",
		reflect.TypeFor[func()]():         "func",
		reflect.TypeFor[chan int]():       "chan",
		reflect.TypeFor[unsafe.Pointer](): "unsafe.Pointer",
		reflect.TypeFor[uintptr]():        "uintptr",
		reflect.TypeFor[withString]():     "device.withString.Name is a string",
		reflect.TypeFor[nested]():         "device.nested.A[].P is a ptr",
		reflect.TypeFor[struct{}]():       "size 0",
	}
	for typ, msg := range bad {
		t.Run(typ.String(), func(t *testing.T) {
			err := checkPOD(typ)
			require.Error(t, err)
			require.True(t, errors.Is(err, ErrInvalidArgument))
			require.Contains(t, err.Error(), msg)
			// Cached: the same answer again.
			require.Equal(t, err, checkPOD(typ))
		})
	}
}

func TestUniformBytes(t *testing.T) {
	b, typ, err := uniformBytes(float32(1.5))
	require.NoError(t, err)
	require.Equal(t, reflect.TypeFor[float32](), typ)
	require.Equal(t, []byte{0, 0, 0xc0, 0x3f}, b)

	p := podParticle{Pos: podVec{1, 2, 3}, Mass: 4, ID: 5, Tags: [4]int16{6, 7, 8, 9}}
	b, _, err = uniformBytes(p)
	require.NoError(t, err)
	require.Len(t, b, int(unsafe.Sizeof(p)))
	back := *(*podParticle)(unsafe.Pointer(&b[0]))
	require.Equal(t, p, back)

	_, _, err = uniformBytes("text")
	require.ErrorIs(t, err, ErrInvalidArgument)
	_, _, err = uniformBytes(nil)
	require.ErrorIs(t, err, ErrInvalidArgument)
}

func TestScalarOf(t *testing.T) {
	for _, c := range []struct {
		v     any
		kind  ScalarKind
		bits  uint8
		comps uint8
		ok    bool
	}{
		{float32(0), ScalarFloat, 32, 1, true},
		{float64(0), ScalarFloat, 64, 1, true},
		{int32(0), ScalarInt, 32, 1, true},
		{uint16(0), ScalarUint, 16, 1, true},
		{[3]float32{}, ScalarFloat, 32, 3, true},
		{[4]uint32{}, ScalarUint, 32, 4, true},
		{[5]float32{}, 0, 0, 0, false},
		{podVec{}, 0, 0, 0, false},
	} {
		k, b, n, ok := scalarOf(reflect.TypeOf(c.v))
		require.Equal(t, c.ok, ok, "%T", c.v)
		if ok {
			require.Equal(t, []any{c.kind, c.bits, c.comps}, []any{k, b, n}, "%T", c.v)
		}
	}
}
