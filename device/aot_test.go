package device_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/kernel"
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
		IR: []byte{1}, Signature: "()", ABI: []byte("{not json"),
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
	t.Run("damaged on disk", func(t *testing.T) {
		// A file of a Dir, damaged: an error naming the file, not a
		// kernel that was never saved.
		dir, err := shadercache.NewDir(t.TempDir())
		require.NoError(t, err)
		_, err = device.SaveKernel(dir, "saxpy", f)
		require.NoError(t, err)
		files, err := filepath.Glob(filepath.Join(dir.Path(), "bytecode", "*"))
		require.NoError(t, err)
		require.Len(t, files, 1)
		b, err := os.ReadFile(files[0])
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(files[0], b[:len(b)-7], 0o644))
		_, err = device.LoadKernel(d, dir, "saxpy", saxpySignature)
		require.ErrorIs(t, err, shadercache.ErrBadKernel)
		require.NotErrorIs(t, err, device.ErrKernelNotFound)
		require.ErrorContains(t, err, files[0])
	})
	t.Run("damaged layout", func(t *testing.T) {
		_, err := device.LoadKernel(d, store, "bad-abi", "()")
		require.ErrorIs(t, err, shadercache.ErrBadKernel)
	})
	t.Run("nil store", func(t *testing.T) {
		_, err := device.LoadKernel(d, nil, "saxpy", saxpySignature)
		require.ErrorIs(t, err, device.ErrInvalidArgument)
	})
	t.Run("nil device", func(t *testing.T) {
		_, err := device.LoadKernel(nil, store, "saxpy", saxpySignature)
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		require.ErrorContains(t, err, `"saxpy"`)
	})
}

// rewrite replaces the record of name in store by edit's change to it, as
// a build step of another program (or another lucent) might have saved it.
func rewrite(t *testing.T, store shadercache.BinaryIO, name, sig string, edit func(*shadercache.Kernel)) {
	t.Helper()
	rec, ok, err := shadercache.LoadKernel(store, name, sig)
	require.NoError(t, err)
	require.True(t, ok)
	edit(&rec)
	require.NoError(t, shadercache.SaveKernel(store, name, rec))
}

// runSaxpy runs k, a saxpy kernel, on d and checks its output.
func runSaxpy(t *testing.T, d *device.Device, k *device.Kernel) {
	t.Helper()
	const n = 300
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i), 1
	}
	x, y := upload(t, d, xs), upload(t, d, ys)
	run(t, d, k.Dispatch([3]uint32{n}, float32(3), x, y))
	got := download(t, d, y)
	for i := range got {
		require.InDelta(t, 3*xs[i]+1, got[i], 1e-5, "element %d", i)
	}
}

func openCPU(t *testing.T) *device.Device {
	t.Helper()
	d, err := device.Open(context.Background(), "cpu", device.WithValidation())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d
}

// TestAOTRecord: a saved kernel's record holds its IR and the Vulkan
// backend's artefact, and nothing else.
func TestAOTRecord(t *testing.T) {
	store := shadercache.NewMemory()
	f, err := programs.Saxpy()
	require.NoError(t, err)
	sig, err := device.SaveKernel(store, "saxpy", f)
	require.NoError(t, err)
	rec, ok, err := shadercache.LoadKernel(store, "saxpy", sig)
	require.NoError(t, err)
	require.True(t, ok)
	g, err := ir.UnmarshalKernel(rec.IR)
	require.NoError(t, err)
	require.Equal(t, f.Hash(), g.Hash())
	require.Len(t, rec.Artefacts, 1)
	require.Equal(t, "vulkan", rec.Artefacts[0].Backend)
	// The codegen version, then the module's little-endian words.
	require.Equal(t, []byte{0x03, 0x02, 0x23, 0x07}, rec.Artefacts[0].Data[4:8])
	require.NotContains(t, string(rec.ABI), `"IR"`, "the IR is the record's own")
}

