package device

// The SPIR-V cache: Compile looks a kernel up in the device's shader cache
// before running codegen, by a key that covers everything the generated
// words depend on and nothing bound at dispatch:
//
//	kernel   frontend.Function.Hash (the AST and every callable it reaches)
//	codegen  codegen.Version
//	record   cacheRecordVersion (the layout of the stored value)
//	options  the codegen.Options codegen ran with, printed whole — the
//	         target environment and the device capabilities codegen consults
//	         (native or emulated float atomics) live there, so a field added
//	         to them later changes the key by itself
//	names    with debug names on, the kernel's function and variable names
//	         (Hash leaves names out; OpName puts them in the words)
//
// Uniform values and resource handles are arguments, bound at dispatch; they
// never reach the key, so a kernel compiled once serves every argument.

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/shadercache"
)

// cacheRecordVersion is the version of the value Compile stores under a key:
// a shadercache.RecordSPIRV record of the key holding the SPIR-V words,
// little-endian. Bump it when that layout changes. Version 1 held the bare
// words.
const cacheRecordVersion = 2

// spirvMagic is the first word of every SPIR-V module.
const spirvMagic = 0x07230203

// CacheStats is what a device's caches have done since it was opened.
type CacheStats struct {
	// Shader counts this device's SPIR-V cache lookups by Compile: Hits
	// skipped codegen, Misses ran it (Damaged counts the misses whose stored
	// record was unusable: malformed, or refused by the driver), Writes
	// stored the result. Evictions stays 0: the store's own Stats has them.
	Shader shadercache.Stats
	// Pipeline is the backend's pipeline cache.
	Pipeline PipelineCacheStats
}

// PipelineCacheStats describes a backend's pipeline cache (a VkPipelineCache
// for Vulkan).
type PipelineCacheStats struct {
	// Persisted is true when the device has a shader cache to load the
	// pipeline cache from and save it to.
	Persisted bool
	// LoadedBytes is the size of the blob the cache was seeded with at Open
	// (0: it started empty).
	LoadedBytes int
	// Rejected is true when a stored blob was found but ignored: it was
	// made by another device or driver, or damaged.
	Rejected bool
	// Reported counts the pipelines the driver gave creation feedback for;
	// of those, Hits were found in the cache and Misses were not. A driver
	// that gives no feedback leaves all three 0.
	Reported, Hits, Misses uint64
}

// PipelineCacheReporter is implemented by backends that keep a pipeline cache.
type PipelineCacheReporter interface {
	PipelineCacheStats() PipelineCacheStats
}

// CacheStats returns what the device's shader and pipeline caches have done.
func (d *Device) CacheStats() CacheStats {
	var s CacheStats
	if d == nil {
		return s
	}
	if c := lookupCacheCounters(d, false); c != nil {
		s.Shader = shadercache.Stats{
			Hits: c.hits.Load(), Misses: c.misses.Load(), Damaged: c.damaged.Load(), Writes: c.writes.Load(),
		}
	}
	iface := d.iface
	if v, ok := iface.(*Validator); ok {
		iface = v.Inner()
	}
	if r, ok := iface.(PipelineCacheReporter); ok {
		s.Pipeline = r.PipelineCacheStats()
	}
	return s
}

// cacheCounters are a device's live SPIR-V cache counts.
type cacheCounters struct {
	hits, misses, damaged, writes atomic.Uint64
}

// The counters live beside the Device rather than in it, keyed weakly so a
// Device that is dropped takes its entry with it.
var (
	countersMu sync.Mutex
	counters   = map[weak.Pointer[Device]]*cacheCounters{}
)

func lookupCacheCounters(d *Device, create bool) *cacheCounters {
	w := weak.Make(d)
	countersMu.Lock()
	defer countersMu.Unlock()
	c := counters[w]
	if c == nil && create {
		c = &cacheCounters{}
		counters[w] = c
		runtime.AddCleanup(d, func(w weak.Pointer[Device]) {
			countersMu.Lock()
			delete(counters, w)
			countersMu.Unlock()
		}, w)
	}
	return c
}

// ShaderCacheKey is the key under which Compile stores the SPIR-V of kernel
// f generated with fo (the options Compile derives from the device and its
// CompileOptions). Tools may use it to fill a cache ahead of a run.
func ShaderCacheKey(f *frontend.Function, fo codegen.Options) shadercache.Key {
	h := f.Hash()
	b := shadercache.NewKey().
		Add("kernel", h[:]).
		AddUint("codegen", codegen.Version).
		AddUint("record", cacheRecordVersion).
		AddString("options", fmt.Sprintf("%#v", fo))
	if fo.Names {
		b.AddString("names", debugNames(f))
	}
	return b.Sum()
}

// debugNames lists the names OpName records for f and its callees, in the
// order Hash numbers them.
func debugNames(f *frontend.Function) string {
	var sb strings.Builder
	for _, g := range append([]*frontend.Function{f}, f.Callees()...) {
		fmt.Fprintf(&sb, "%q(", g.Name)
		for _, list := range [][]*frontend.Var{g.Params, g.Locals, g.Shared} {
			for _, v := range list {
				fmt.Fprintf(&sb, "%q,", v.Name)
			}
			sb.WriteByte(';')
		}
		sb.WriteByte(')')
	}
	return sb.String()
}

