//go:build darwin || freebsd || linux || netbsd

package vk

import (
	"runtime"

	"github.com/ebitengine/purego"
)

var libraryNames = func() []string {
	if runtime.GOOS == "darwin" {
		return []string{"libvulkan.1.dylib", "libvulkan.dylib", "libMoltenVK.dylib"}
	}
	return []string{"libvulkan.so.1", "libvulkan.so"}
}()

func openLibrary(name string) (uintptr, error) {
	return purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

func lookupSymbol(h uintptr, name string) (uintptr, error) { return purego.Dlsym(h, name) }
