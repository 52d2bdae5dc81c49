package device_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/shadercache"
)

// scaleKernel builds out[i] = in[i]*c + b: c is baked into the code (each c
// is a different kernel), b is a uniform bound at dispatch.
func scaleKernel(t testing.TB, c float32) *ir.Function {
	t.Helper()
	f, err := dsl.Kernel1D(64, func(k *dsl.K, b dsl.F32, in, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		out.Write(i, in.Read(i).Mul(dsl.F(c)).Add(b))
	})
	require.NoError(t, err)
	return f
}

// checkScale runs k over n elements and compares with the CPU.
func checkScale(t *testing.T, d *device.Device, k *device.Kernel, c, b float32) {
	t.Helper()
	const n = 300
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i) - 100
	}
	bin := newBuffer[float32](t, d, n)
	bout := newBuffer[float32](t, d, n)
	got := make([]float32, n)
	s := newStream(t, d, device.StreamCompute)
	require.NoError(t, s.Submit(bin.Upload(in), k.Dispatch([3]uint32{n}, b, bin, bout), bout.Download(got)))
	require.NoError(t, s.Synchronize(context.Background()))
	for i := range in {
		require.InDelta(t, in[i]*c+b, got[i], 1e-4, "element %d", i)
	}
}

// recordHandler keeps the messages logged at debug level and above.
type recordHandler struct {
	mu   sync.Mutex
	msgs []string
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, r.Level.String()+" "+r.Message)
	return nil
}
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordHandler) WithGroup(string) slog.Handler      { return h }
func (h *recordHandler) count(s string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.msgs {
		if m == s {
			n++
		}
	}
	return n
}

func compileK(t *testing.T, d *device.Device, f *ir.Function, opts ...device.CompileOption) *device.Kernel {
	t.Helper()
	k, err := device.Compile(d, f, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, k.Close()) })
	return k
}

func TestShaderCacheHitAndMiss(t *testing.T) {
	store := shadercache.NewMemory()
	logs := &recordHandler{}
	d := openVulkan(t, device.WithShaderCache(store), device.WithLogger(slog.New(logs)))

	k1 := compileK(t, d, scaleKernel(t, 3))
	require.False(t, k1.CacheHit)
	require.Equal(t, shadercache.Stats{Misses: 1, Writes: 1}, d.CacheStats().Shader)
	checkScale(t, d, k1, 3, 0.5)

	// The same kernel built again (new AST objects, same code): a hit with
	// the very same words, and codegen skipped.
	k2 := compileK(t, d, scaleKernel(t, 3))
	require.True(t, k2.CacheHit)
	require.Zero(t, k2.CodegenTime)
	require.Equal(t, k1.SPIRV(), k2.SPIRV())
	require.Equal(t, shadercache.Stats{Hits: 1, Misses: 1, Writes: 1}, d.CacheStats().Shader)
	checkScale(t, d, k2, 3, -2)

	require.Equal(t, 1, logs.count("DEBUG device: shader cache miss"))
	require.Equal(t, 1, logs.count("DEBUG device: shader cache hit"))

	// A second device on the same store starts its own counts and hits.
	d2 := openVulkan(t, device.WithShaderCache(store))
	k3 := compileK(t, d2, scaleKernel(t, 3))
	require.True(t, k3.CacheHit)
	require.Equal(t, shadercache.Stats{Hits: 1}, d2.CacheStats().Shader)
	checkScale(t, d2, k3, 3, 1)
}

// TestShaderCacheUnwritable opens a device on a cache directory whose
// shader entries cannot be read or written (their subdirectory is a file,
// which stops root too): kernels compile and run, and the log has one
// warning naming the directory and why, not one per kernel.
func TestShaderCacheUnwritable(t *testing.T) {
	root := t.TempDir()
	store, err := shadercache.NewDir(root)
	require.NoError(t, err)
	shaders := filepath.Join(root, "shader")
	require.NoError(t, os.RemoveAll(shaders))
	require.NoError(t, os.WriteFile(shaders, nil, 0o644))
	var logs bytes.Buffer
	d := openVulkan(t, device.WithShaderCache(store), device.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	for c := range 4 {
		k := compileK(t, d, scaleKernel(t, float32(c)))
		require.False(t, k.CacheHit)
		checkScale(t, d, k, float32(c), 1)
	}
	var warnings []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "level=WARN") && strings.Contains(line, "shader cache") {
			warnings = append(warnings, line)
		}
	}
	require.Len(t, warnings, 1, "one warning for the store, not one per kernel:\n%s", logs.String())
	require.Contains(t, warnings[0], "dir="+root)
	require.Contains(t, warnings[0], "not a directory")
	require.Equal(t, uint64(0), d.CacheStats().Shader.Writes)
}

