package vulkan

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStagingKeepBigAfterSmall: a big staging buffer released while smaller
// ones are kept evicts them rather than being dropped itself, and serves the
// small requests after it. Dropping it (the keep counted the small buffers)
// made every 256 MiB transfer after a smaller one fault in fresh memory.
func TestStagingKeepBigAfterSmall(t *testing.T) {
	d, _ := openDevice(t)
	m := d.mem
	const small, big = 16 << 20, stagingKeep
	var seen *rawBuffer
	for round := range 3 {
		s, err := m.newStaging(small)
		require.NoError(t, err)
		m.releaseStaging(s)
		b, err := m.newStaging(big)
		require.NoError(t, err)
		if round > 0 {
			require.Same(t, seen, b, "round %d: the big buffer is reused", round)
			require.Same(t, seen, s, "round %d: the small request is served by the big buffer", round)
		}
		seen = b
		m.releaseStaging(b)
		m.stagingMu.Lock()
		require.LessOrEqual(t, m.stagingBytes, uint64(stagingKeep), "round %d", round)
		m.stagingMu.Unlock()
	}
}

// TestStagingKeepBound: what is kept never exceeds stagingKeep bytes, a
// buffer larger than the keep is never kept, and a released buffer evicts
// only smaller ones (a smaller buffer released into a full keep is dropped).
func TestStagingKeepBound(t *testing.T) {
	d, _ := openDevice(t)
	m := d.mem
	kept := func() (n int, bytes uint64) {
		m.stagingMu.Lock()
		defer m.stagingMu.Unlock()
		return len(m.stagingFree), m.stagingBytes
	}
	huge, err := m.newStaging(2 * stagingKeep)
	require.NoError(t, err)
	m.releaseStaging(huge)
	n, bytes := kept()
	require.Zero(t, n, "a buffer beyond the keep is not kept")
	require.Zero(t, bytes)

	// Two buffers in use at once fill the keep when released.
	a, err := m.newStaging(stagingKeep / 2)
	require.NoError(t, err)
	b, err := m.newStaging(stagingKeep / 2)
	require.NoError(t, err)
	c, err := m.newStaging(1 << 20)
	require.NoError(t, err)
	m.releaseStaging(a)
	m.releaseStaging(b)
	m.releaseStaging(c) // smaller than both: dropped
	n, bytes = kept()
	require.Equal(t, 2, n)
	require.Equal(t, uint64(stagingKeep), bytes)
}
