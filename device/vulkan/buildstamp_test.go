package vulkan

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/shadercache"
	"github.com/lucent-gpu/lucent/spirv"
)

// TestShaderCacheOtherReleaseMisses: an entry a binary built with one
// lucent release wrote is not served to a binary built with another, even
// at the same codegen.Version (a change to the words that missed the bump
// would otherwise run the older release's code from a warm cache).
func TestShaderCacheOtherReleaseMisses(t *testing.T) {
	saved := lucentBuild
	t.Cleanup(func() { lucentBuild = saved })
	f := scaleBy(t, 3)
	fo := codegen.Options{Env: spirv.EnvVulkan1_2}
	store := shadercache.NewMemory()
	run := func(build string) bool {
		lucentBuild = build
		d := &Device{}
		d.kcache.store = store
		_, cached, _, err := d.kernelSPIRV(f, fo, "scale")
		require.NoError(t, err)
		return cached
	}
	require.False(t, run("v0.4.1 h1:AAAA="), "empty store")
	require.True(t, run("v0.4.1 h1:AAAA="), "same release: a hit")
	require.False(t, run("v0.4.2 h1:BBBB="), "another release must miss")
	require.False(t, run(""), "a development build must miss a release's entry")
	require.True(t, run("v0.4.2 h1:BBBB="))
}

func TestModuleBuild(t *testing.T) {
	lucent := func(v, sum string, repl *debug.Module) *debug.Module {
		return &debug.Module{Path: lucentModule, Version: v, Sum: sum, Replace: repl}
	}
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"dependency", &debug.BuildInfo{Main: debug.Module{Path: "u"},
			Deps: []*debug.Module{{Path: "x", Version: "v1.0.0"}, lucent("v0.4.1", "h1:AAAA=", nil)}}, "v0.4.1 h1:AAAA="},
		{"replaced by a version", &debug.BuildInfo{Main: debug.Module{Path: "u"},
			Deps: []*debug.Module{lucent("v0.4.1", "h1:AAAA=", &debug.Module{Path: "fork/lucent", Version: "v0.4.9", Sum: "h1:CCCC="})}}, "v0.4.9 h1:CCCC="},
		{"replaced by a directory", &debug.BuildInfo{Main: debug.Module{Path: "u"},
			Deps: []*debug.Module{lucent("v0.0.0", "", &debug.Module{Path: "../lucent"})}}, ""},
		{"main module", &debug.BuildInfo{Main: debug.Module{Path: lucentModule, Version: "(devel)"}}, ""},
		{"main module at a version", &debug.BuildInfo{Main: debug.Module{Path: lucentModule, Version: "v0.5.0", Sum: "h1:DDDD="}}, "v0.5.0 h1:DDDD="},
		{"not linked", &debug.BuildInfo{Main: debug.Module{Path: "u"}}, ""},
	} {
		require.Equal(t, c.want, moduleBuild(c.bi, true), c.name)
	}
	require.Equal(t, "", moduleBuild(nil, false))
}
