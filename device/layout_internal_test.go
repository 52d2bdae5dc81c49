package device

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

type layoutInner struct {
	A   uint8
	B   uint16
	Pos ir.Float3
}

type layoutOuter struct {
	M     ir.Float4x4
	In    [2]layoutInner
	N     int64
	Tail  [3]int32
	Tail2 int32
}

// TestLayoutKernelMatchesGo: the layout a kernel type has (from the Go type
// via ir.TypeOf, as kernels declare their structs) is the Go type's, runs
// merged alike: vectors, matrices and arrays of scalars one run each,
// adjacent fields of one type merged, padding between runs.
func TestLayoutKernelMatchesGo(t *testing.T) {
	for _, rt := range []reflect.Type{
		reflect.TypeFor[layoutInner](), reflect.TypeFor[layoutOuter](), reflect.TypeFor[ir.Float4x4](),
		reflect.TypeFor[[5]float32](), reflect.TypeFor[podParticle](),
	} {
		kt, err := ir.TypeOf(rt)
		require.NoError(t, err)
		k := kernelLayout(kt)
		require.NotNil(t, k, "%s", rt)
		require.Equal(t, k, goLayout(rt), "%s", rt)
		require.NoError(t, checkLayout(Argument{Layout: k}, rt), "%s", rt)
	}
	f32 := func(off, n uint32) Leaf { return Leaf{Byte: off, Scalar: ScalarFloat, ScalarBits: 32, Count: n} }
	i32 := func(off, n uint32) Leaf { return Leaf{Byte: off, Scalar: ScalarInt, ScalarBits: 32, Count: n} }
	inner := func(off uint32) []Leaf {
		return []Leaf{{Byte: off, Scalar: ScalarUint, ScalarBits: 8, Count: 1}, {Byte: off + 2, Scalar: ScalarUint, ScalarBits: 16, Count: 1}, f32(off+4, 3)}
	}
	want := append([]Leaf{f32(0, 16)}, inner(64)...)
	want = append(want, inner(80)...)
	want = append(want, Leaf{Byte: 96, Scalar: ScalarInt, ScalarBits: 64, Count: 1}, i32(104, 4))
	require.Equal(t, want, goLayout(reflect.TypeFor[layoutOuter]()))
	require.Equal(t, "{[16]float32@0, uint8@64, uint16@66, [3]float32@68, uint8@80, uint16@82, [3]float32@84, int64@96, [4]int32@104}", layoutText(want))

	// Scalars and vectors say all by their Scalar; no layout.
	require.Nil(t, kernelLayout(ir.Vector(ir.TF32, 3)))
	require.Nil(t, kernelLayout(ir.TU32))
}

// TestLayoutMismatch: the first scalar that differs is named by its byte,
// both types and the Go field; padding on either side counts.
func TestLayoutMismatch(t *testing.T) {
	kernelOf := func(rt reflect.Type) Argument {
		kt, err := ir.TypeOf(rt)
		require.NoError(t, err)
		return Argument{Layout: kernelLayout(kt)}
	}
	type want struct {
		A [3]float32
		B uint32
	}
	type floats struct{ A [4]float32 }
	type padded struct {
		A [3]float32
		B uint16
		C uint16
	}
	type nested struct {
		A [2]float32
		N struct {
			X float32
			Y int32
		}
	}
	a := kernelOf(reflect.TypeFor[want]())
	require.EqualError(t, checkLayout(a, reflect.TypeFor[floats]()), "byte 12: kernel expects uint32, got float32 (device.floats.A[3])")
	require.EqualError(t, checkLayout(a, reflect.TypeFor[padded]()), "byte 12: kernel expects uint32, got uint16 (device.padded.B)")
	require.EqualError(t, checkLayout(a, reflect.TypeFor[nested]()), "byte 12: kernel expects uint32, got int32 (device.nested.N.Y)")
	type gap struct {
		A [3]float32
		B uint8
		C uint8
		D uint16
	}
	type bytes struct {
		A [3]float32
		B [2]uint16
	}
	b := kernelOf(reflect.TypeFor[gap]())
	require.EqualError(t, checkLayout(b, reflect.TypeFor[bytes]()), "byte 12: kernel expects uint8, got uint16 (device.bytes.B[0])")
	type holey struct {
		A [3]float32
		B uint8
		D uint16
	}
	require.EqualError(t, checkLayout(b, reflect.TypeFor[holey]()), "byte 13: kernel expects uint8, device.holey has padding there")
	h := kernelOf(reflect.TypeFor[holey]())
	require.EqualError(t, checkLayout(h, reflect.TypeFor[gap]()), "byte 13: kernel expects padding, got uint8 (device.gap.C)")

	// A float16 is a Go 16-bit integer (Go has no float16).
	half, err := ir.StructType("h", []ir.Field{{Name: "X", Type: ir.TF16}, {Name: "Y", Type: ir.TU16, Offset: 2}}, 4)
	require.NoError(t, err)
	type bits struct{ X, Y uint16 }
	require.NoError(t, checkLayout(Argument{Layout: kernelLayout(half)}, reflect.TypeFor[bits]()))
	require.Error(t, checkLayout(Argument{Layout: kernelLayout(half)}, reflect.TypeFor[[2]int32]()))
}

// TestLayoutBounded: a type of more than MaxLayoutLeaves runs has no
// layout (its size alone is checked), while a large array of one scalar is
// one run.
func TestLayoutBounded(t *testing.T) {
	type pair struct {
		F float32
		I int32
	}
	big := reflect.TypeFor[[MaxLayoutLeaves]pair]()
	kt, err := ir.TypeOf(big)
	require.NoError(t, err)
	require.Nil(t, kernelLayout(kt))
	require.Nil(t, goLayout(big))
	small := reflect.TypeFor[[MaxLayoutLeaves / 2]pair]()
	require.Len(t, goLayout(small), MaxLayoutLeaves)
	wide := reflect.TypeFor[struct{ A [1 << 16]float32 }]()
	require.Equal(t, []Leaf{{Byte: 0, Scalar: ScalarFloat, ScalarBits: 32, Count: 1 << 16}}, goLayout(wide))
}

// TestSameSignatureText: layouts are compared where both texts have them;
// a struct without one matches any of its size.
func TestSameSignatureText(t *testing.T) {
	const (
		a   = "(struct(8 bytes){float32@0, int32@4}, Buffer[struct(4 bytes){float32@0}] read)"
		b   = "(struct(8 bytes){int32@0, float32@4}, Buffer[struct(4 bytes){float32@0}] read)"
		old = "(struct(8 bytes), Buffer[struct(4 bytes)] read)"
	)
	require.True(t, sameSignatureText(a, a))
	require.False(t, sameSignatureText(a, b))
	require.True(t, sameSignatureText(a, old))
	require.True(t, sameSignatureText(old, b))
	require.True(t, sameSignatureText("(struct(8 bytes){float32@0, int32@4}, Buffer[struct(4 bytes)] read)", a))
	require.False(t, sameSignatureText("(struct(8 bytes){int32@0, float32@4}, Buffer[struct(4 bytes)] read)", a))
	require.False(t, sameSignatureText(old, "(struct(8 bytes), Buffer[struct(4 bytes)] write)"))
	require.False(t, sameSignatureText(old, "(struct(8 bytes), Buffer[struct(8 bytes)] read)"))
	require.False(t, sameSignatureText(old, "(struct(8 bytes))"))
}
