package gokernel_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/testdata/gokernel/bitops"
)

// bitsInput is operands at the edges of every width (zero, single bits,
// all ones, the top bits of 8, 16 and 32 bits) and random ones, with
// rotations negative, zero and past every width.
func bitsInput() (xs []uint32, ks []int32) {
	xs = []uint32{0, 1, 2, 0x80000000, 0xffffffff, 0x7fffffff, 0x00010000, 0x8000, 0x80, 0xff, 0xffff, 0x800, 0x40000, 0x12345678, 0xdeadbeef, 0xf0}
	ks = []int32{0, 1, -1, 7, 8, -8, 15, 16, -16, 31, 32, -32, 33, -33, 63, 64, -64, 65, 100, -100, 1 << 30, -1 << 31}
	r := rand.New(rand.NewPCG(3, 7))
	for len(xs) < 96 {
		xs = append(xs, r.Uint32()>>r.IntN(32))
	}
	for len(ks) < len(xs) {
		ks = append(ks, r.Int32N(200)-100)
	}
	return xs, ks
}

// TestMathBits: the functions of math/bits (OnesCount, LeadingZeros,
// TrailingZeros, Len, Reverse, RotateLeft, ReverseBytes at 8, 16, 32, 64
// bits and uint) compute on the devices and in the interpreter exactly
// what they compute in Go, run by kernel.Run.
func TestMathBits(t *testing.T) {
	xs, ks := bitsInput()
	want := make([]uint32, len(xs)*bitops.Cols)
	cpu(t, kernel.Grid1(32, uint32(len(xs))), func() { bitops.Bits(xs, ks, want) })

	kk, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/bitops")
	require.Empty(t, errs)
	require.Len(t, kk, 1)
	k := kk[0]
	require.NoError(t, k.Func.Validate())

	check := func(t *testing.T, got []uint32) {
		t.Helper()
		require.Len(t, got, len(want))
		for i := range want {
			row := i / bitops.Cols
			require.Equal(t, want[i], got[i], "thread %d (x %#x, k %d) column %d", row, xs[row], ks[row], i%bitops.Cols)
		}
	}
	out := interp.NewBuffer(ir.TU32, len(want))
	require.NoError(t, interp.Run(k.Func, [3]uint32{uint32(len(xs)), 1, 1}, ibuf(ir.TU32, xs), ibuf(ir.TI32, ks), out))
	got := make([]uint32, len(want))
	require.NoError(t, binary.Read(bytes.NewReader(out.Data), binary.LittleEndian, got))
	check(t, got)
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			g := compileOn(t, openBackend(t, backend), k)
			ob := upload(g, make([]uint32, len(want)))
			g.submit(g.k.Dispatch([3]uint32{uint32(len(xs))}, upload(g, xs), upload(g, ks), ob))
			check(t, download(g, ob))
		})
	}
}
