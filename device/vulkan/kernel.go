package vulkan

// Kernels the device hands over as their AST (device.ShaderDesc.Kernel) are
// compiled here: codegen (package codegen) with this device's choices, then
// the pipeline, as for any module. The SPIR-V cache sits between the two, in
// the device's BinaryIO (device.Options.ShaderCache), keyed by everything
// the generated words depend on and nothing bound at dispatch:
//
//	kernel   ir.Function.Hash (the AST and every callable it reaches)
//	codegen  codegen.Version
//	build    the lucent release the binary was built with (its module
//	         version and checksum, lucentBuild; none in a development
//	         build), so another release's entries are never served even
//	         where a change to the words missed a codegen.Version bump
//	record   cacheRecordVersion (the layout of the stored value)
//	options  the codegen.Options codegen ran with, printed whole — the
//	         target environment and the device capabilities codegen consults
//	         (native or emulated float atomics, native bindless textures)
//	         live there, so a field added to them later changes the key by
//	         itself
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
	"strings"
	"sync/atomic"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/shadercache"
	"github.com/lucent-gpu/lucent/spirv"
)

// cacheRecordVersion is the version of the value stored under a key: a
// shadercache.RecordShader record of the key holding the SPIR-V words,
// little-endian. Bump it when that layout changes. Version 1 held the bare
// words.
const cacheRecordVersion = 2

// spirvMagic is the first word of every SPIR-V module.
const spirvMagic = 0x07230203

// kernelCache is a device's SPIR-V cache: the store and its counts.
type kernelCache struct {
	store                         shadercache.BinaryIO // nil: none
	log                           *slog.Logger         // nil: silent
	hits, misses, damaged, writes atomic.Uint64
	// failed is set by the first read or write the store fails: that one
	// is a warning, the rest (a directory that cannot be written fails
	// every kernel alike) debug messages.
	failed atomic.Bool
}

func (c *kernelCache) open(opts device.Options) {
	c.store, c.log = opts.ShaderCache, opts.Logger
}

// ShaderCacheStats counts this device's SPIR-V cache lookups: Hits skipped
// codegen, Misses ran it (Damaged counts the misses whose stored record was
// unusable: malformed, or refused by the driver), Writes stored the result.
// Evictions stays 0: the store's own Stats has them, and its Damaged the
// entries the store itself found damaged, which reach the device as misses.
func (d *Device) ShaderCacheStats() shadercache.Stats {
	c := &d.kcache
	return shadercache.Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Damaged: c.damaged.Load(), Writes: c.writes.Load()}
}

// codegenOptions are the codegen choices this device makes for a kernel
// compiled with o: native float atomics where the device has them (unless
// o asks for the emulation), texture slots through descriptor arrays where
// the device indexes them (linear mirrors and sampling in code elsewhere),
// and the driver workarounds of codegen's table for the device's driver.
func (d *Device) codegenOptions(o device.KernelOptions) codegen.Options {
	fo := codegen.Options{
		Env:                    spirv.EnvVulkan1_2,
		FloatAtomicAdd:         d.caps.AtomicFloat32Add && !o.EmulatedFloatAtomics,
		Names:                  o.DebugNames,
		NativeBindlessTextures: d.caps.Sampling == device.PathNative,
		NativeRayQuery:         d.caps.RayQuery == device.PathNative,
		// Where software accels are read by address, kernels need no
		// binding form (accelByBinding).
		SoftAccelByAddress: d.caps.RayQuery == device.PathEmulated && d.accelDescriptorLimit() == 0,
		Checked:            o.Checked,
		SubgroupVote:       o.Checked && d.caps.Subgroups,
	}
	if !o.NoDriverWorkarounds {
		for _, w := range d.workarounds() {
			w.Apply(&fo)
		}
	}
	return fo
}

// workarounds are the entries of codegen's driver-workaround table for this
// device's driver.
func (d *Device) workarounds() []codegen.Workaround {
	return codegen.Workarounds(d.caps.Adapter.DriverID, d.caps.Adapter.DriverVersion)
}

