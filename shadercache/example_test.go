package shadercache_test

import (
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/lucent-gpu/lucent/shadercache"
)

// compile stands in for the kernel compiler.
func compile() []byte { return []byte{0x03, 0x02, 0x23, 0x07} }

// The just-in-time path: look the kernel up by its key, compile on a miss,
// and store the result for the next run.
func Example() {
	dir, err := os.MkdirTemp("", "lucent-cache")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cache, err := shadercache.NewDir(dir)
	if err != nil {
		log.Fatal(err)
	}

	key := shadercache.NewKey().
		Add("kernel", []byte("stable hash of the kernel AST")).
		AddUint("codegen", 1).
		AddSet("caps", "int64", "float16").
		Sum()
	for run := 1; run <= 2; run++ {
		spirv, ok, err := cache.ReadShaderCache(key)
		if err != nil {
			log.Fatal(err)
		}
		if !ok {
			spirv = compile()
			if err := cache.WriteShaderCache(key, spirv); err != nil {
				log.Print(err) // a cache that cannot be written only costs time
			}
		}
		fmt.Printf("run %d: hit=%v, %d bytes\n", run, ok, len(spirv))
	}
	fmt.Printf("%+v\n", cache.Stats())
	// Output:
	// run 1: hit=false, 4 bytes
	// run 2: hit=true, 4 bytes
	// {Hits:1 Misses:1 Damaged:0 Writes:1 Evictions:0}
}

// A damaged entry is a miss; rewriting it heals the store.
func ExampleNewDir() {
	dir, err := os.MkdirTemp("", "lucent-cache")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cache, err := shadercache.NewDir(dir,
		shadercache.WithMaxSize(64<<20),
		shadercache.WithLogger(slog.New(slog.DiscardHandler)), // damage is logged at warn level
	)
	if err != nil {
		log.Fatal(err)
	}
	if err := cache.WriteInternal("fill", compile()); err != nil {
		log.Fatal(err)
	}
	// Truncate every internal entry, as a crash or a full disk might.
	files, _ := filepath.Glob(filepath.Join(dir, "internal", "*"))
	for _, f := range files {
		os.Truncate(f, 10)
	}
	_, ok, err := cache.ReadInternal("fill")
	fmt.Println("hit:", ok, "error:", err)
	if err := cache.WriteInternal("fill", compile()); err != nil {
		log.Fatal(err)
	}
	data, ok, _ := cache.ReadInternal("fill")
	fmt.Println("hit:", ok, "bytes:", len(data))
	// Output:
	// hit: false error: <nil>
	// hit: true bytes: 4
}

func ExampleNewMemory() {
	cache := shadercache.NewMemory()
	if err := cache.WriteBytecode("saxpy", compile()); err != nil {
		log.Fatal(err)
	}
	spirv, ok, err := cache.ReadBytecode("saxpy")
	fmt.Println(len(spirv), ok, err)
	_, ok, _ = cache.ReadBytecode("mandelbrot")
	fmt.Println(ok)
	// Output:
	// 4 true <nil>
	// false
}

// Default is the store a program uses unless it chooses one;
// LUCENT_SHADER_CACHE=off turns caching off.
func ExampleDefault() {
	os.Setenv(shadercache.EnvVar, "off")
	defer os.Unsetenv(shadercache.EnvVar)
	cache, err := shadercache.Default()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cache == shadercache.Disabled)
	// Output: true
}

func ExampleNewKey() {
	// Parts under different names may be added in any order; a set ignores
	// the order of its values.
	a := shadercache.NewKey().
		Add("kernel", []byte{1, 2, 3}).
		AddUint("codegen", 4).
		AddString("opt", "fast-math").
		AddSet("caps", "subgroup-arith", "int64").
		Sum()
	b := shadercache.NewKey().
		AddSet("caps", "int64", "subgroup-arith").
		AddString("opt", "fast-math").
		AddUint("codegen", 4).
		Add("kernel", []byte{1, 2, 3}).
		Sum()
	c := shadercache.NewKey().
		Add("kernel", []byte{1, 2, 3}).
		AddUint("codegen", 5). // a new codegen version: a new key
		AddString("opt", "fast-math").
		AddSet("caps", "subgroup-arith", "int64").
		Sum()
	fmt.Println(a == b, a == c, len(a.String()))
	// Output: true false 64
}

