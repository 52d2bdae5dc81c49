package device

import "github.com/lucent-gpu/lucent/shadercache"

// CacheStats is what a device's caches have done since it was opened.
type CacheStats struct {
	// Shader counts the backend's shader cache lookups by Compile (the
	// SPIR-V cache for Vulkan): Hits skipped codegen, Misses ran it (Damaged
	// counts the misses whose stored record was unusable: malformed, or
	// refused by the driver), Writes stored the result. Evictions stays 0:
	// the store's own Stats has them, and its Damaged the entries the store
	// itself found damaged (a Dir checks every file), which reach the device
	// as plain misses.
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

// ShaderCacheReporter is implemented by backends that keep a cache of the
// native code of the kernels they compile.
type ShaderCacheReporter interface {
	ShaderCacheStats() shadercache.Stats
}

// CacheStats returns what the device's shader and pipeline caches have done.
func (d *Device) CacheStats() CacheStats {
	var s CacheStats
	if d == nil {
		return s
	}
	if r, err := Extension[ShaderCacheReporter](d); err == nil {
		s.Shader = r.ShaderCacheStats()
	}
	if r, err := Extension[PipelineCacheReporter](d); err == nil {
		s.Pipeline = r.PipelineCacheStats()
	}
	return s
}
