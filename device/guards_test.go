package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// TestBufferByAddressBoundsGuard: buffers reached by device address are
// bounds-checked against the view they were given, as descriptor-bound ones
// are by robust access: reads past the view give zero, writes and atomics
// past it are dropped (an atomic then returns zero), at one element past the
// end and at an offset of gigabytes alike. Len is the view's length.
func TestBufferByAddressBoundsGuard(t *testing.T) {
	d := openDevice(t)
	skipOn(t, d, "cpu", "accesses are checked: one out of range fails the dispatch instead of reading zero")
	if !d.Capabilities().BufferDeviceAddress {
		testenv.Need(t, "buffer device addresses", errUnsupported("BufferDeviceAddress"))
	}
	f, err := dsl.Kernel1D(64, func(k *dsl.K, in dsl.BigBuf[dsl.U32], got dsl.Buf[dsl.U32], out dsl.BigBuf[dsl.U32], far dsl.U32) {
		i := k.DispatchID().X()
		got.Write(i, in.Read(i))
		out.Write(i, i.Add(dsl.U(1000)))
		// Thread 0 also reaches far: a read, a write and an atomic.
		k.If(i.Eq(dsl.U(0)), func() {
			got.Write(dsl.U(32), in.Read(far).Add(dsl.U(5)))
			out.Write(far, dsl.U(77))
			got.Write(dsl.U(33), out.AtomicAdd(far, dsl.U(1)).Add(dsl.U(9)))
			got.Write(dsl.U(34), in.Len())
		})
	}, "in", "got", "out", "far")
	require.NoError(t, err)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	require.True(t, k.Signature().Args[0].ByAddress)

	const n, off, view = 64, 16, 16
	ins := make([]uint32, n)
	for i := range ins {
		ins[i] = 100 + uint32(i)
	}
	in, out, got := upload(t, d, ins), upload(t, d, filled(n, 7)), upload(t, d, filled(35, 0xdead))
	for _, tc := range []struct {
		name string
		far  uint32
	}{
		{"just past the end", view},
		{"gigabytes past the end", 1<<31 - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run(t, d, out.Upload(filled(n, 7)),
				k.Dispatch([3]uint32{2 * view}, in.View(off, view), got, out.View(off, view), tc.far))
			g, o := download(t, d, got), download(t, d, out)
			for i := range 2 * view {
				want := uint32(0) // past the view: zero
				if i < view {
					want = 100 + off + uint32(i)
				}
				require.Equal(t, want, g[i], "read of element %d", i)
			}
			require.Equal(t, uint32(5), g[32], "read at %d", tc.far)
			require.Equal(t, uint32(9), g[33], "atomic at %d", tc.far)
			require.Equal(t, uint32(view), g[34], "Len of the view")
			for i := range n {
				want := uint32(7) // outside the view: untouched
				if i >= off && i < off+view {
					want = 1000 + uint32(i-off)
				}
				require.Equal(t, want, o[i], "element %d of the written buffer", i)
			}
		})
	}
}

func filled(n int, v uint32) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = v
	}
	return s
}
