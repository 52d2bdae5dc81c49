package device_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// flush maps a float32 denormal to a zero of its sign: Vulkan lets devices
// flush denormals, so a result may match the reference on flushed operands.
func flush(x float32) float32 {
	if x != 0 && math.Abs(float64(x)) < 1.17549435e-38 {
		return float32(math.Copysign(0, float64(x)))
	}
	return x
}

func floatClose(got, want float32, tol float64, signedZero bool) bool {
	if want != want {
		return got != got
	}
	if !signedZero && got == 0 && want == 0 {
		return true
	}
	if tol == 0 {
		return math.Float32bits(got) == math.Float32bits(want) || flush(got) == flush(want) && math.Signbit(float64(got)) == math.Signbit(float64(want))
	}
	if math.IsInf(float64(want), 0) {
		return got == want
	}
	return math.Abs(float64(got)-float64(want)) <= tol*math.Max(1, math.Abs(float64(want)))
}

// TestBuiltinsFloat runs every float built-in on the device over edge-case
// operands (±0, ±Inf, NaN where defined, extremes, halves) and compares with
// the CPU reference within the op's stated tolerance.
func TestBuiltinsFloat(t *testing.T) {
	d := openDevice(t)
	for _, o := range programs.FloatOps {
		t.Run(o.Op.String(), func(t *testing.T) {
			cases := programs.FloatCases(o)
			k := compile(t, d, func() (*ir.Function, error) { return programs.FloatBuiltin(o) })
			cols := make([][]float32, o.Arity)
			for _, c := range cases {
				for j := range cols {
					cols[j] = append(cols[j], c[j])
				}
			}
			args := []any{}
			for _, col := range cols {
				args = append(args, upload(t, d, col))
			}
			out := upload(t, d, make([]float32, len(cases)))
			args = append(args, out)
			run(t, d, k.Dispatch([3]uint32{uint32(len(cases))}, args...))
			got := download(t, d, out)
			for i, c := range cases {
				want, ok := ir.RefFloat32(o.Op, c...)
				require.True(t, ok)
				flushed := make([]float32, len(c))
				for j := range c {
					flushed[j] = flush(c[j])
				}
				want2, _ := ir.RefFloat32(o.Op, flushed...)
				require.True(t, floatClose(got[i], want, o.Tol, o.SignedZero) || floatClose(got[i], want2, o.Tol, o.SignedZero),
					"%s%v = %v (bits %#x), want %v (tolerance %g)", o.Op, c, got[i], math.Float32bits(got[i]), want, o.Tol)
			}
		})
	}
}

// TestBuiltinsInt runs the integer built-ins on i32 and u32 over edge cases
// (0, ±1, the extremes, bit patterns); they are exact.
// TestBuiltinsFloat64 runs the built-ins GLSL.std.450 defines on 64-bit
// floats (those the Go front end takes from package math on float64) and
// compares with Go's math, exactly.
func TestBuiltinsFloat64(t *testing.T) {
	d := openDevice(t)
	if !d.Capabilities().Float64 {
		testenv.Need(t, "float64", errUnsupported("Float64"))
	}
	const ops = 9
	f, err := dsl.Kernel1D(32, func(k *dsl.K, in dsl.Buf[dsl.F64], out dsl.Buf[dsl.F64]) {
		i := k.DispatchID().X()
		x, y := in.Read(i), in.Read(i.Add(dsl.U(1)).Rem(in.Len()))
		o := i.Mul(dsl.U(ops))
		for j, v := range []dsl.F64{dsl.Abs(x), dsl.Floor(x), dsl.Ceil(x), dsl.Round(x), dsl.Trunc(x), dsl.Sqrt(dsl.Abs(x)), dsl.Min(x, y), dsl.Max(x, y), dsl.Fma(x, y, x)} {
			out.Write(o.Add(dsl.U(uint32(j))), v)
		}
	})
	require.NoError(t, err)
	k := compile(t, d, func() (*ir.Function, error) { return f, nil })
	in := []float64{0, -2.5, 2.5, 1e300, -0.49999999999999994, 3, math.Pi, -7.75, 1 << 53, 0.1}
	out := upload(t, d, make([]float64, ops*len(in)))
	run(t, d, k.Dispatch([3]uint32{uint32(len(in))}, upload(t, d, in), out))
	got := download(t, d, out)
	for i, x := range in {
		y := in[(i+1)%len(in)]
		want := []float64{math.Abs(x), math.Floor(x), math.Ceil(x), math.Round(x), math.Trunc(x), math.Sqrt(math.Abs(x)), math.Min(x, y), math.Max(x, y), math.FMA(x, y, x)}
		require.Equal(t, want, got[ops*i:ops*(i+1)], "x = %v, y = %v", x, y)
	}
}

