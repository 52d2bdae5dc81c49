package vulkan

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHostCopy checks the parallel host copy against copy: below and above
// the threshold, lengths not a multiple of the piece, a shorter destination
// or source, one thread or several; nothing past the copied bytes is written.
func TestHostCopy(t *testing.T) {
	for _, procs := range []int{1, 2, 8} {
		old := runtime.GOMAXPROCS(procs)
		for _, c := range []struct{ dst, src int }{
			{1000, 1000},
			{parallelCopyMin - 1, parallelCopyMin - 1},
			{parallelCopyMin, parallelCopyMin},
			{parallelCopyMin + 3*copyChunk + 17, parallelCopyMin + 3*copyChunk + 17},
			{parallelCopyMin + 5, parallelCopyMin + copyChunk},  // destination shorter
			{parallelCopyMin + copyChunk, parallelCopyMin + 77}, // source shorter
		} {
			src := make([]byte, c.src)
			for i := range src {
				src[i] = byte(i*7 + i>>12)
			}
			dst := make([]byte, c.dst+64) // 64 guard bytes past dst
			for i := range dst {
				dst[i] = 0xA5
			}
			n := min(c.dst, c.src)
			hostCopy(dst[:c.dst], src)
			require.Equal(t, src[:n], dst[:n], "GOMAXPROCS %d, dst %d, src %d: the copied bytes", procs, c.dst, c.src)
			for i := n; i < len(dst); i++ {
				if dst[i] != 0xA5 {
					require.Failf(t, "written past the copy", "GOMAXPROCS %d, dst %d, src %d: byte %d", procs, c.dst, c.src, i)
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestParallelCopyPieces checks the workers' sharing: pieces another worker
// took are not copied again, the one copying the last piece closes finished
// (once), and a worker starting after the end copies nothing.
func TestParallelCopyPieces(t *testing.T) {
	n := 8 * copyChunk
	src, dst := make([]byte, n), make([]byte, n)
	for i := range src {
		src[i] = byte(i)
	}
	pc := &parallelCopy{dst: dst, src: src, chunks: 8, finished: make(chan struct{})}
	pc.next.Store(5) // pieces 0-4 "taken" by a worker that never ran
	pc.done.Store(5)
	pc.work()
	<-pc.finished // the last piece closes it
	require.Equal(t, int64(8), pc.done.Load())
	require.Equal(t, src[5*copyChunk:], dst[5*copyChunk:], "the pieces left are copied")
	require.Equal(t, make([]byte, 5*copyChunk), dst[:5*copyChunk], "taken pieces are not copied again")
	pc.work() // a late worker: nothing left, no second close
	require.Equal(t, int64(8), pc.done.Load())
}
