//go:build darwin || linux || freebsd || netbsd

package spvtools

import (
	"runtime"

	"github.com/ebitengine/purego"
)

// dlopen holds the goroutine to its thread: dlerror, which says why a
// dlopen failed, is per thread, so a goroutine moved between the two calls
// read another thread's (empty) message.
func dlopen(name string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

func dlsym(h uintptr, name string) (uintptr, error) { return purego.Dlsym(h, name) }
