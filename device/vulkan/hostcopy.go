package vulkan

import (
	"runtime"
	"sync/atomic"
)

// Host copies of transfers: a direct upload into a buffer's mapping, a
// direct read out of it, an upload into staging and a download out of it.
// One core's copy does not reach this machine's memory bandwidth (a 64 MiB
// copy: 13.1 ms on one core, 7.6 ms split over two), so a copy of at least
// parallelCopyMin bytes is cut into copyChunk pieces that the calling
// goroutine and up to maxCopyHelpers others take in turn. The caller never
// waits for a helper that has not started: it takes every piece left, and
// waits only for pieces a helper is copying, so a busy machine, where a
// helper may not run for a while, costs at most one piece more than a copy
// on one core.

const (
	parallelCopyMin = 16 << 20
	copyChunk       = 1 << 20 // Go's copy keeps its non-temporal stores from 1 MiB
	maxCopyHelpers  = 3
)

// hostCopy copies src into dst (the shorter's length), as copy does.
func hostCopy(dst, src []byte) {
	n := min(len(dst), len(src))
	helpers := min(runtime.GOMAXPROCS(0), maxCopyHelpers+1) - 1
	if n < parallelCopyMin || helpers <= 0 {
		copy(dst, src)
		return
	}
	pc := &parallelCopy{dst: dst[:n], src: src[:n], chunks: int64((n + copyChunk - 1) / copyChunk), finished: make(chan struct{})}
	for range helpers {
		go pc.work()
	}
	pc.work()
	if pc.done.Load() < pc.chunks {
		<-pc.finished
	}
}

// parallelCopy is one hostCopy shared by its workers.
type parallelCopy struct {
	dst, src []byte
	chunks   int64
	next     atomic.Int64 // the next piece to take
	done     atomic.Int64 // pieces copied
	finished chan struct{}
}

// work copies pieces until none is left; whoever copies the last closes
// finished. A worker starting late takes nothing and touches neither slice.
func (pc *parallelCopy) work() {
	for {
		i := pc.next.Add(1) - 1
		if i >= pc.chunks {
			return
		}
		lo := int(i) * copyChunk
		hi := min(lo+copyChunk, len(pc.src))
		copy(pc.dst[lo:hi], pc.src[lo:hi])
		if pc.done.Add(1) == pc.chunks {
			close(pc.finished)
		}
	}
}
