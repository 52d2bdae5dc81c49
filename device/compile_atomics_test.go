package device_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

func testAtomics[E int32 | uint32 | int64 | uint64](t *testing.T, d *device.Device, lo, hi E) {
	k := compile(t, d, programs.Atomics[E])
	in := make([]E, programs.AtomicBlock)
	for i := range in {
		in[i] = E(i*i*7+3) ^ E(i<<5)
	}
	in[5], in[9] = lo, hi
	var ones E
	ones = ^ones
	init := []E{0, 0, ones, 0, 0, hi, lo}
	bin, binit := upload(t, d, in), upload(t, d, init)
	bufOut, sharedOut := upload(t, d, init), upload(t, d, make([]E, len(init)))
	run(t, d, k.Dispatch([3]uint32{programs.AtomicBlock}, bin, binit, bufOut, sharedOut))
	want := programs.AtomicsRef(in, init)
	require.Equal(t, want, download(t, d, bufOut), "buffer atomics")
	require.Equal(t, want, download(t, d, sharedOut), "shared atomics")
}

// TestAtomics checks add, sub, and, or, xor, min and max on buffer elements
// and shared memory for 32- and 64-bit signed and unsigned integers.
func TestAtomics(t *testing.T) {
	d := openDevice(t)
	t.Run("i32", func(t *testing.T) { testAtomics[int32](t, d, math.MinInt32, math.MaxInt32) })
	t.Run("u32", func(t *testing.T) { testAtomics[uint32](t, d, 0, math.MaxUint32) })
	if !d.Capabilities().AtomicInt64 {
		testenv.Need(t, "64-bit atomics", errUnsupported("AtomicInt64"))
	}
	t.Run("i64", func(t *testing.T) { testAtomics[int64](t, d, math.MinInt64, math.MaxInt64) })
	t.Run("u64", func(t *testing.T) { testAtomics[uint64](t, d, 0, math.MaxUint64) })
}

type errUnsupported string

func (e errUnsupported) Error() string { return "device lacks " + string(e) }

func TestAtomicExchangeAndCAS(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.AtomicSwap)
	const n = programs.AtomicBlock
	ex, old, cas, won := upload(t, d, make([]uint32, 4)), upload(t, d, make([]uint32, n)), upload(t, d, make([]uint32, 4)), upload(t, d, make([]uint32, n))
	run(t, d, k.Dispatch([3]uint32{n}, ex, old, cas, won))
	gEx, gOld, gCas, gWon := download(t, d, ex), download(t, d, old), download(t, d, cas), download(t, d, won)
	for slot := range 4 {
		// Exchange: the old values seen in a slot plus its final value are
		// the slot's initial 0 and every writer's value, each once.
		seen := map[uint32]int{gEx[slot]: 1}
		winners := 0
		for i := slot; i < n; i += 4 {
			seen[gOld[i]]++
			if gWon[i] == 0 {
				winners++
				require.Equal(t, uint32(i+1), gCas[slot], "slot %d holds the CAS winner's value", slot)
			} else {
				require.Equal(t, gCas[slot], gWon[i], "losers saw the winner's value")
			}
		}
		require.Equal(t, 1, winners, "slot %d: exactly one CAS succeeds", slot)
		require.Equal(t, 1, seen[0], "slot %d", slot)
		for i := slot; i < n; i += 4 {
			require.Equal(t, 1, seen[uint32(i+1)], "slot %d value %d", slot, i+1)
		}
	}
}

