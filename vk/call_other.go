//go:build !amd64 || windows

package vk

import "github.com/ebitengine/purego"

// invoke calls f.fn with f's arguments through purego.
func invoke(f *callFrame) int32 {
	if counting.Load() {
		countCalls(f.fn)
	}
	r, _, _ := purego.SyscallN(f.fn, f.a[:f.n]...)
	return int32(r)
}

// invokeAll calls the frames in order until a checked frame fails; it
// returns that frame's index and result, or -1 and SUCCESS.
func invokeAll(frames []callFrame) (failed int, r Result) {
	for i := range frames {
		f := &frames[i]
		n := f.n
		f.n = n & frameArgs
		r := Result(invoke(f))
		f.n = n
		if n&frameChecked != 0 && r < 0 {
			return i, r
		}
	}
	return -1, SUCCESS
}