// TestAOTIROnly: a record with the IR and no artefact, as a build where
// only the cpu backend exists saves it, loads on Vulkan (compiled from the
// IR) and on cpu, and runs.
func TestAOTIROnly(t *testing.T) {
	store := shadercache.NewMemory()
	f, err := programs.Saxpy()
	require.NoError(t, err)
	sig, err := device.SaveKernel(store, "saxpy", f)
	require.NoError(t, err)
	rewrite(t, store, "saxpy", sig, func(k *shadercache.Kernel) { k.Artefacts = nil })

	for name, d := range map[string]*device.Device{"vulkan": openVulkan(t), "cpu": openCPU(t)} {
		t.Run(name, func(t *testing.T) {
			k, err := device.LoadKernel(d, store, "saxpy", sig)
			require.NoError(t, err)
			defer func() { require.NoError(t, k.Close()) }()
			require.NotNil(t, k.Function(), "compiled from the IR")
			require.Equal(t, sig, device.SignatureText(k.Signature()))
			runSaxpy(t, d, k)
		})
	}
}

// TestAOTOtherBackendsArtefact: an artefact of another backend is ignored,
// whatever it holds; the device compiles the IR.
func TestAOTOtherBackendsArtefact(t *testing.T) {
	store := shadercache.NewMemory()
	f, err := programs.Saxpy()
	require.NoError(t, err)
	sig, err := device.SaveKernel(store, "saxpy", f)
	require.NoError(t, err)

	t.Run("cpu ignores the Vulkan artefact", func(t *testing.T) {
		d := openCPU(t)
		k, err := device.LoadKernel(d, store, "saxpy", sig)
		require.NoError(t, err)
		defer func() { require.NoError(t, k.Close()) }()
		require.NotNil(t, k.Function(), "compiled from the IR")
		runSaxpy(t, d, k)
	})
	t.Run("vulkan ignores another backend's", func(t *testing.T) {
		rewrite(t, store, "saxpy", sig, func(k *shadercache.Kernel) {
			k.Artefacts = []shadercache.Artefact{{Backend: "metal", Data: []byte("not SPIR-V at all")}}
		})
		d := openVulkan(t)
		k, err := device.LoadKernel(d, store, "saxpy", sig)
		require.NoError(t, err)
		defer func() { require.NoError(t, k.Close()) }()
		require.NotNil(t, k.Function(), "compiled from the IR")
		runSaxpy(t, d, k)
	})
}

// TestAOTVulkanArtefact: the Vulkan backend uses its artefact when this
// build's codegen made it, compiles the IR when another version did, and
// refuses bytes that are not a module.
func TestAOTVulkanArtefact(t *testing.T) {
	f, err := programs.Saxpy()
	require.NoError(t, err)
	d := openVulkan(t)
	saved := func(t *testing.T, edit func([]byte) []byte) (shadercache.BinaryIO, string) {
		store := shadercache.NewMemory()
		sig, err := device.SaveKernel(store, "saxpy", f)
		require.NoError(t, err)
		if edit != nil {
			rewrite(t, store, "saxpy", sig, func(k *shadercache.Kernel) {
				k.Artefacts[0].Data = edit(bytes.Clone(k.Artefacts[0].Data))
			})
		}
		return store, sig
	}

	t.Run("current", func(t *testing.T) {
		store, sig := saved(t, nil)
		k, err := device.LoadKernel(d, store, "saxpy", sig)
		require.NoError(t, err)
		defer func() { require.NoError(t, k.Close()) }()
		require.Nil(t, k.Function(), "built from the artefact")
		require.Equal(t, uint32(0x07230203), k.SPIRV()[0])
		runSaxpy(t, d, k)
	})
	t.Run("another codegen version", func(t *testing.T) {
		store, sig := saved(t, func(b []byte) []byte { b[0]++; return b })
		k, err := device.LoadKernel(d, store, "saxpy", sig)
		require.NoError(t, err)
		defer func() { require.NoError(t, k.Close()) }()
		require.NotNil(t, k.Function(), "compiled from the IR")
		runSaxpy(t, d, k)
	})
	for why, edit := range map[string]func([]byte) []byte{
		"not SPIR-V":   func(b []byte) []byte { b[4] ^= 1; return b },
		"truncated":    func(b []byte) []byte { return b[:len(b)-2] },
		"version only": func(b []byte) []byte { return b[:4] },
		"empty":        func([]byte) []byte { return nil },
	} {
		t.Run(why, func(t *testing.T) {
			store, sig := saved(t, edit)
			_, err := device.LoadKernel(d, store, "saxpy", sig)
			require.ErrorIs(t, err, shadercache.ErrBadKernel)
			require.ErrorContains(t, err, `"saxpy"`)
			require.ErrorContains(t, err, "vulkan artefact")
			require.ErrorContains(t, err, "not a SPIR-V artefact")
		})
	}
}