func TestShaderCacheOff(t *testing.T) {
	for name, store := range map[string]shadercache.BinaryIO{"none": nil, "disabled": shadercache.Disabled} {
		t.Run(name, func(t *testing.T) {
			d := openVulkan(t, device.WithShaderCache(store))
			for range 2 {
				k := compileK(t, d, scaleKernel(t, 2))
				require.False(t, k.CacheHit)
				checkScale(t, d, k, 2, 1)
			}
			st := d.CacheStats().Shader
			require.Zero(t, st.Hits)
			if store == nil {
				require.Equal(t, shadercache.Stats{}, st, "no store: nothing looked up")
			} else {
				require.Equal(t, shadercache.Stats{Misses: 2}, st, "every compile misses, nothing is written")
			}
		})
	}
}

// TestShaderCacheKeySensitivity: what changes the code misses, what is bound
// at dispatch does not.
func TestShaderCacheKeySensitivity(t *testing.T) {
	d := openVulkan(t, device.WithShaderCache(shadercache.NewMemory()))
	hit := func(f *ir.Function, opts ...device.CompileOption) bool {
		return compileK(t, d, f, opts...).CacheHit
	}
	require.False(t, hit(scaleKernel(t, 3)))
	require.True(t, hit(scaleKernel(t, 3)), "same kernel")
	require.False(t, hit(scaleKernel(t, 4)), "a different constant is a different kernel")
	require.False(t, hit(scaleKernel(t, 3), device.WithDebugNames()), "debug names change the words")
	require.True(t, hit(scaleKernel(t, 3), device.WithDebugNames()))
	require.True(t, hit(scaleKernel(t, 3), device.WithKernelName("renamed")), "the shader's name is not in the code")

	// Captured resources and values are arguments: another buffer or another
	// value is the same code.
	a := newBuffer[float32](t, d, 4)
	b := newBuffer[float32](t, d, 4)
	capturing := func(buf *device.Buffer[float32], v float32) *ir.Function {
		f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
			lut := dsl.Capture[dsl.Buf[dsl.F32]](k, buf)
			s := dsl.Capture[dsl.F32](k, v)
			i := k.DispatchID().X()
			out.Write(i, lut.Read(i.Rem(dsl.U(4))).Mul(s))
		})
		require.NoError(t, err)
		return f
	}
	require.False(t, hit(capturing(a, 1)))
	require.True(t, hit(capturing(b, 1)), "another captured buffer")
	require.True(t, hit(capturing(a, 7)), "another captured uniform value")

}

// flakyStore returns damaged shader cache records: the device must compile
// again, rewrite the entry and still compute the right result.
type flakyStore struct {
	shadercache.BinaryIO
	mu      sync.Mutex
	damage  func([]byte) []byte
	written []byte
}

func (s *flakyStore) ReadShaderCache(k shadercache.Key) ([]byte, bool, error) {
	b, ok, err := s.BinaryIO.ReadShaderCache(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok && s.damage != nil {
		b = s.damage(b)
		s.damage = nil
	}
	return b, ok, err
}

func (s *flakyStore) WriteShaderCache(k shadercache.Key, b []byte) error {
	s.mu.Lock()
	s.written = append([]byte(nil), b...)
	s.mu.Unlock()
	return s.BinaryIO.WriteShaderCache(k, b)
}

// lastWrite returns the record the store was last asked to write.
func (s *flakyStore) lastWrite() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written
}

func (s *flakyStore) setDamage(f func([]byte) []byte) {
	s.mu.Lock()
	s.damage = f
	s.mu.Unlock()
}

