package cpu

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBlockChunks: workers taking chunks of consecutive blocks (claim,
// then nextBlock) run every block of the grid exactly once, each with the
// id that dividing its index gives, for grids of one, two and three
// dimensions and counts that are and are not multiples of the chunk.
func TestBlockChunks(t *testing.T) {
	for _, g := range [][3]uint32{{1, 1, 1}, {7, 1, 1}, {4096, 1, 1}, {4099, 1, 1}, {5, 3, 7}, {33, 17, 1}, {1, 1, 3000}, {130, 1, 40}} {
		total := uint64(g[0]) * uint64(g[1]) * uint64(g[2])
		for _, workers := range []uint64{1, 2, 3} {
			e := &execBlocks{chunk: blockChunk(total, workers)}
			require.GreaterOrEqual(t, e.chunk, uint64(1))
			require.LessOrEqual(t, e.chunk, uint64(maxBlockChunk))
			seen := make([]uint32, total)
			var mu sync.Mutex
			var bad []uint64
			var wg sync.WaitGroup
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						lo, hi, bid, ok := e.claim(g, total)
						if !ok {
							return
						}
						for b := lo; b < hi; b, bid = b+1, nextBlock(bid, g) {
							want := [3]uint32{uint32(b % uint64(g[0])), uint32(b / uint64(g[0]) % uint64(g[1])), uint32(b / (uint64(g[0]) * uint64(g[1])))}
							mu.Lock()
							seen[b]++
							if bid != want {
								bad = append(bad, b)
							}
							mu.Unlock()
						}
					}
				}()
			}
			wg.Wait()
			require.Empty(t, bad, "grid %v, %d workers: blocks given the wrong id", g, workers)
			for b, n := range seen {
				require.Equal(t, uint32(1), n, "grid %v, %d workers: block %d run %d times", g, workers, b, n)
			}
		}
	}
	// Large dispatches are taken in chunks; a grid of few blocks a worker
	// block by block.
	require.Equal(t, uint64(maxBlockChunk), blockChunk(4096, 2))
	require.Equal(t, uint64(1), blockChunk(16, 2))
}
