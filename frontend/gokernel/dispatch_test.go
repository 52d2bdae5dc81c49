package gokernel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/testdata/gokernel/dispatch"
)

// TestDispatchGroups: kernel.DispatchSize and kernel.DispatchGroups on the
// CPU runner and, compiled, on a device, directly and indirectly
// dispatched (there DispatchSize is the threads launched).
func TestDispatchGroups(t *testing.T) {
	out := make([]uint32, 7)
	cpu(t, kernel.Grid2(8, 4, 20, 7), func() { dispatch.Info(out) })
	require.Equal(t, []uint32{20, 7, 1, 3, 2, 1, 20 * 7}, out, "CPU")

	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/dispatch")
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	g := compileOn(t, openDevice(t), ks[0])
	ob := upload(g, make([]uint32, 7))
	g.submit(g.k.Dispatch([3]uint32{20, 7}, ob))
	require.Equal(t, []uint32{20, 7, 1, 3, 2, 1, 20 * 7}, download(g, ob), "direct")
	groups := upload(g, []uint32{3, 2, 1})
	g.submit(ob.Upload(make([]uint32, 7)), g.k.DispatchIndirect(groups.All(), ob))
	require.Equal(t, []uint32{24, 8, 1, 3, 2, 1, 24 * 8}, download(g, ob), "indirect")
}
