package device_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// xorshift32 is one step of Marsaglia's xorshift generator.
func xorshift32(s uint32) uint32 {
	s ^= s << 13
	s ^= s >> 17
	return s ^ s<<5
}

// loopExitKernel is the reduced form of rejection sampling: each thread
// draws points from a generator until one falls inside a disc, and keeps the
// vector it assigned just before the break. Threads leave the loop at
// different iterations; Mesa 22.3 gets the kept vector wrong in most threads
// unless the loop ends on a flag (codegen's LoopExitFlags workaround).
func loopExitKernel() (*ir.Function, error) {
	next := func(s dsl.U32) dsl.U32 {
		s = s.Xor(s.Shl(dsl.U(13)))
		s = s.Xor(s.Shr(dsl.U(17)))
		return s.Xor(s.Shl(dsl.U(5)))
	}
	return dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		st := dsl.NewVar(k, i.Add(dsl.U(1)))
		p := dsl.NewVar(k, dsl.V2(dsl.U(0), dsl.U(0)))
		k.Loop(func() {
			st.Set(next(st.Get()))
			x := st.Get().Shr(dsl.U(20))
			st.Set(next(st.Get()))
			y := st.Get().Shr(dsl.U(20))
			k.If(x.Mul(x).Add(y.Mul(y)).Lt(dsl.U(200000)), func() {
				p.Set(dsl.V2(x, y))
				k.Break()
			})
		})
		v := p.Get()
		out.Write(i, v.X().Mul(dsl.U(10000)).Add(v.Y()))
	})
}

// loopExitRef is loopExitKernel's thread i on the host.
func loopExitRef(i uint32) uint32 {
	s := i + 1
	for {
		s = xorshift32(s)
		x := s >> 20
		s = xorshift32(s)
		y := s >> 20
		if x*x+y*y < 200000 {
			return x*10000 + y
		}
	}
}

// loopExitWrong runs k over n threads and counts the threads whose value
// differs from loopExitRef.
func loopExitWrong(t *testing.T, d *device.Device, k *device.Kernel, n int) int {
	out := upload(t, d, make([]uint32, n))
	run(t, d, k.Dispatch([3]uint32{uint32(n)}, out))
	wrong := 0
	for i, v := range download(t, d, out) {
		if v != loopExitRef(uint32(i)) {
			wrong++
		}
	}
	return wrong
}

// TestLoopBreakValue: the vector a thread assigns just before breaking out
// of a loop that the threads of a block leave at different iterations is the
// one it assigned, on every driver. Where the device has the
// loop-exit-flags workaround (Mesa 22), the same kernel compiled without it
// is wrong (224 of 256 threads on 22.3), so the entry is still needed;
// elsewhere (Mesa 25) the workaround is off and changes nothing.
func TestLoopBreakValue(t *testing.T) {
	d := openDevice(t)
	const n = 256
	k := compile(t, d, loopExitKernel)
	require.Zero(t, loopExitWrong(t, d, k, n), "threads of %d with the wrong value", n)

	f, err := loopExitKernel()
	require.NoError(t, err)
	raw, err := device.Compile(d, f, device.WithoutDriverWorkarounds())
	require.NoError(t, err)
	defer raw.Close()
	wrong := loopExitWrong(t, d, raw, n)
	if slices.Contains(d.Capabilities().Workarounds, "loop-exit-flags") {
		require.NotZero(t, wrong, "%s needs loop-exit-flags no more", d.Capabilities().Adapter.Driver)
		t.Logf("%s without loop-exit-flags: %d of %d threads wrong", d.Capabilities().Adapter.Driver, wrong, n)
		if k.SPIRV() != nil {
			require.NotEqual(t, k.SPIRV(), raw.SPIRV())
		}
	} else {
		require.Zero(t, wrong, "%s without workarounds", d.Capabilities().Adapter.Driver)
		if k.SPIRV() != nil {
			require.Equal(t, k.SPIRV(), raw.SPIRV(), "no workaround applies: the modules are the same")
		}
	}
}
