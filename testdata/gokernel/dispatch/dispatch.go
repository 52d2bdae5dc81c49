// Package dispatch holds a kernel that reports its own dispatch: the
// threads and the blocks launched, on the CPU runner and on a device,
// directly and indirectly dispatched.
package dispatch

import "github.com/lucent-gpu/lucent/kernel"

// Info writes DispatchSize and DispatchGroups (from the first thread) into
// out[0:6] and counts the threads that ran in out[6].
//
//lucent:kernel block=8,4
func Info(out []uint32) {
	id := kernel.DispatchID()
	if id.X == 0 && id.Y == 0 {
		s, g := kernel.DispatchSize(), kernel.DispatchGroups()
		out[0], out[1], out[2] = s.X, s.Y, s.Z
		out[3], out[4], out[5] = g.X, g.Y, g.Z
	}
	kernel.AtomicAdd(&out[6], 1)
}
