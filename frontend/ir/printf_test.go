package ir_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/kernel"
)

// printKernel prints a scalar of each kind and a vector per thread.
func printKernel(t *testing.T) *ir.Function {
	t.Helper()
	f, err := dsl.Kernel1D(4, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		x := dsl.Convert[float32](i).Mul(dsl.F(1.5))
		k.Printf("thread %d: %u %x %5.2f %g %e %v %t\n", dsl.Convert[int32](i).Sub(dsl.I(2)), i, i.Add(dsl.U(250)), x, x, x, k.DispatchID(), i.Lt(dsl.U(2)))
		out.Write(i, x)
	}, "out")
	require.NoError(t, err)
	return f
}

// The interpreter prints every thread's text as Go's fmt prints the same
// values, a vector as the kernel package's struct.
func TestPrintInterp(t *testing.T) {
	f := printKernel(t)
	require.NoError(t, f.Validate())
	var got []string
	var threads [][3]uint32
	out := interp.NewBuffer(ir.TF32, 4)
	require.NoError(t, interp.RunPrint(f, [3]uint32{4, 1, 1}, func(th [3]uint32, text string) {
		threads = append(threads, th)
		got = append(got, text)
	}, out))
	var want []string
	for i := range uint32(4) {
		x := float32(i) * 1.5
		want = append(want, fmt.Sprintf("thread %d: %d %x %5.2f %g %e %v %t\n", int32(i)-2, i, i+250, x, x, x, kernel.Uint3{X: i, Y: 0, Z: 0}, i < 2))
		require.Equal(t, [3]uint32{i, 0, 0}, threads[i])
	}
	require.Equal(t, want, got)
}

// Print takes part in Hash, the serialised form and the printer.
func TestPrintNode(t *testing.T) {
	f := printKernel(t)
	g := printKernel(t)
	require.Equal(t, f.Hash(), g.Hash())
	g.Prints()[0].Format = "other %d %u %x %f %g %e %v %t"
	require.NotEqual(t, f.Hash(), g.Hash(), "the format is hashed")

	data, err := ir.MarshalKernel(f)
	require.NoError(t, err)
	back, err := ir.UnmarshalKernel(data)
	require.NoError(t, err)
	require.Equal(t, f.Hash(), back.Hash())
	require.Len(t, back.Prints(), 1)
	require.Equal(t, f.Prints()[0].Format, back.Prints()[0].Format)
	require.Contains(t, f.String(), `print "thread %d: %u`)
}

// Validate holds the format's verbs to the arguments.
func TestPrintValidate(t *testing.T) {
	for _, c := range []struct {
		name, format string
		args         []ir.Expr
		err          string
	}{
		{"too few verbs", "%d", []ir.Expr{ir.LitInt(ir.TI32, 1), ir.LitInt(ir.TI32, 2)}, "1 verbs for 2 arguments"},
		{"too many verbs", "%d %d", []ir.Expr{ir.LitInt(ir.TI32, 1)}, "2 verbs for 1 arguments"},
		{"float with %d", "%d", []ir.Expr{ir.LitFloat(ir.TF32, 1)}, "verb %d does not format argument 0, a f32"},
		{"signed with %u", "%u", []ir.Expr{ir.LitInt(ir.TI32, 1)}, "verb %u does not format argument 0"},
		{"int with %f", "%f", []ir.Expr{ir.LitInt(ir.TU32, 1)}, "verb %f does not format"},
		{"string verb", "%s", []ir.Expr{ir.LitInt(ir.TU32, 1)}, "verb %s is not supported"},
		{"star width", "%*d", []ir.Expr{ir.LitInt(ir.TU32, 1)}, "verb %* is not supported"},
		{"index", "%[1]d", []ir.Expr{ir.LitInt(ir.TU32, 1)}, "not supported"},
		{"open verb", "abc %", nil, "ends inside a verb"},
		{"go syntax", "%#v", []ir.Expr{ir.LitInt(ir.TU32, 1)}, "%#v is not supported"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := ir.NewKernel("p", 1, [3]uint32{1, 1, 1})
			f.Body.Stmts = append(f.Body.Stmts, &ir.Print{Format: c.format, Args: c.args})
			err := f.Validate()
			require.ErrorIs(t, err, ir.ErrInvalid)
			require.ErrorContains(t, err, c.err)
		})
	}
	f := ir.NewKernel("p", 1, [3]uint32{1, 1, 1})
	f.Body.Stmts = append(f.Body.Stmts, &ir.Print{Format: "%% %+08.3f %-4d|%X %v", Args: []ir.Expr{
		ir.LitFloat(ir.TF64, 2), ir.LitInt(ir.TI64, -3), ir.LitInt(ir.TU64, 255), ir.LitBool(true)}})
	require.NoError(t, f.Validate())
}

// A DSL Printf whose format does not fit its values fails at the call site.
func TestPrintDSLCallSite(t *testing.T) {
	_, err := dsl.Kernel1D(4, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		k.Printf("%d", dsl.F(1))
	}, "out")
	require.ErrorIs(t, err, dsl.ErrDSL)
	require.ErrorContains(t, err, "printf_test.go:")
	require.ErrorContains(t, err, "verb %d does not format argument 0, a f32")
}

// PrintValue gives fmt the host's values: 64-bit halves, small integers,
// floats by their bits.
func TestPrintValue(t *testing.T) {
	x := uint64(0x1234_5678_9abc_def0)
	require.Equal(t, x, ir.PrintValue(ir.TU64, []uint32{uint32(x), uint32(x >> 32)}))
	require.Equal(t, int64(-2), ir.PrintValue(ir.TI64, []uint32{0xffff_fffe, 0xffff_ffff}))
	require.Equal(t, int8(-1), ir.PrintValue(ir.Int(8), []uint32{0xffff_ffff}))
	require.Equal(t, math.Pi, ir.PrintValue(ir.TF64, []uint32{uint32(math.Float64bits(math.Pi)), uint32(math.Float64bits(math.Pi) >> 32)}))
	v := ir.PrintValue(ir.Vector(ir.TF32, 2), []uint32{math.Float32bits(1.5), math.Float32bits(-2)})
	require.Equal(t, fmt.Sprintf("%v %+v %.1f", kernel.Float2{X: 1.5, Y: -2}, kernel.Float2{X: 1.5, Y: -2}, kernel.Float2{X: 1.5, Y: -2}),
		fmt.Sprintf("%v %+v %.1f", v, v, v))
	require.Equal(t, "7 %d", ir.FormatPrint("%u %%d", []any{uint32(7)}))
}
