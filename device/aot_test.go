package device_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/shadercache"
)

const saxpySignature = "(float32, Buffer[float32] read, Buffer[float32] read-write)"

func TestAOTRoundTrip(t *testing.T) {
	store, err := shadercache.NewDir(t.TempDir())
	require.NoError(t, err)
	f, err := programs.Saxpy()
	require.NoError(t, err)
	sig, err := device.SaveKernel(store, "saxpy", f) // no device involved
	require.NoError(t, err)
	require.Equal(t, saxpySignature, sig)

	d := openVulkan(t)
	k, err := device.LoadKernel(d, store, "saxpy", sig)
	require.NoError(t, err)
	defer func() { require.NoError(t, k.Close()) }()
	require.Nil(t, k.Function())

	const n = 777
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i)/7, float32(n-i)
	}
	x := newBuffer[float32](t, d, n)
	y := newBuffer[float32](t, d, n)
	got := make([]float32, n)
	s := newStream(t, d, device.StreamCompute)
	require.NoError(t, s.Submit(x.Upload(xs), y.Upload(ys), k.Dispatch([3]uint32{n}, float32(2.5), x, y), y.Download(got)))
	require.NoError(t, s.Synchronize(context.Background()))
	programs.SaxpyRef(2.5, xs, ys)
	for i := range ys {
		require.InDelta(t, ys[i], got[i], 1e-3, "element %d", i)
	}
	// The loaded kernel checks its arguments like a compiled one.
	require.ErrorIs(t, s.Submit(k.Dispatch([3]uint32{n}, x, x, y)), device.ErrInvalidArgument)
}

func TestAOTLoadErrors(t *testing.T) {
	store := shadercache.NewMemory()
	f, err := programs.Saxpy()
	require.NoError(t, err)
	_, err = device.SaveKernel(store, "saxpy", f)
	require.NoError(t, err)
	require.NoError(t, shadercache.SaveKernel(store, "bad-abi", shadercache.Kernel{
		SPIRV: []uint32{0x07230203, 0x00010500, 0, 1, 0}, Signature: "()", ABI: []byte("{not json"),
	}))
	d := openVulkan(t)

	t.Run("wrong signature", func(t *testing.T) {
		const want = "(float32, Buffer[int32] read, Buffer[float32] read-write)"
		_, err := device.LoadKernel(d, store, "saxpy", want)
		require.ErrorIs(t, err, shadercache.ErrSignatureMismatch)
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		require.ErrorContains(t, err, saxpySignature)
		require.ErrorContains(t, err, want)
	})
	t.Run("missing", func(t *testing.T) {
		_, err := device.LoadKernel(d, store, "mandelbrot", saxpySignature)
		require.ErrorIs(t, err, device.ErrKernelNotFound)
		require.ErrorContains(t, err, `"mandelbrot"`)
	})
	t.Run("damaged layout", func(t *testing.T) {
		_, err := device.LoadKernel(d, store, "bad-abi", "()")
		require.ErrorIs(t, err, shadercache.ErrBadKernel)
	})
	t.Run("nil store", func(t *testing.T) {
		_, err := device.LoadKernel(d, nil, "saxpy", saxpySignature)
		require.ErrorIs(t, err, device.ErrInvalidArgument)
	})
}

func TestAOTSaveErrors(t *testing.T) {
	store := shadercache.NewMemory()
	captures, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		s := dsl.Capture[dsl.F32](k, float32(2))
		out.Write(k.DispatchID().X(), s)
	})
	require.NoError(t, err)
	_, err = device.SaveKernel(store, "captures", captures)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "argument 1")
	require.ErrorContains(t, err, "captures a host resource")

	_, err = device.SaveKernel(store, "nil", nil)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	f, err := programs.Saxpy()
	require.NoError(t, err)
	_, err = device.SaveKernel(nil, "saxpy", f)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	_, err = device.SaveKernel(store, "", f)
	require.ErrorIs(t, err, shadercache.ErrInvalidName)
	_, ok, err := store.ReadBytecode("captures")
	require.NoError(t, err)
	require.False(t, ok, "nothing stored for a rejected kernel")
}

func TestSignatureText(t *testing.T) {
	cases := map[string]struct {
		sig  device.Signature
		want string
	}{
		"empty": {device.Signature{}, "()"},
		"vector uniform and struct buffer": {device.Signature{Args: []device.Argument{
			{Kind: device.ArgUniform, Scalar: device.ScalarUint, ScalarBits: 32, Components: 3, Size: 12},
			{Kind: device.ArgBuffer, ElemSize: 24, Access: device.Write},
			{Kind: device.ArgUniform, Scalar: device.ScalarBool, ScalarBits: 32, Components: 1, Size: 4},
		}}, "(vec3<uint32>, Buffer[struct(24 bytes)] write, bool)"},
		"texture": {device.Signature{Args: []device.Argument{
			{Kind: device.ArgTexture, Dim: 2, Format: device.RGBA32Float, Access: device.ReadWrite},
		}}, "(Texture2D[" + device.RGBA32Float.String() + "] read-write)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) { require.Equal(t, c.want, device.SignatureText(c.sig)) })
	}
	// Names do not take part: renaming a parameter keeps the signature.
	named := device.Signature{Args: []device.Argument{{Name: "n", Kind: device.ArgUniform, Scalar: device.ScalarInt, ScalarBits: 32, Components: 1}}}
	require.Equal(t, "(int32)", device.SignatureText(named))
}

// A build step saves a kernel by name; the program loads it by name and
// signature, without the kernel's source or the compiler's work at run time.
func ExampleLoadKernel() {
	dir, err := os.MkdirTemp("", "lucent-aot")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := shadercache.NewDir(dir)
	if err != nil {
		log.Fatal(err)
	}

	// Build step: no device needed.
	f, err := programs.Saxpy()
	if err != nil {
		log.Fatal(err)
	}
	sig, err := device.SaveKernel(store, "saxpy", f)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sig)

	// Run time.
	d, err := device.Open(context.Background(), "vulkan")
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	k, err := device.LoadKernel(d, store, "saxpy", "(float32, Buffer[float32] read, Buffer[float32] read-write)")
	if err != nil {
		log.Fatal(err)
	}
	defer k.Close()
	x, _ := device.NewBuffer[float32](d, 4)
	defer x.Close()
	y, _ := device.NewBuffer[float32](d, 4)
	defer y.Close()
	s, _ := d.NewStream(device.StreamCompute)
	defer s.Close()
	out := make([]float32, 4)
	if err := s.Submit(x.Upload([]float32{1, 2, 3, 4}), y.Upload([]float32{10, 10, 10, 10}),
		k.Dispatch([3]uint32{4}, float32(2), x, y), y.Download(out)); err != nil {
		log.Fatal(err)
	}
	if err := s.Synchronize(context.Background()); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out)

	_, err = device.LoadKernel(d, store, "saxpy", "(float32, Buffer[float32] read)")
	fmt.Println(err != nil)
	// Output:
	// (float32, Buffer[float32] read, Buffer[float32] read-write)
	// [12 14 16 18]
	// true
}