func TestFloatAtomicAdd(t *testing.T) {
	d := openDevice(t)
	if !d.Capabilities().AtomicFloat32Add {
		f, err := programs.FloatAtomicAdd()
		require.NoError(t, err)
		_, err = device.Compile(d, f)
		require.ErrorIs(t, err, device.ErrUnsupported)
		testenv.Need(t, "float32 atomic add", errUnsupported("AtomicFloat32Add"))
	}
	k := compile(t, d, programs.FloatAtomicAdd)
	in := make([]float32, programs.AtomicBlock)
	var want float32
	for i := range in {
		in[i] = float32(i%9) - 3.5 // halves: every partial sum is exact
		want += in[i]
	}
	bin, sum := upload(t, d, in), upload(t, d, []float32{0, 0})
	run(t, d, k.Dispatch([3]uint32{programs.AtomicBlock}, bin, sum))
	require.Equal(t, []float32{want, want}, download(t, d, sum))
}

func TestSubgroups(t *testing.T) {
	d := openDevice(t)
	caps := d.Capabilities()
	if !caps.Subgroups {
		testenv.Need(t, "subgroup operations", errUnsupported("Subgroups"))
	}
	k := compile(t, d, programs.Subgroups)
	in := make([]uint32, programs.AtomicBlock)
	for i := range in {
		in[i] = uint32(i*37%23) + 1
	}
	bin, out := upload(t, d, in), upload(t, d, make([]uint32, 11*len(in)))
	run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, bin, out))
	require.Equal(t, programs.SubgroupsRef(in, int(caps.WarpSize)), download(t, d, out))
}

// TestFloatAtomicsEmulated runs float32 add, sub, min, max, exchange and
// compare-and-swap on a buffer, natively where the device can and through
// compare-and-swap loops on a u32 alias of the buffer otherwise.
func TestFloatAtomicsEmulated(t *testing.T) {
	d := openDevice(t)
	f, err := programs.FloatAtomics()
	require.NoError(t, err)
	for _, emulated := range []bool{false, true} {
		var opts []device.CompileOption
		if emulated {
			opts = append(opts, device.WithEmulatedFloatAtomics())
		}
		k, err := device.Compile(d, f, opts...)
		require.NoError(t, err)
		defer k.Close()
		in := make([]float32, programs.AtomicBlock)
		var sum float32
		for i := range in {
			in[i] = float32(i%13) - 6.5
			sum += in[i]
		}
		bin, out, olds := upload(t, d, in), upload(t, d, []float32{0, 0, 100, -100, 0.5, 0}), upload(t, d, make([]float32, len(in)))
		run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, bin, out, olds))
		got := download(t, d, out)
		require.Equal(t, []float32{sum, -sum, -6.5, 5.5}, got[:4], "emulated=%v", emulated)
		require.Equal(t, float32(1), got[5])
		// Exchange: the olds and the final value are 0.5 and every input, each once.
		seen := map[float32]int{got[4]: 1}
		for _, o := range download(t, d, olds) {
			seen[o]++
		}
		want := map[float32]int{0.5: 1}
		for _, v := range in {
			want[v]++
		}
		require.Equal(t, want, seen)
	}
}

// TestFloatAtomicsShared runs float32 add, sub, min and max on shared
// memory: min and max (and add/sub when emulated) on a shared array stored
// as u32 bits with compare-and-swap loops.
func TestFloatAtomicsShared(t *testing.T) {
	d := openDevice(t)
	f, err := programs.FloatAtomicsShared()
	require.NoError(t, err)
	in := make([]float32, programs.AtomicBlock)
	var sum float32
	for i := range in {
		in[i] = float32(i%11) - 4.5
		sum += in[i]
	}
	for _, emulated := range []bool{false, true} {
		var opts []device.CompileOption
		if emulated {
			opts = append(opts, device.WithEmulatedFloatAtomics())
		}
		k, err := device.Compile(d, f, opts...)
		require.NoError(t, err)
		defer k.Close()
		bin, out := upload(t, d, in), upload(t, d, make([]float32, 4))
		run(t, d, k.Dispatch([3]uint32{programs.AtomicBlock}, bin, out))
		require.Equal(t, []float32{sum, -sum, -4.5, 5.5}, download(t, d, out), "emulated=%v", emulated)
	}
}