// TestAOTWholeBlocks: a loaded kernel with barriers refuses a size that is
// not a multiple of its block, as a compiled one does.
func TestAOTWholeBlocks(t *testing.T) {
	store := shadercache.NewMemory()
	f, err := programs.Reduce()
	require.NoError(t, err)
	sig, err := device.SaveKernel(store, "reduce", f)
	require.NoError(t, err)
	d := openVulkan(t)
	k, err := device.LoadKernel(d, store, "reduce", sig)
	require.NoError(t, err)
	defer func() { require.NoError(t, k.Close()) }()
	require.Nil(t, k.Function(), "built from the artefact")
	in := upload(t, d, make([]uint32, 2*programs.ReduceBlock))
	out := upload(t, d, make([]uint32, 2))
	s := newStream(t, d, device.StreamCompute)
	err = s.Submit(k.Dispatch([3]uint32{programs.ReduceBlock + 1}, in, out))
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "uses barriers")
	require.NoError(t, s.Submit(k.Dispatch([3]uint32{2 * programs.ReduceBlock}, in, out)))
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

// prebuiltSaxpy is programs.Saxpy as a launcher embeds it, with the Vulkan
// artefact of the kernel that art compiles (Saxpy where art is nil) and
// the version bytes edited by version (none where nil).
func prebuiltSaxpy(t *testing.T, art func() (*ir.Function, error), version func([]byte)) device.Prebuilt {
	t.Helper()
	f, err := programs.Saxpy()
	require.NoError(t, err)
	sig, _, err := device.KernelSignature(f)
	require.NoError(t, err)
	blob, err := ir.MarshalKernel(f)
	require.NoError(t, err)
	if art == nil {
		art = programs.Saxpy
	}
	g, err := art()
	require.NoError(t, err)
	store := shadercache.NewMemory()
	text, err := device.SaveKernel(store, "art", g)
	require.NoError(t, err)
	require.Equal(t, device.SignatureText(sig), text)
	rec, ok, err := shadercache.LoadKernel(store, "art", text)
	require.NoError(t, err)
	require.True(t, ok)
	data := bytes.Clone(rec.Artefacts[0].Data)
	if version != nil {
		version(data[:4])
	}
	return device.Prebuilt{Name: "kern.Saxpy", Signature: sig, IR: blob, Artefacts: map[string][]byte{"vulkan": data}}
}

// saxpyMinus has Saxpy's signature and computes y = a*x - y: the module a
// stale artefact holds in TestLoadPrebuilt, which must not run.
func saxpyMinus() (*ir.Function, error) {
	return dsl.Kernel1D(256, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		y.Write(i, a.Mul(x.Read(i)).Sub(y.Read(i)))
	}, "a", "x", "y")
}

