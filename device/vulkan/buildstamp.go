package vulkan

import "runtime/debug"

// lucentModule is the module path whose build the SPIR-V cache key names.
const lucentModule = "github.com/lucent-gpu/lucent"

// lucentBuild is the version and checksum of the lucent module this binary
// was built with, as its build information records them ("v0.4.1 h1:…"),
// and "" for a development build (lucent as the main module, a dependency
// replaced by a directory, no build information). It is part of every
// SPIR-V cache key, so a cache written by one release of lucent never
// serves another: codegen.Version is bumped by hand, and a change to the
// emitted words that misses the bump would otherwise hand a program the
// previous release's code (and its bugs) from a warm cache.
var lucentBuild = moduleBuild(debug.ReadBuildInfo())

// moduleBuild is lucentBuild's value for the build information bi.
func moduleBuild(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return ""
	}
	stamp := func(m *debug.Module) string {
		for m.Replace != nil {
			m = m.Replace
		}
		if m.Version == "" || m.Version == "(devel)" {
			return "" // a directory: no version to name it by
		}
		return m.Version + " " + m.Sum
	}
	if bi.Main.Path == lucentModule {
		return stamp(&bi.Main)
	}
	for _, m := range bi.Deps {
		if m.Path == lucentModule {
			return stamp(m)
		}
	}
	return ""
}
