package device_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/shadercache"
)

// scaleOff is the struct the layout tests' kernels take; offScale has its
// size and its fields swapped, so a kernel of one reads the other wrongly.
type scaleOff struct {
	Scale float32
	Off   int32
}

type offScale struct {
	Off   int32
	Scale float32
}

// affineKernel writes out[i] = p.Scale*in[i].Scale + p.Off + in[i].Off with
// p and in's elements of struct type S.
func affineKernel[S any](t *testing.T) *ir.Function {
	t.Helper()
	f, err := dsl.Kernel1D(64, func(k *dsl.K, p dsl.Struct[S], in dsl.Buf[dsl.Struct[S]], out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		e := in.Read(i)
		scale := dsl.Get[dsl.F32](p, "Scale").Mul(dsl.Get[dsl.F32](e, "Scale"))
		off := dsl.Get[dsl.I32](p, "Off").Add(dsl.Get[dsl.I32](e, "Off"))
		out.Write(i, scale.Add(dsl.Convert[float32](off)))
	}, "p", "in", "out")
	require.NoError(t, err)
	return f
}

// TestStructLayoutDispatch: a struct argument is checked field by field
// against the Go type given at dispatch, not by size alone: a value or a
// Buffer[T] of a struct of the kernel's size with its fields swapped is
// refused, naming the argument, the byte and the Go field.
func TestStructLayoutDispatch(t *testing.T) {
	d := openDevice(t)
	k, err := device.Compile(d, affineKernel[scaleOff](t))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, k.Close()) })

	const n = 4
	in := upload(t, d, []scaleOff{{1, 10}, {2, 20}, {3, 30}, {4, 40}})
	out := upload(t, d, make([]float32, n))
	run(t, d, k.Dispatch([3]uint32{n}, scaleOff{Scale: 2, Off: 5}, in, out))
	require.Equal(t, []float32{17, 29, 41, 53}, download(t, d, out))

	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	// Field names need not match: a struct of other names, same layout.
	type renamed struct {
		S float32
		O int32
	}
	require.NoError(t, s.Submit(k.Dispatch([3]uint32{n}, renamed{2, 5}, in, out)))

	err = s.Submit(k.Dispatch([3]uint32{n}, offScale{Off: 5, Scale: 2}, in, out))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "argument 0 (p): invalid argument: byte 0: kernel expects float32, got int32 (device_test.offScale.Off)")

	swapped := upload(t, d, []offScale{{10, 1}, {20, 2}, {30, 3}, {40, 4}})
	err = s.Submit(k.Dispatch([3]uint32{n}, scaleOff{Scale: 2, Off: 5}, swapped, out))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "argument 1 (in): invalid argument: buffer element: byte 0: kernel expects float32, got int32 (device_test.offScale.Off)")

	// A Go type of the struct's size holding other scalars is refused too.
	err = s.Submit(k.Dispatch([3]uint32{n}, uint64(1), in, out))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "argument 0 (p): invalid argument: byte 0: kernel expects float32, got uint64 (uint64)")
}

// TestStructLayoutAOT: the signature text of an ahead-of-time kernel
// carries its structs' layouts, so a kernel saved with its struct's fields
// reordered since the program was written is refused; a text or record
// made before signatures carried layouts is checked by size, as it was.
func TestStructLayoutAOT(t *testing.T) {
	store := shadercache.NewMemory()
	saved, err := device.SaveKernel(store, "affine", affineKernel[offScale](t))
	require.NoError(t, err)
	require.Equal(t, "(struct(8 bytes){int32@0, float32@4}, Buffer[struct(8 bytes){int32@0, float32@4}] read, Buffer[float32] write)", saved)
	sig, _, err := device.KernelSignature(affineKernel[scaleOff](t))
	require.NoError(t, err)
	want := device.SignatureText(sig)
	require.Equal(t, "(struct(8 bytes){float32@0, int32@4}, Buffer[struct(8 bytes){float32@0, int32@4}] read, Buffer[float32] write)", want)

	d := openDevice(t)
	_, err = device.LoadKernel(d, store, "affine", want)
	require.ErrorIs(t, err, shadercache.ErrSignatureMismatch)
	require.ErrorContains(t, err, "float32@0")

	// A program's text from before layouts: the sizes agree.
	const old = "(struct(8 bytes), Buffer[struct(8 bytes)] read, Buffer[float32] write)"
	k, err := device.LoadKernel(d, store, "affine", old)
	require.NoError(t, err)
	require.NoError(t, k.Close())
	_, err = device.LoadKernel(d, store, "affine", "(struct(4 bytes), Buffer[struct(8 bytes)] read, Buffer[float32] write)")
	require.ErrorIs(t, err, shadercache.ErrSignatureMismatch)

	// A version 3 record (no layouts) loads with either text.
	rec, ok, err := shadercache.LoadKernel(store, "affine", saved)
	require.NoError(t, err)
	require.True(t, ok)
	var abi struct {
		Version     int
		Signature   device.Signature
		WholeBlocks bool
	}
	require.NoError(t, json.Unmarshal(rec.ABI, &abi))
	require.Equal(t, 4, abi.Version)
	abi.Version = 3
	for i := range abi.Signature.Args {
		abi.Signature.Args[i].Layout = nil
	}
	rec.ABI, err = json.Marshal(abi)
	require.NoError(t, err)
	rec.Signature = device.SignatureText(abi.Signature)
	require.Equal(t, old, rec.Signature)
	require.NoError(t, shadercache.SaveKernel(store, "v3", rec))
	for _, text := range []string{old, want} {
		k, err := device.LoadKernel(d, store, "v3", text)
		require.NoError(t, err, text)
		require.NoError(t, k.Close())
	}
	// Versions before 3 and after this build's are refused.
	for _, v := range []int{2, 5} {
		abi.Version = v
		rec.ABI, err = json.Marshal(abi)
		require.NoError(t, err)
		require.NoError(t, shadercache.SaveKernel(store, "other", rec))
		_, err = device.LoadKernel(d, store, "other", old)
		require.ErrorIs(t, err, shadercache.ErrBadKernel)
		require.ErrorContains(t, err, fmt.Sprintf("signature version %d, this build reads 3 to 4", v))
	}
}

// TestStructLayoutPrebuilt: a launcher's signature carries the layouts, and
// IR whose struct is laid out otherwise is refused; a launcher made before
// signatures carried layouts is checked by size.
func TestStructLayoutPrebuilt(t *testing.T) {
	d := openDevice(t)
	sig, _, err := device.KernelSignature(affineKernel[scaleOff](t))
	require.NoError(t, err)
	require.Equal(t, []device.Leaf{{Byte: 0, Scalar: device.ScalarFloat, ScalarBits: 32, Count: 1}, {Byte: 4, Scalar: device.ScalarInt, ScalarBits: 32, Count: 1}}, sig.Args[0].Layout)
	blob, err := ir.MarshalKernel(affineKernel[offScale](t))
	require.NoError(t, err)
	_, err = device.LoadPrebuilt(d, device.Prebuilt{Name: "kern.Affine", Signature: sig, IR: blob})
	require.ErrorIs(t, err, shadercache.ErrBadKernel)
	require.ErrorContains(t, err, "int32@0")

	for i := range sig.Args {
		sig.Args[i].Layout = nil
	}
	k, err := device.LoadPrebuilt(d, device.Prebuilt{Name: "kern.Affine", Signature: sig, IR: blob})
	require.NoError(t, err)
	require.NoError(t, k.Close())
}
