package shadercache

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeClock returns times step apart, so every write and read of a test
// has its own instant whatever the file system's timestamp granularity.
func fakeClock(step time.Duration) func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(step)
		return t
	}
}

// regenerableBytes sums the sizes of a Dir's regenerable entry files.
func regenerableBytes(t *testing.T, d *Dir) int64 {
	var n int64
	for _, k := range kinds {
		if !k.regenerable() {
			continue
		}
		files, err := d.list(k)
		require.NoError(t, err)
		for _, f := range files {
			n += f.size
		}
	}
	return n
}

// TestEvictionKeepsMostRecentlyUsed fills a store to its cap with five
// 1000-byte entries, reads the two oldest, and writes a sixth: the two
// entries used longest ago go, the ones just read stay.
func TestEvictionKeepsMostRecentlyUsed(t *testing.T) {
	const maxSize = 5000
	// A Dir entry named "eN" is a 26-byte header and name plus its payload.
	dirStore := newTestDir(t, WithMaxSize(maxSize))
	// Operations further apart than the touch interval: every read touches.
	dirStore.now = fakeClock(2 * defaultTouchInterval)
	memStore := NewMemory(WithLogger(quiet), WithMaxSize(maxSize))
	for name, s := range map[string]struct {
		BinaryIO
		stats       func() Stats
		payloadSize int
	}{
		"dir":    {dirStore, dirStore.Stats, 1000 - headerSize - 2},
		"memory": {memStore, memStore.Stats, 1000},
	} {
		t.Run(name, func(t *testing.T) {
			stats := s.stats
			// Bytecode neither counts towards the cap nor is evicted.
			require.NoError(t, s.WriteBytecode("aot", make([]byte, 3*maxSize)))
			for i := range 5 {
				require.NoError(t, s.WriteInternal(fmt.Sprint("e", i), payload("e", s.payloadSize)))
			}
			require.Zero(t, stats().Evictions, "at the cap, not over it")
			for _, n := range []string{"e0", "e1"} {
				_, ok, err := s.ReadInternal(n)
				require.NoError(t, err)
				require.True(t, ok)
			}
			require.NoError(t, s.WriteInternal("e5", payload("e", s.payloadSize)))
			// 6000 bytes > 5000: evict by age (e2, e3, e4, e0, e1) down to 4500.
			require.Equal(t, uint64(2), stats().Evictions)
			for n, want := range map[string]bool{"e0": true, "e1": true, "e2": false, "e3": false, "e4": true, "e5": true} {
				_, ok, err := s.ReadInternal(n)
				require.NoError(t, err)
				require.Equal(t, want, ok, n)
			}
			_, ok, err := s.ReadBytecode("aot")
			require.NoError(t, err)
			require.True(t, ok)
			if d, isDir := s.BinaryIO.(*Dir); isDir {
				require.Equal(t, int64(4000), regenerableBytes(t, d))
			}
		})
	}
}

// TestEvictionUnderSustainedWrites writes many more entries than fit: the
// store never holds more than its cap, and the newest entry always survives.
func TestEvictionUnderSustainedWrites(t *testing.T) {
	const maxSize = 64 << 10
	d := newTestDir(t, WithMaxSize(maxSize))
	m := NewMemory(WithMaxSize(maxSize))
	for i := range 200 {
		data := payload(fmt.Sprint(i), 1000+i*37%7000)
		for _, s := range []BinaryIO{d, m} {
			require.NoError(t, s.WriteShaderCache(keyFor(fmt.Sprint(i)), data))
			got, ok, err := s.ReadShaderCache(keyFor(fmt.Sprint(i)))
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, data, got)
		}
		require.LessOrEqual(t, regenerableBytes(t, d), int64(maxSize))
		require.LessOrEqual(t, m.size, int64(maxSize))
	}
	require.NotZero(t, d.Stats().Evictions)
	require.NotZero(t, m.Stats().Evictions)
}

// TestEvictionSeesOtherWriters has two handles on one directory, as two
// processes would: a scan by either counts what the other wrote.
func TestEvictionSeesOtherWriters(t *testing.T) {
	const maxSize = 20000
	root := t.TempDir()
	a, err := NewDir(root, WithLogger(quiet), WithMaxSize(maxSize))
	require.NoError(t, err)
	b, err := NewDir(root, WithLogger(quiet), WithMaxSize(maxSize))
	require.NoError(t, err)
	clock := fakeClock(time.Second)
	a.now, b.now = clock, clock
	for i := range 15 {
		require.NoError(t, b.WriteInternal(fmt.Sprint("b", i), make([]byte, 1000)))
	}
	// a's first write scans and finds b's 15 entries; writing 6 more takes
	// it over the cap, and it evicts b's oldest.
	for i := range 6 {
		require.NoError(t, a.WriteInternal(fmt.Sprint("a", i), make([]byte, 1000)))
	}
	require.LessOrEqual(t, regenerableBytes(t, a), int64(maxSize))
	require.NotZero(t, a.Stats().Evictions)
	_, ok, err := a.ReadInternal("b0")
	require.NoError(t, err)
	require.False(t, ok, "the oldest entry, written by the other handle, is evicted")
	_, ok, err = b.ReadInternal("a5")
	require.NoError(t, err)
	require.True(t, ok)
}

func TestNoCapNoEviction(t *testing.T) {
	d := newTestDir(t, WithMaxSize(0))
	for i := range 50 {
		require.NoError(t, d.WriteInternal(fmt.Sprint(i), make([]byte, 10000)))
	}
	ents, err := os.ReadDir(filepath.Join(d.Path(), "internal"))
	require.NoError(t, err)
	require.Len(t, ents, 50)
	require.Zero(t, d.Stats().Evictions)
}

// TestTouchInterval checks that a read refreshes an entry's modification
// time only when it is older than the touch interval.
func TestTouchInterval(t *testing.T) {
	d := newTestDir(t)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	d.now = func() time.Time { return clock }
	require.NoError(t, d.WriteInternal("k", []byte("x")))
	path := filepath.Join(d.Path(), "internal", fileName(kindInternal, "k"))
	mtime := func() time.Time {
		st, err := os.Stat(path)
		require.NoError(t, err)
		return st.ModTime().UTC()
	}
	require.Equal(t, clock, mtime(), "a write stamps the store's clock")

	written := clock
	clock = clock.Add(defaultTouchInterval - time.Second)
	_, ok, err := d.ReadInternal("k")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, written, mtime(), "a read soon after the write does not touch")

	clock = clock.Add(2 * time.Second)
	_, ok, err = d.ReadInternal("k")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, clock, mtime(), "a read after the interval touches")

	uncapped := newTestDir(t, WithMaxSize(0))
	uncapped.now = d.now
	require.NoError(t, uncapped.WriteInternal("k", []byte("x")))
	upath := filepath.Join(uncapped.Path(), "internal", fileName(kindInternal, "k"))
	before, err := os.Stat(upath)
	require.NoError(t, err)
	clock = clock.Add(time.Hour)
	_, ok, err = uncapped.ReadInternal("k")
	require.NoError(t, err)
	require.True(t, ok)
	after, err := os.Stat(upath)
	require.NoError(t, err)
	require.Equal(t, before.ModTime(), after.ModTime(), "without a cap nothing is evicted, so nothing is touched")
}