// TestLoadPrebuilt: a kernel compiled into a program (a lucentc launcher)
// takes LoadKernel's path: its Vulkan artefact runs where this build's
// codegen made it (no codegen at run time), and where another version made
// it the artefact is ignored, logged, and the IR compiled; cpu compiles the
// IR with the host function.
func TestLoadPrebuilt(t *testing.T) {
	const stale = "INFO device: ahead-of-time artefact of another code generator version, compiling the kernel's IR"
	open := func(t *testing.T) (*device.Device, *recordHandler) {
		logs := &recordHandler{}
		return openVulkan(t, device.WithShaderCache(shadercache.Disabled), device.WithLogger(slog.New(logs))), logs
	}
	t.Run("current", func(t *testing.T) {
		d, logs := open(t)
		k, err := device.LoadPrebuilt(d, prebuiltSaxpy(t, nil, nil))
		require.NoError(t, err)
		defer func() { require.NoError(t, k.Close()) }()
		require.Nil(t, k.Function(), "built from the artefact")
		require.Zero(t, d.CacheStats().Shader.Misses, "codegen ran")
		require.Zero(t, logs.count(stale))
		runSaxpy(t, d, k)
	})
	for name, edit := range map[string]func([]byte){
		"older codegen": func(v []byte) { v[0]-- },
		"newer codegen": func(v []byte) { v[0]++ },
		"version zero":  func(v []byte) { clear(v) },
	} {
		t.Run(name, func(t *testing.T) {
			d, logs := open(t)
			// The stale artefact's module computes a*x - y: used, it
			// would fail runSaxpy.
			k, err := device.LoadPrebuilt(d, prebuiltSaxpy(t, saxpyMinus, edit))
			require.NoError(t, err)
			defer func() { require.NoError(t, k.Close()) }()
			require.NotNil(t, k.Function(), "compiled from the IR")
			require.Equal(t, uint64(1), d.CacheStats().Shader.Misses, "codegen runs once")
			require.Equal(t, 1, logs.count(stale))
			runSaxpy(t, d, k)
		})
	}
	t.Run("cpu", func(t *testing.T) {
		d := openCPU(t)
		p := prebuiltSaxpy(t, nil, nil)
		called := false
		p.Host = func(ctx context.Context, size [3]uint32, args [][]byte) error {
			called = true
			a, err := kernel.HostValue[float32](args[0])
			if err != nil {
				return err
			}
			x, err := kernel.HostSlice[float32](args[1])
			if err != nil {
				return err
			}
			y, err := kernel.HostSlice[float32](args[2])
			if err != nil {
				return err
			}
			programs.SaxpyRef(a, x, y)
			return nil
		}
		k, err := device.LoadPrebuilt(d, p)
		require.NoError(t, err)
		defer func() { require.NoError(t, k.Close()) }()
		require.NotNil(t, k.Function(), "compiled from the IR")
		runSaxpy(t, d, k)
		if os.Getenv(device.EnvRace) == "1" {
			// The race detector runs the IR, never a compiled Go function.
			require.False(t, called, "the host function ran under the race detector")
			return
		}
		require.True(t, called, "the host function ran")
	})
}

// TestLoadPrebuiltErrors: what does not decode, or disagrees with the
// signature, is an error naming the kernel, not a crash.
func TestLoadPrebuiltErrors(t *testing.T) {
	d := openVulkan(t)
	t.Run("nil device", func(t *testing.T) {
		_, err := device.LoadPrebuilt(nil, prebuiltSaxpy(t, nil, nil))
		require.ErrorIs(t, err, device.ErrInvalidArgument)
		require.ErrorContains(t, err, `"kern.Saxpy"`)
	})
	t.Run("bad artefact", func(t *testing.T) {
		p := prebuiltSaxpy(t, nil, nil)
		p.Artefacts["vulkan"] = p.Artefacts["vulkan"][:6]
		_, err := device.LoadPrebuilt(d, p)
		require.ErrorIs(t, err, shadercache.ErrBadKernel)
		require.ErrorContains(t, err, `LoadPrebuilt "kern.Saxpy": the vulkan artefact`)
	})
	t.Run("bad IR", func(t *testing.T) {
		p := prebuiltSaxpy(t, nil, nil)
		p.Artefacts, p.IR = nil, []byte("not IR")
		_, err := device.LoadPrebuilt(d, p)
		require.ErrorIs(t, err, shadercache.ErrBadKernel)
		require.ErrorContains(t, err, `"kern.Saxpy"`)
	})
	t.Run("IR of another signature", func(t *testing.T) {
		p := prebuiltSaxpy(t, nil, nil)
		p.Artefacts = nil
		p.Signature.Args = p.Signature.Args[:2]
		_, err := device.LoadPrebuilt(d, p)
		require.ErrorIs(t, err, shadercache.ErrBadKernel)
		require.ErrorContains(t, err, "the IR has signature "+saxpySignature)
	})
}