// ShaderCacheKey is the key under which a device stores the SPIR-V of kernel
// f generated with fo. Tools may use it to fill a cache ahead of a run;
// as the key names the lucent release the binary was built with, such a
// tool must be built with the program's release of lucent.
func ShaderCacheKey(f *ir.Function, fo codegen.Options) shadercache.Key {
	h := f.Hash()
	b := shadercache.NewKey().
		Add("kernel", h[:]).
		AddUint("codegen", codegen.Version).
		AddString("build", lucentBuild).
		AddUint("record", cacheRecordVersion).
		AddString("options", fmt.Sprintf("%#v", fo))
	if fo.Names {
		b.AddString("names", debugNames(f))
	}
	return b.Sum()
}

// debugNames lists the names OpName records for f and its callees, in the
// order Hash numbers them.
func debugNames(f *ir.Function) string {
	var sb strings.Builder
	for _, g := range append([]*ir.Function{f}, f.Callees()...) {
		fmt.Fprintf(&sb, "%q(", g.Name)
		for _, list := range [][]*ir.Var{g.Params, g.Locals, g.Shared} {
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
// shader cache when it holds the kernel (cached is then true), otherwise
// from codegen, whose result is stored for the next run. A store that fails
// is logged and costs only compile time.
func (d *Device) kernelSPIRV(f *ir.Function, fo codegen.Options, name string) (words []uint32, cached bool, emitTime time.Duration, err error) {
	c := &d.kcache
	if c.store == nil {
		t0 := time.Now()
		words, err = codegen.Emit(f, fo)
		return words, false, time.Since(t0), err
	}
	if c.store == shadercache.Disabled {
		// Caching is off: every compile is a miss, and nothing is written.
		c.misses.Add(1)
		t0 := time.Now()
		words, err = codegen.Emit(f, fo)
		return words, false, time.Since(t0), err
	}
	key := ShaderCacheKey(f, fo)
	data, ok, rerr := c.store.ReadShaderCache(key)
	if rerr != nil {
		c.storeFailed("device: reading the shader cache", name, key, rerr)
	}
	if ok {
		words, why := decodeSPIRV(key, data)
		if why == "" {
			c.hits.Add(1)
			c.logf(slog.LevelDebug, "device: shader cache hit", name, key)
			return words, true, 0, nil
		}
		c.damaged.Add(1)
		c.logf(slog.LevelWarn, "device: shader cache entry unusable, compiling again", name, key, slog.String("reason", why))
	}
	c.misses.Add(1)
	c.logf(slog.LevelDebug, "device: shader cache miss", name, key)
	return d.emitAndStore(f, fo, name, key)
}

// recompile answers a cached module the driver refused (cause): it counts
// the entry as damaged, runs codegen and overwrites the entry.
func (d *Device) recompile(f *ir.Function, fo codegen.Options, name string, cause error) ([]uint32, time.Duration, error) {
	c := &d.kcache
	key := ShaderCacheKey(f, fo)
	c.hits.Add(^uint64(0)) // the hit was not one after all
	c.damaged.Add(1)
	c.misses.Add(1)
	c.logf(slog.LevelWarn, "device: cached module refused, compiling again", name, key, slog.Any("error", cause))
	words, _, t, err := d.emitAndStore(f, fo, name, key)
	return words, t, err
}

func (d *Device) emitAndStore(f *ir.Function, fo codegen.Options, name string, key shadercache.Key) ([]uint32, bool, time.Duration, error) {
	c := &d.kcache
	t0 := time.Now()
	words, err := codegen.Emit(f, fo)
	t := time.Since(t0)
	if err != nil {
		return nil, false, t, err
	}
	if err := c.store.WriteShaderCache(key, encodeSPIRV(key, words)); err != nil {
		c.storeFailed("device: writing the shader cache", name, key, err)
	} else {
		c.writes.Add(1)
	}
	return words, false, t, nil
}

// storeFailed logs err, a read or write the store failed: at warn level
// the first time on this device, with the store's directory where it has
// one, and at debug level after that, so that a store that fails every
// access logs one warning, not one per kernel.
func (c *kernelCache) storeFailed(msg, name string, key shadercache.Key, err error) {
	level, attrs := slog.LevelDebug, []slog.Attr{slog.Any("error", err)}
	if !c.failed.Swap(true) {
		level = slog.LevelWarn
		if p, ok := c.store.(interface{ Path() string }); ok {
			attrs = append(attrs, slog.String("dir", p.Path()))
		}
		attrs = append(attrs, slog.String("note", "the cache's failures after this one are logged at debug level"))
	}
	c.logf(level, msg, name, key, attrs...)
}

func (c *kernelCache) logf(level slog.Level, msg, name string, key shadercache.Key, attrs ...slog.Attr) {
	l := c.log
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
	return shadercache.AppendRecord(nil, shadercache.RecordShader, key.String(), b)
}

// decodeSPIRV reads the cache record of key back, or says why it is
// unusable. The record's checksum and key catch what a store that checks
// nothing (a user's own BinaryIO) hands back damaged, truncated or from
// another key; the header check after it catches an intact record of words
// that are not a module.
func decodeSPIRV(key shadercache.Key, rec []byte) ([]uint32, string) {
	b, err := shadercache.DecodeRecord(rec, shadercache.RecordShader, key.String())
	if err != nil {
		return nil, err.Error()
	}
	return spirvWords(b)
}

// spirvWords reads the little-endian words of a SPIR-V module from b, or
// says why b is not one.
func spirvWords(b []byte) ([]uint32, string) {
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

// textureSets gives, by parameter of f, the descriptor set of the texture
// slots of a bindless argument f samples natively: 1+i for the i-th
// (codegen's NativeBindlessTextures), 0 for the others.
func textureSets(f *ir.Function) []uint32 {
	sets := make([]uint32, len(f.Params))
	for i, v := range f.BindlessTextureArgs() {
		for j, p := range f.Params {
			if p == v {
				sets[j] = uint32(1 + i)
			}
		}
	}
	return sets
}

// mirrorlessArgs gives, by parameter of f, whether it is a bindless array
// through which f reads no texture slot: a dispatch need not refresh the
// array's texture mirrors for it (a copy of every texture in its slots,
// 16 MiB for one 2048² RGBA8 texture, before a kernel that reads buffers).
func mirrorlessArgs(f *ir.Function) []bool {
	tex := map[*ir.Var]bool{}
	for _, v := range f.BindlessTextureArgs() {
		tex[v] = true
	}
	out := make([]bool, len(f.Params))
	for i, p := range f.Params {
		out[i] = p.Type == ir.Bindless && !tex[p]
	}
	return out
}

// createKernel is CreateShader for desc.Kernel: codegen through the shader
// cache, then the pipeline from the words (trusted: this build's codegen
// output, fresh or read back from the cache, which verifies what it
// returns). A cached module the driver refuses is compiled again and
// rewritten.
func (d *Device) createKernel(desc device.ShaderDesc) (device.Handle, device.Signature, error) {
	f := desc.Kernel
	if desc.Signature == nil {
		return 0, device.Signature{}, fmt.Errorf("kernel %s: %w: no signature", f.Name, device.ErrInvalidArgument)
	}
	name := desc.Name
	if name == "" {
		name = f.Name
	}
	// The print sites come from the kernel: codegen lays out a print ring
	// exactly when the kernel prints, whatever the given signature says.
	sig := *desc.Signature
	if own, _, err := device.KernelSignature(f); err == nil {
		sig.Prints, sig.Sites, sig.Asserts, sig.Places = own.Prints, own.Sites, own.Asserts, own.Places
	}
	sig.Checked = desc.KernelOptions.Checked
	desc.Signature = &sig
	fo := d.codegenOptions(desc.KernelOptions)
	words, cached, emitTime, err := d.kernelSPIRV(f, fo, name)
	if err != nil {
		return 0, device.Signature{}, err
	}
	var sets []uint32
	if fo.NativeBindlessTextures {
		sets = textureSets(f)
	}
	noMirrors := mirrorlessArgs(f)
	mod := device.ShaderDesc{SPIRV: words, Signature: desc.Signature, Name: desc.Name, Trusted: true}
	t1 := time.Now()
	h, out, err := d.createModule(mod, sets, noMirrors)
	if err != nil && cached && !d.closed.Load() {
		if words, emitTime, err = d.recompile(f, fo, name, err); err != nil {
			return 0, device.Signature{}, err
		}
		cached = false
		mod.SPIRV = words
		t1 = time.Now()
		h, out, err = d.createModule(mod, sets, noMirrors)
	}
	if err != nil {
		return 0, device.Signature{}, err
	}
	if r := desc.Report; r != nil {
		*r = device.ShaderReport{CodegenTime: emitTime, PipelineTime: time.Since(t1), CacheHit: cached, SPIRV: words}
	}
	return h, out, nil
}
