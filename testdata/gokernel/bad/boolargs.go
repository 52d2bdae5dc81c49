package bad

import "github.com/lucent-gpu/lucent/kernel"

// A bool kernel parameter travels as a uint32; an array of bools has no
// layout in the argument block, as in a buffer, and its uses stay quiet.

//lucent:kernel block=64
func BoolArgs(flags [4]bool, on bool, out []uint32) {
	i := kernel.DispatchID().X
	if on && flags[i%4] {
		out[i] = 1
	}
}
