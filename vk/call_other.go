//go:build !amd64 || windows

package vk

import "github.com/ebitengine/purego"

// invoke calls f.fn with f's arguments through purego.
func invoke(f *callFrame) int32 {
	r, _, _ := purego.SyscallN(f.fn, f.a[:f.n]...)
	return int32(r)
}

// invokeAll calls every frame in order.
func invokeAll(frames []callFrame) {
	for i := range frames {
		invoke(&frames[i])
	}
}