func TestBuiltinsInt(t *testing.T) {
	d := openDevice(t)
	in := programs.IntInputs
	for _, o := range programs.IntOps {
		for _, signed := range []bool{true, false} {
			if o.Op == ir.OpSign && !signed {
				continue
			}
			t.Run(fmt.Sprintf("%s/signed=%v", o.Op, signed), func(t *testing.T) {
				var a, b, c []uint32
				for _, x := range in {
					for _, y := range in {
						if o.Arity == 1 && y != 0 {
							continue
						}
						a, b, c = append(a, x), append(b, y), append(c, y^0x55555555)
					}
				}
				k := compile(t, d, func() (*ir.Function, error) { return programs.IntBuiltin(o.Op, o.Arity, signed) })
				got := runInts(t, d, k, signed, a, b, c)
				for i := range a {
					if o.Op == ir.OpClamp && lessInt(signed, c[i], b[i]) {
						continue // clamp with lo > hi is undefined
					}
					want, ok := ir.RefInt(o.Op, signed, a[i], b[i], c[i])
					require.True(t, ok)
					require.Equal(t, want, got[i], "%s(%#x, %#x, %#x)", o.Op, a[i], b[i], c[i])
				}
			})
		}
	}
}

func lessInt(signed bool, x, y uint32) bool {
	if signed {
		return int32(x) < int32(y)
	}
	return x < y
}

// runInts dispatches kernel k over operand columns of u32 (or their bits as
// i32 when signed) plus an output buffer, and returns the output's bits.
func runInts(t *testing.T, d *device.Device, k *device.Kernel, signed bool, cols ...[]uint32) []uint32 {
	t.Helper()
	n := len(cols[0])
	args := []any{}
	if signed {
		for _, c := range cols {
			args = append(args, upload(t, d, toI32(c)))
		}
		out := upload(t, d, make([]int32, n))
		run(t, d, k.Dispatch([3]uint32{uint32(n)}, append(args, out)...))
		return toU32(download(t, d, out))
	}
	for _, c := range cols {
		args = append(args, upload(t, d, c))
	}
	out := upload(t, d, make([]uint32, n))
	run(t, d, k.Dispatch([3]uint32{uint32(n)}, append(args, out)...))
	return download(t, d, out)
}

func toI32(v []uint32) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

func toU32(v []int32) []uint32 {
	out := make([]uint32, len(v))
	for i, x := range v {
		out[i] = uint32(x)
	}
	return out
}

// TestOperatorsInt runs the integer operators on i32 and u32 over all pairs
// of edge cases: wrapping overflow, division signs, shifts by the width and
// beyond (Go's rule: everything shifted out), signed and unsigned compares.
func TestOperatorsInt(t *testing.T) {
	d := openDevice(t)
	in := programs.IntInputs
	for _, op := range programs.IntBinaryOps {
		for _, signed := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/signed=%v", op, signed), func(t *testing.T) {
				var a, b []uint32
				for _, x := range in {
					for _, y := range in {
						if _, ok := ir.RefBinary32(op, signed, x, y); ok {
							a, b = append(a, x), append(b, y)
						}
					}
				}
				k := compile(t, d, func() (*ir.Function, error) { return programs.IntBinary(op, signed) })
				got := runInts(t, d, k, signed, a, b)
				for i := range a {
					want, _ := ir.RefBinary32(op, signed, a[i], b[i])
					require.Equal(t, want, got[i], "%#x %s %#x", a[i], op, b[i])
				}
			})
		}
	}
}