// TestShaderCacheRecordTampered hands Compile records that hold well-formed
// SPIR-V, but not the kernel's: the store is a user's own and checks nothing,
// so only the record's own checksum and key stand between them and the driver.
func TestShaderCacheRecordTampered(t *testing.T) {
	three := binary.LittleEndian.AppendUint32(nil, math.Float32bits(3))
	five := binary.LittleEndian.AppendUint32(nil, math.Float32bits(5))
	cases := map[string]func(t *testing.T, other []byte) func([]byte) []byte{
		"constant changed": func(t *testing.T, _ []byte) func([]byte) []byte {
			return func(b []byte) []byte {
				i := bytes.Index(b, three)
				require.GreaterOrEqual(t, i, 0, "the constant 3 is in the record")
				copy(b[i:], five)
				return b
			}
		},
		"another kernel's record": func(t *testing.T, other []byte) func([]byte) []byte {
			return func([]byte) []byte { return bytes.Clone(other) }
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			store := &flakyStore{BinaryIO: shadercache.NewMemory()}
			logs := &recordHandler{}
			d := openVulkan(t, device.WithShaderCache(store), device.WithLogger(slog.New(logs)))
			compileK(t, d, scaleKernel(t, 5))
			other := store.lastWrite()
			first := compileK(t, d, scaleKernel(t, 3))
			store.setDamage(damage(t, other))
			k := compileK(t, d, scaleKernel(t, 3))
			require.False(t, k.CacheHit)
			require.Equal(t, first.SPIRV(), k.SPIRV())
			checkScale(t, d, k, 3, 1)
			require.Equal(t, shadercache.Stats{Misses: 3, Damaged: 1, Writes: 3}, d.CacheStats().Shader)
			require.Equal(t, 1, logs.count("WARN device: shader cache entry unusable, compiling again"))
			require.True(t, compileK(t, d, scaleKernel(t, 3)).CacheHit, "the entry was rewritten")
		})
	}
}

func TestShaderCacheRecordDamage(t *testing.T) {
	cases := map[string]func([]byte) []byte{
		"truncated":     func(b []byte) []byte { return b[:len(b)/2+1] },
		"too short":     func(b []byte) []byte { return b[:8] },
		"empty":         func([]byte) []byte { return nil },
		"bad magic":     func(b []byte) []byte { b[0] ^= 0xff; return b },
		"schema":        func(b []byte) []byte { b[16] = 1; return b },
		"zero id bound": func(b []byte) []byte { clear(b[12:16]); return b },
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			store := &flakyStore{BinaryIO: shadercache.NewMemory()}
			d := openVulkan(t, device.WithShaderCache(store), device.WithLogger(slog.New(slog.DiscardHandler)))
			first := compileK(t, d, scaleKernel(t, 3))
			store.mu.Lock()
			store.damage = damage
			store.mu.Unlock()
			k := compileK(t, d, scaleKernel(t, 3))
			require.False(t, k.CacheHit)
			require.Equal(t, first.SPIRV(), k.SPIRV())
			checkScale(t, d, k, 3, 1)
			require.Equal(t, shadercache.Stats{Misses: 2, Damaged: 1, Writes: 2}, d.CacheStats().Shader)
			require.True(t, compileK(t, d, scaleKernel(t, 3)).CacheHit, "the entry was rewritten")
		})
	}
}

// TestShaderCacheFileDamage damages the files of a directory store between
// two processes' worth of devices.
func TestShaderCacheFileDamage(t *testing.T) {
	cases := map[string]func(t *testing.T, path string){
		"truncated": func(t *testing.T, path string) { require.NoError(t, os.Truncate(path, 30)) },
		"flipped byte": func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			b[len(b)-40] ^= 0x10
			require.NoError(t, os.WriteFile(path, b, 0o644))
		},
		"wrong version": func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			b[4]++ // the entry's format version
			require.NoError(t, os.WriteFile(path, b, 0o644))
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			open := func() (*device.Device, *shadercache.Dir) {
				store, err := shadercache.NewDir(root, shadercache.WithLogger(slog.New(slog.DiscardHandler)))
				require.NoError(t, err)
				return openVulkan(t, device.WithShaderCache(store)), store
			}
			d1, _ := open()
			k1 := compileK(t, d1, scaleKernel(t, 6))
			files, err := filepath.Glob(filepath.Join(root, "shader", "*"))
			require.NoError(t, err)
			require.Len(t, files, 1, "one shader entry")
			damage(t, files[0])

			d2, store := open()
			k2 := compileK(t, d2, scaleKernel(t, 6))
			require.False(t, k2.CacheHit)
			require.Equal(t, k1.SPIRV(), k2.SPIRV())
			checkScale(t, d2, k2, 6, -1)
			require.Equal(t, uint64(1), store.Stats().Damaged)
			require.Equal(t, shadercache.Stats{Misses: 1, Writes: 1}, d2.CacheStats().Shader)

			d3, _ := open()
			k3 := compileK(t, d3, scaleKernel(t, 6))
			require.True(t, k3.CacheHit, "the entry was rewritten")
			checkScale(t, d3, k3, 6, 2)
		})
	}
}

