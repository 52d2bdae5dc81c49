package device_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

type scalar interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// testCast converts in on the device and compares with Go's conversion,
// which is the reference for every value both define (in-range values).
func testCast[To, From scalar](t *testing.T, d *device.Device, in []From, conv func(From) To) {
	t.Helper()
	k := compile(t, d, programs.Cast[To, From])
	src, dst := upload(t, d, in), upload(t, d, make([]To, len(in)))
	run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, src, dst))
	got := download(t, d, dst)
	for i, v := range in {
		require.Equal(t, conv(v), got[i], "convert %v", v)
	}
}

// TestCasts converts between 8-, 16-, 32- and 64-bit integers and 32/64-bit
// floats on the device: sign and zero extension, truncation, float rounding
// and truncation toward zero.
func TestCasts(t *testing.T) {
	d := openDevice(t)
	caps := d.Capabilities()
	if !caps.Int8 || !caps.Int16 || !caps.Int64 || !caps.Float64 || !caps.Storage8 || !caps.Storage16 {
		testenv.Need(t, "8/16/64-bit types", errUnsupported("Int8/Int16/Int64/Float64/Storage8/Storage16"))
	}
	t.Run("i8→f32", func(t *testing.T) {
		testCast(t, d, []int8{0, 1, -1, 127, -128, 42}, func(v int8) float32 { return float32(v) })
	})
	t.Run("f32→u8", func(t *testing.T) {
		testCast(t, d, []float32{0, 1.9, 254.99, 255, 0.5, 17.25}, func(v float32) uint8 { return uint8(v) })
	})
	t.Run("u64→i16 (truncates)", func(t *testing.T) {
		testCast(t, d, []uint64{0, 1, 0xffff, 0x8000, 0x123456789abc, math.MaxUint64}, func(v uint64) int16 { return int16(v) })
	})
	t.Run("i64→f64", func(t *testing.T) {
		testCast(t, d, []int64{0, -1, 1 << 53, math.MinInt64, 123456789}, func(v int64) float64 { return float64(v) })
	})
	t.Run("i16→u32 (sign-extends)", func(t *testing.T) {
		testCast(t, d, []int16{0, -1, math.MinInt16, math.MaxInt16, -300}, func(v int16) uint32 { return uint32(v) })
	})
	t.Run("f64→f32 (rounds)", func(t *testing.T) {
		testCast(t, d, []float64{0, 1.0 / 3, -2.5e-10, 1e30, math.Pi}, func(v float64) float32 { return float32(v) })
	})
	t.Run("f32→i32 (truncates toward zero)", func(t *testing.T) {
		testCast(t, d, []float32{-2.7, -0.5, 0.5, 2.7, -2147483648, 2147483520}, func(v float32) int32 { return int32(v) })
	})
}

// TestCastsRoundThroughFloat converts integers to a float and back: the
// float's rounding stays (int32(float32(1<<24+1)) is 1<<24), which Mesa's
// compiler folded away unless the conversion is marked NoContraction.
func TestCastsRoundThroughFloat(t *testing.T) {
	d := openDevice(t)
	via := func(t *testing.T, f func() (*ir.Function, error), in, want any) {
		t.Helper()
		k := compile(t, d, f)
		switch in := in.(type) {
		case []int32:
			src, dst := upload(t, d, in), upload(t, d, make([]int32, len(in)))
			run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, src, dst))
			require.Equal(t, want, download(t, d, dst))
		case []uint32:
			src, dst := upload(t, d, in), upload(t, d, make([]uint32, len(in)))
			run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, src, dst))
			require.Equal(t, want, download(t, d, dst))
		case []uint64:
			src, dst := upload(t, d, in), upload(t, d, make([]uint64, len(in)))
			run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, src, dst))
			require.Equal(t, want, download(t, d, dst))
		}
	}
	i32 := []int32{1<<24 + 1, -(1<<24 + 3), math.MaxInt32 - 64, 0x12345679, 7}
	var wi32 []int32
	for _, v := range i32 {
		wi32 = append(wi32, int32(float32(v)))
	}
	via(t, programs.CastVia[int32, float32, int32], i32, wi32)
	u32 := []uint32{1<<24 + 1, 0x7fffffff - 64, 0x89abcdef, 3}
	var wu32 []uint32
	for _, v := range u32 {
		wu32 = append(wu32, uint32(float32(v)))
	}
	via(t, programs.CastVia[uint32, float32, uint32], u32, wu32)
	if !d.Capabilities().Int64 || !d.Capabilities().Float64 {
		return
	}
	u64 := []uint64{1<<53 + 1, 1<<61 - 1, 12345678901234567890, 5}
	var wf32, wf64 []uint64
	for _, v := range u64 {
		wf32, wf64 = append(wf32, uint64(float32(v))), append(wf64, uint64(float64(v)))
	}
	via(t, programs.CastVia[uint64, float32, uint64], u64, wf32)
	via(t, programs.CastVia[uint64, float64, uint64], u64, wf64)
}

func TestBitcastAndBoolUniform(t *testing.T) {
	d := openDevice(t)
	k := compile(t, d, programs.BitcastKernel[uint32, float32])
	in := []float32{0, float32(math.Copysign(0, -1)), 1, float32(math.Inf(-1)), 3.5}
	src, dst := upload(t, d, in), upload(t, d, make([]uint32, len(in)))
	run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, src, dst))
	for i, v := range download(t, d, dst) {
		require.Equal(t, math.Float32bits(in[i]), v)
	}

	kb := compile(t, d, programs.BoolUniform)
	xs := upload(t, d, []int32{-1, 0, 5})
	out := upload(t, d, make([]uint32, 3))
	for _, flag := range []bool{true, false} {
		run(t, d, kb.Dispatch([3]uint32{3}, flag, xs, out))
		want := []uint32{2, 2, 2}
		if flag {
			want[2] = 1
		}
		require.Equal(t, want, download(t, d, out), "flag %v", flag)
	}
}
