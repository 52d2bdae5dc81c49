package vulkan

import (
	"math/rand"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeBacking hands out numbered memory objects and fails past a limit.
type fakeBacking struct {
	next  uint64
	live  map[uint64]uint64
	limit uint64
	used  uint64
}

func (f *fakeBacking) allocate(_ uint32, size uint64) (uint64, uintptr, error) {
	if f.limit != 0 && f.used+size > f.limit {
		return 0, 0, errBackingOOM
	}
	f.next++
	f.live[f.next] = size
	f.used += size
	return f.next, 0, nil
}

func (f *fakeBacking) free(_ uint32, m, _ uint64) {
	f.used -= f.live[m]
	delete(f.live, m)
}

func TestAllocatorAlignmentAndNoOverlap(t *testing.T) {
	fb := &fakeBacking{live: map[uint64]uint64{}}
	a := newAllocator(fb, 1024)
	rng := rand.New(rand.NewSource(1))
	var live []*allocation
	for i := 0; i < 2000; i++ {
		if len(live) > 0 && rng.Intn(3) == 0 {
			k := rng.Intn(len(live))
			a.release(live[k])
			live = append(live[:k], live[k+1:]...)
			continue
		}
		size := uint64(1 + rng.Intn(1<<20))
		align := uint64(1) << rng.Intn(12)
		al, err := a.alloc(0, size, align, rng.Intn(2) == 0)
		require.NoError(t, err)
		require.Zero(t, al.offset%align, "offset %d not aligned to %d", al.offset, align)
		live = append(live, al)
	}
	// No two live ranges of one block overlap; linear and optimal ranges never share a granularity page.
	byMem := map[uint64][]usedRange{}
	for _, b := range a.blocks[0] {
		byMem[b.memory] = append(byMem[b.memory], b.used...)
	}
	for _, rs := range byMem {
		sort.Slice(rs, func(i, j int) bool { return rs[i].offset < rs[j].offset })
		for i := 1; i < len(rs); i++ {
			p, c := rs[i-1], rs[i]
			require.LessOrEqual(t, p.offset+p.size, c.offset)
			if p.optimal != c.optimal {
				require.Less(t, (p.offset+p.size-1)/1024, c.offset/1024, "granularity violated")
			}
		}
	}
	require.Less(t, a.calls, 40, "few backing allocations")
	for _, al := range live {
		a.release(al)
	}
	require.LessOrEqual(t, len(fb.live), 1, "at most one empty block kept")
	for _, b := range a.blocks[0] {
		require.Equal(t, []freeRange{{0, b.size}}, b.free, "free list coalesces back to one range")
	}
	a.releaseAll()
	require.Empty(t, fb.live)
}

func TestAllocatorDedicatedAndOutOfMemory(t *testing.T) {
	fb := &fakeBacking{live: map[uint64]uint64{}, limit: 256 << 20}
	a := newAllocator(fb, 1)
	big, err := a.alloc(0, 200<<20, 256, false)
	require.NoError(t, err)
	require.True(t, big.block.dedicated)
	_, err = a.alloc(0, 100<<20, 256, false)
	require.ErrorIs(t, err, errBackingOOM)
	a.release(big)
	require.Empty(t, fb.live, "dedicated block freed when empty")
	again, err := a.alloc(0, 100<<20, 256, false)
	require.NoError(t, err, "allocator usable after out-of-memory")
	a.release(again)
}
