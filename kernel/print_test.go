package kernel

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Printf on the CPU runner hands fmt's text and the thread's dispatch id to
// Grid.Print; %u is %d.
func TestPrintfRun(t *testing.T) {
	var mu sync.Mutex
	got := map[Uint3][]string{}
	g := Grid2(4, 2, 5, 3)
	g.Print = func(th Uint3, text string) {
		mu.Lock()
		got[th] = append(got[th], text)
		mu.Unlock()
	}
	require.NoError(t, Run(context.Background(), g, func() {
		id := DispatchID()
		Printf("%u,%d", id.X, id.Y)
		Printf("%v %5.1f%%", id, float32(id.X)/2)
	}))
	require.Len(t, got, 15)
	for y := range uint32(3) {
		for x := range uint32(5) {
			id := Uint3{x, y, 0}
			require.Equal(t, []string{fmt.Sprintf("%d,%d", x, y), fmt.Sprintf("%v %5.1f%%", id, float32(x)/2)}, got[id])
		}
	}
	require.PanicsWithValue(t, "kernel.Printf called outside a kernel: run the kernel with kernel.Run, or compile it with the gokernel front end",
		func() { Printf("x") })
}

// Where Grid.Print is nil, Run and RunBlocks print to the context's print
// function (ContextWithPrint); a Grid's own Print wins over it.
func TestPrintfContext(t *testing.T) {
	var mu sync.Mutex
	var got []string
	ctx := ContextWithPrint(context.Background(), func(th Uint3, text string) {
		mu.Lock()
		got = append(got, fmt.Sprintf("%d:%s", th.X, text))
		mu.Unlock()
	})
	require.NoError(t, Run(ctx, Grid1(4, 2), func() { Printf("run %d", DispatchID().X) }))
	require.NoError(t, RunBlocks(ctx, Grid1(4, 2), func(b *Block) {
		for b.Thread.X = 0; b.Thread.X < 2; b.Thread.X++ {
			b.Printf("blocks %d", b.Dispatch().X)
		}
	}))
	require.ElementsMatch(t, []string{"0:run 0", "1:run 1", "0:blocks 0", "1:blocks 1"}, got)
	got = nil
	var own []string
	g := Grid1(4, 1)
	g.Print = func(_ Uint3, text string) { own = append(own, text) }
	require.NoError(t, Run(ctx, g, func() { Printf("mine") }))
	require.Equal(t, []string{"mine"}, own)
	require.Empty(t, got)
}

// goFormat rewrites formats as the devices do (frontend/ir).
func TestPrintfFormatMatchesIR(t *testing.T) {
	for _, f := range []string{"", "plain", "%u", "%-8u|%08.3f %%u %x %v", "%+u%u", "u%", "%"} {
		require.Equal(t, ir.GoPrintFormat(f), goFormat(f), f)
	}
}