// kernelSPIRV returns the SPIR-V of kernel f compiled with fo: from the
// device's shader cache when it holds the kernel (cached is then true),
// otherwise from codegen, whose result is stored for the next run. A store
// that fails is logged and costs only compile time.
func (d *Device) kernelSPIRV(f *frontend.Function, fo codegen.Options, name string) (words []uint32, cached bool, emitTime time.Duration, err error) {
	store := d.opts.ShaderCache
	if store == nil {
		t0 := time.Now()
		words, err = codegen.Emit(f, fo)
		return words, false, time.Since(t0), err
	}
	c := lookupCacheCounters(d, true)
	if store == shadercache.Disabled {
		// Caching is off: every compile is a miss, and nothing is written.
		c.misses.Add(1)
		t0 := time.Now()
		words, err = codegen.Emit(f, fo)
		return words, false, time.Since(t0), err
	}
	key := ShaderCacheKey(f, fo)
	data, ok, rerr := store.ReadShaderCache(key)
	if rerr != nil {
		d.logCache(slog.LevelWarn, "device: reading the shader cache", name, key, slog.Any("error", rerr))
	}
	if ok {
		words, why := decodeSPIRV(key, data)
		if why == "" {
			c.hits.Add(1)
			d.logCache(slog.LevelDebug, "device: shader cache hit", name, key)
			return words, true, 0, nil
		}
		c.damaged.Add(1)
		d.logCache(slog.LevelWarn, "device: shader cache entry unusable, compiling again", name, key, slog.String("reason", why))
	}
	c.misses.Add(1)
	d.logCache(slog.LevelDebug, "device: shader cache miss", name, key)
	return d.emitAndStore(f, fo, name, key, c)
}

// recompile answers a cached module the backend refused (cause): it counts
// the entry as damaged, runs codegen and overwrites the entry.
func (d *Device) recompile(f *frontend.Function, fo codegen.Options, name string, cause error) ([]uint32, time.Duration, error) {
	c := lookupCacheCounters(d, true)
	key := ShaderCacheKey(f, fo)
	c.hits.Add(^uint64(0)) // the hit was not one after all
	c.damaged.Add(1)
	c.misses.Add(1)
	d.logCache(slog.LevelWarn, "device: cached module refused, compiling again", name, key, slog.Any("error", cause))
	words, _, t, err := d.emitAndStore(f, fo, name, key, c)
	return words, t, err
}

func (d *Device) emitAndStore(f *frontend.Function, fo codegen.Options, name string, key shadercache.Key, c *cacheCounters) ([]uint32, bool, time.Duration, error) {
	t0 := time.Now()
	words, err := codegen.Emit(f, fo)
	t := time.Since(t0)
	if err != nil {
		return nil, false, t, err
	}
	if err := d.opts.ShaderCache.WriteShaderCache(key, encodeSPIRV(key, words)); err != nil {
		d.logCache(slog.LevelWarn, "device: writing the shader cache", name, key, slog.Any("error", err))
	} else {
		c.writes.Add(1)
	}
	return words, false, t, nil
}

func (d *Device) logCache(level slog.Level, msg, name string, key shadercache.Key, attrs ...slog.Attr) {
	l := d.opts.Logger
	if l == nil || !l.Enabled(context.Background(), level) {
		return
	}
	l.LogAttrs(context.Background(), level, msg,
		append([]slog.Attr{slog.String("kernel", name), slog.String("key", key.String())}, attrs...)...)
}

// encodeSPIRV is the cache record of a module under key: its words,
// little-endian, in a checksummed record naming the key.
func encodeSPIRV(key shadercache.Key, words []uint32) []byte {
	b := make([]byte, 0, 4*len(words))
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return shadercache.AppendRecord(nil, shadercache.RecordSPIRV, key.String(), b)
}

// decodeSPIRV reads the cache record of key back, or says why it is
// unusable. The record's checksum and key catch what a store that checks
// nothing (a user's own BinaryIO) hands back damaged, truncated or from
// another key; the header check after it catches an intact record of words
// that are not a module.
func decodeSPIRV(key shadercache.Key, rec []byte) ([]uint32, string) {
	b, err := shadercache.DecodeRecord(rec, shadercache.RecordSPIRV, key.String())
	if err != nil {
		return nil, err.Error()
	}
	const header = 5 // magic, version, generator, bound, schema
	if len(b)%4 != 0 || len(b) < 4*header {
		return nil, fmt.Sprintf("%d bytes is not a SPIR-V module", len(b))
	}
	words := make([]uint32, len(b)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	if words[0] != spirvMagic {
		return nil, fmt.Sprintf("first word %#08x is not the SPIR-V magic number", words[0])
	}
	if words[3] == 0 || words[4] != 0 {
		return nil, fmt.Sprintf("bad SPIR-V header (bound %d, schema %d)", words[3], words[4])
	}
	return words, ""
}
