package kernel_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/kernel"
)

// TestRunBlocks: every block of a grid with partial blocks runs once, with
// its id, base and the normalised grid; a thread's Printf reports its
// dispatch id.
func TestRunBlocks(t *testing.T) {
	var mu sync.Mutex
	var printed []kernel.Uint3
	var texts []string
	g := kernel.Grid{Block: kernel.Uint3{X: 4, Y: 2}, Size: kernel.Uint3{X: 10, Y: 5}, Print: func(id kernel.Uint3, text string) {
		mu.Lock()
		defer mu.Unlock()
		printed, texts = append(printed, id), append(texts, text)
	}}
	seen := map[kernel.Uint3][]kernel.Block{}
	err := kernel.RunBlocks(context.Background(), g, func(b *kernel.Block) {
		at := *b // as the block starts
		if b.ID == (kernel.Uint3{X: 1, Y: 1}) {
			b.Thread = kernel.Uint3{X: 3, Y: 1}
			b.Printf("at %u", b.Dispatch().X)
		}
		mu.Lock()
		seen[b.ID] = append(seen[b.ID], at)
		mu.Unlock()
	})
	require.NoError(t, err)
	require.Len(t, seen, 9)
	for id, runs := range seen {
		require.Len(t, runs, 1, "block %v", id)
		require.Less(t, id.X, uint32(3))
		require.Less(t, id.Y, uint32(3))
		b := runs[0]
		require.Equal(t, kernel.Uint3{X: 4, Y: 2, Z: 1}, b.Grid.Block)
		require.Equal(t, kernel.Uint3{X: 10, Y: 5, Z: 1}, b.Grid.Size)
		require.Equal(t, kernel.Uint3{X: id.X * 4, Y: id.Y * 2}, b.Base)
		require.Equal(t, kernel.Uint3{}, b.Thread)
	}
	require.Equal(t, []string{"at 7"}, texts)
	require.Equal(t, []kernel.Uint3{{X: 7, Y: 3}}, printed)
}

// TestRunBlocksPanicIsError: a panic ends its block and comes back as an
// error naming the thread the loop said was running.
func TestRunBlocksPanicIsError(t *testing.T) {
	y := make([]uint32, 10)
	err := kernel.RunBlocks(context.Background(), kernel.Grid1(8, 16), func(b *kernel.Block) {
		for i := range uint32(8) {
			b.Thread.X = i
			y[b.Base.X+i] = 1
		}
	})
	require.ErrorIs(t, err, kernel.ErrKernelPanic)
	require.ErrorContains(t, err, "thread {2 0 0} of block {1 0 0} (dispatch id {10 0 0}): runtime error: index out of range [10] with length 10")
}

func TestRunBlocksBadGridAndCancel(t *testing.T) {
	require.ErrorIs(t, kernel.RunBlocks(context.Background(), kernel.Grid1(2048, 4), func(*kernel.Block) {}), kernel.ErrGrid)
	require.ErrorIs(t, kernel.RunBlocks(context.Background(), kernel.Grid1(1, 1), nil), kernel.ErrGrid)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	require.ErrorIs(t, kernel.RunBlocks(ctx, kernel.Grid1(1, 4), func(*kernel.Block) { ran = true }), context.Canceled)
	require.False(t, ran)
}
