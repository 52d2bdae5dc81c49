package gokernel_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/testdata/gokernel/printing"
)

// kernel.Printf prints the same texts, thread by thread in program order, on
// the CPU runner and on the devices, from the kernel, from a helper and from
// a helper that takes the kernel's buffer (specialised per call).
func TestPrintfDeviceMatchesCPU(t *testing.T) {
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/printing")
	require.Empty(t, errs)
	require.Len(t, ks, 1)

	const n = 150
	var mu sync.Mutex
	want := map[[3]uint32][]string{}
	out := make([]float32, n)
	g := kernel.Grid1(64, n)
	g.Print = func(th kernel.Uint3, text string) {
		mu.Lock()
		defer mu.Unlock()
		want[[3]uint32{th.X, th.Y, th.Z}] = append(want[[3]uint32{th.X, th.Y, th.Z}], text)
	}
	require.NoError(t, kernel.Run(context.Background(), g, func() { printing.Show(0.5, out) }))
	require.Len(t, want, n)
	require.Equal(t, []string{"i=3 j=0 x=1.50 1.5\n", "i=3 j=1 x=1.50 1.5\n", "v={1.5 2.5 -1.5} h=0x3000 n=-2 ok=false",
		"helper 1.500000e+00 3298534883328 0.5", "at 3 of 150: 3"}, want[[3]uint32{3, 0, 0}])

	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			var mu sync.Mutex
			got := map[[3]uint32][]string{}
			d, err := device.Open(context.Background(), backend, device.WithPrint(func(p device.KernelPrint) {
				mu.Lock()
				defer mu.Unlock()
				require.Equal(t, "Show", p.Kernel)
				got[p.Thread] = append(got[p.Thread], p.Text)
			}))
			testenv.Need(t, backend+" device", err)
			defer d.Close()
			dk, err := device.Compile(d, ks[0].Func, device.WithKernelName(ks[0].Name))
			require.NoError(t, err)
			defer dk.Close()
			ob, err := device.NewBuffer[float32](d, n)
			require.NoError(t, err)
			defer ob.Close()
			s, err := d.NewStream(device.StreamCompute)
			require.NoError(t, err)
			defer s.Close()
			require.NoError(t, s.Submit(dk.Dispatch([3]uint32{n}, float32(0.5), ob)))
			require.NoError(t, s.Synchronize(context.Background()))
			require.Equal(t, want, got)
		})
	}
}
