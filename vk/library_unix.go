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

// openLibrary holds the goroutine to its thread: dlerror, which says why a
// dlopen failed, is per thread, so a goroutine moved between the two calls
// read another thread's (empty) message.
func openLibrary(name string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

func lookupSymbol(h uintptr, name string) (uintptr, error) { return purego.Dlsym(h, name) }
