package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// TestDispatchSizeAndGroups: DispatchSize is the threads asked for in a
// direct dispatch and the threads launched (groups × block) in an indirect
// one, where the group count lives on the device; DispatchGroups is the
// number of blocks launched in both.
func TestDispatchSizeAndGroups(t *testing.T) {
	d := openDevice(t)
	f, err := dsl.Kernel2D(8, 4, func(k *dsl.K, out dsl.Buf[dsl.U32]) {
		id := k.DispatchID()
		k.If(id.X().Eq(dsl.U(0)).And(id.Y().Eq(dsl.U(0))), func() {
			s, g := k.DispatchSize(), k.DispatchGroups()
			out.Write(dsl.U(0), s.X())
			out.Write(dsl.U(1), s.Y())
			out.Write(dsl.U(2), s.Z())
			out.Write(dsl.U(3), g.X())
			out.Write(dsl.U(4), g.Y())
			out.Write(dsl.U(5), g.Z())
		})
		// Every launched thread counts itself.
		out.AtomicAdd(dsl.U(6), dsl.U(1))
	}, "out")
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	groups := upload(t, d, []uint32{0, 3, 2, 1})

	out := upload(t, d, make([]uint32, 7))
	run(t, d, k.Dispatch([3]uint32{20, 7}, out))
	require.Equal(t, []uint32{20, 7, 1, 3, 2, 1, 20 * 7}, download(t, d, out), "direct")

	run(t, d, out.Upload(make([]uint32, 7)), k.DispatchIndirect(groups.View(1, 3), out))
	require.Equal(t, []uint32{24, 8, 1, 3, 2, 1, 24 * 8}, download(t, d, out), "indirect")
}