func TestShaderCacheConcurrentCompiles(t *testing.T) {
	store, err := shadercache.NewDir(t.TempDir())
	require.NoError(t, err)
	d := openVulkan(t, device.WithShaderCache(store))
	const goroutines, kernels = 8, 4
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*kernels*2)
	results := make([][]*device.Kernel, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 2 {
				for i := range kernels {
					c := float32((i+g)%kernels + 1)
					k, err := device.Compile(d, scaleKernel(t, c))
					if err != nil {
						errs <- fmt.Errorf("goroutine %d round %d kernel %v: %w", g, round, c, err)
						continue
					}
					results[g] = append(results[g], k)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	st := d.CacheStats().Shader
	require.Equal(t, uint64(goroutines*kernels*2), st.Hits+st.Misses)
	require.GreaterOrEqual(t, st.Misses, uint64(kernels), "every distinct kernel missed at least once")
	require.Positive(t, st.Hits)
	for g, ks := range results {
		require.Len(t, ks, kernels*2)
		for i, k := range ks[:kernels] {
			c := float32((i+g)%kernels + 1)
			checkScale(t, d, k, c, float32(g))
		}
		for _, k := range ks {
			require.NoError(t, k.Close())
		}
	}
}

// TestPipelineCacheAcrossDevices: the pipeline cache is saved when a device
// closes and seeds the next device opened on the same store.
func TestPipelineCacheAcrossDevices(t *testing.T) {
	store := shadercache.NewMemory()
	open := func() *device.Device {
		d, err := device.Open(context.Background(), "vulkan", device.WithShaderCache(store), device.WithValidationLayer(true),
			device.WithDebug(func(m device.DebugMessage) {
				if m.Severity == device.SeverityError {
					t.Errorf("validation: %s: %s", m.ID, m.Text)
				}
			}))
		testenv.Need(t, "a Vulkan device", err)
		return d
	}
	d1 := open()
	p := d1.CacheStats().Pipeline
	require.True(t, p.Persisted)
	require.Zero(t, p.LoadedBytes, "an empty store seeds nothing")
	k := compileK(t, d1, scaleKernel(t, 9))
	require.NoError(t, k.Close())
	require.NoError(t, d1.Close())
	require.Equal(t, uint64(2), store.Stats().Writes, "the SPIR-V entry and the pipeline cache were written")

	d2 := open()
	defer func() { require.NoError(t, d2.Close()) }()
	p = d2.CacheStats().Pipeline
	require.Positive(t, p.LoadedBytes, "the saved pipeline cache seeded the device")
	require.False(t, p.Rejected)
	k2, err := device.Compile(d2, scaleKernel(t, 9))
	require.NoError(t, err)
	defer k2.Close()
	require.True(t, k2.CacheHit)
	p = d2.CacheStats().Pipeline
	require.Equal(t, p.Reported, p.Hits+p.Misses)
	checkScale(t, d2, k2, 9, 3)
}

// A device with a shader cache skips codegen for kernels it compiled before,
// in this process or an earlier one sharing the store.
func ExampleDevice_CacheStats() {
	store := shadercache.NewMemory() // shadercache.NewDir or Default() to persist across runs
	d, err := device.Open(context.Background(), "vulkan", device.WithShaderCache(store))
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	for range 2 {
		f, err := programs.Saxpy()
		if err != nil {
			log.Fatal(err)
		}
		k, err := device.Compile(d, f)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("from the cache:", k.CacheHit)
		k.Close()
	}
	st := d.CacheStats()
	fmt.Printf("hits %d, misses %d, writes %d\n", st.Shader.Hits, st.Shader.Misses, st.Shader.Writes)
	// Output:
	// from the cache: false
	// from the cache: true
	// hits 1, misses 1, writes 1
}