func ExampleBinaryIO_ReadPipelineCache() {
	cache := shadercache.NewMemory()
	id := shadercache.PipelineID{
		DeviceUUID:    [16]byte{0x6c, 0x76, 0x70}, // VkPhysicalDeviceProperties.pipelineCacheUUID
		DriverVersion: 0x5800006,                  // VkPhysicalDeviceProperties.driverVersion
	}
	blob, ok, err := cache.ReadPipelineCache(id)
	fmt.Println(len(blob), ok, err) // a miss: create the VkPipelineCache empty
	if err := cache.WritePipelineCache(id, []byte("vkGetPipelineCacheData output")); err != nil {
		log.Fatal(err)
	}
	blob, ok, err = cache.ReadPipelineCache(id)
	fmt.Println(len(blob), ok, err)
	// Output:
	// 0 false <nil>
	// 29 true <nil>
}

// The ahead-of-time path: a build step saves a kernel by name, its IR and
// any backend's compiled form of it; the program loads it, stating the
// signature its code was written against, and picks its backend's artefact.
func ExampleLoadKernel() {
	store := shadercache.NewMemory() // a build would use NewDir("shaders")
	err := shadercache.SaveKernel(store, "saxpy", shadercache.Kernel{
		Signature: "(Buffer[float32], Buffer[float32], float32)",
		ABI:       []byte{1},            // the runtime's signature, opaque here
		IR:        []byte("the kernel"), // the serialised kernel, opaque here
		Artefacts: []shadercache.Artefact{{Backend: "vulkan", Data: []byte{0x03, 0x02, 0x23, 0x07}}},
	})
	if err != nil {
		log.Fatal(err)
	}

	k, ok, err := shadercache.LoadKernel(store, "saxpy", "(Buffer[float32], Buffer[float32], float32)")
	fmt.Println(ok, err)
	data, ok := k.Artefact("vulkan")
	fmt.Printf("% x %v\n", data, ok)
	_, ok = k.Artefact("metal")
	fmt.Println(ok)

	_, _, err = shadercache.LoadKernel(store, "saxpy", "(Buffer[int32], int32)")
	fmt.Println(errors.Is(err, shadercache.ErrSignatureMismatch))
	fmt.Println(err)
	// Output:
	// true <nil>
	// 03 02 23 07 true
	// false
	// true
	// shadercache: load kernel "saxpy": stored signature "(Buffer[float32], Buffer[float32], float32)", expected "(Buffer[int32], int32)": kernel signature mismatch
}

// With a debug-level logger, every hit, miss and write is logged.
func ExampleWithLogger() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // keep the output stable
			}
			return a
		},
	}))
	cache := shadercache.NewMemory(shadercache.WithLogger(logger))
	cache.ReadInternal("fill")
	cache.WriteInternal("fill", compile())
	cache.ReadInternal("fill")
	// Output:
	// level=DEBUG msg="shadercache: miss" kind=internal name=fill
	// level=DEBUG msg="shadercache: write" kind=internal name=fill bytes=4
	// level=DEBUG msg="shadercache: hit" kind=internal name=fill bytes=4
}

func ExampleParseKey() {
	key := shadercache.NewKey().AddString("kernel", "saxpy").Sum()
	back, err := shadercache.ParseKey(key.String())
	fmt.Println(back == key, err)
	_, err = shadercache.ParseKey("not a key")
	fmt.Println(err)
	// Output:
	// true <nil>
	// shadercache: key "not a key": want 64 hex digits, got 9
}

// A record seals a payload with its kind, key and checksum, so bytes that a
// store hands back damaged or from another key are refused before use.
func ExampleDecodeRecord() {
	key := shadercache.NewKey().Add("kernel", []byte("stable hash")).Sum()
	rec := shadercache.AppendRecord(nil, shadercache.RecordShader, key.String(), compile())

	words, err := shadercache.DecodeRecord(rec, shadercache.RecordShader, key.String())
	fmt.Printf("% x %v\n", words, err)

	rec[len(rec)-1] ^= 1 // a store that checks nothing returns a flipped bit
	_, err = shadercache.DecodeRecord(rec, shadercache.RecordShader, key.String())
	fmt.Println(errors.Is(err, shadercache.ErrBadRecord), err)
	// Output:
	// 03 02 23 07 <nil>
	// true bad cache record: shader record of 92 bytes: checksum mismatch
}
