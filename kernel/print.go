package kernel

import (
	"context"
	"strings"
)

// Printf formats args as fmt.Sprintf does and prints the text with the
// calling thread's dispatch id: on the CPU runner to Grid.Print (nil: the
// context's, ContextWithPrint, else the default slog logger), on a device to the device's print handler
// (device.WithPrint) after the command list has run. format must be a
// constant string; it takes the verbs %d %x %X %f %F %e %E %g %G %t %v with
// flags, width and precision, %%, and %u, which is %d for unsigned integers.
// Each argument is a scalar (bool, integers, float32, float64) or a vector of
// this package; a device formats a vector as fmt formats these structs.
func Printf(format string, args ...any) {
	t := current("Printf")
	printAt(t.group.grid.Print, t.dispatch, format, args...)
}

// printKey is the context key of ContextWithPrint's function.
type printKey struct{}

// ContextWithPrint returns ctx carrying print, to which Run and RunBlocks
// hand what the threads print (Printf) where their Grid's Print is nil. So a
// caller that only passes a context along — a launcher's host function, run
// by a backend that has its own print handler — prints where that caller's
// caller says.
func ContextWithPrint(ctx context.Context, print func(thread Uint3, text string)) context.Context {
	return context.WithValue(ctx, printKey{}, print)
}

// withContextPrint is g with the print function of ctx where g has none.
func (g Grid) withContextPrint(ctx context.Context) Grid {
	if g.Print == nil && ctx != nil {
		if p, ok := ctx.Value(printKey{}).(func(Uint3, string)); ok {
			g.Print = p
		}
	}
	return g
}

// Assert panics with msg where cond does not hold; kernel.Run reports the
// panic as the failing thread's error, with the position of the call. On a
// device, a kernel compiled in the checked mode (device.WithChecked; always
// on the cpu backend) records a *device.KernelFault of kind FaultAssert
// with msg and the call's file:line:col; unchecked it costs nothing. msg
// must be a constant string; cond must have no effects.
func Assert(cond bool, msg string) {
	if !cond {
		panic(AssertionError{Msg: msg})
	}
}

// AssertionError is the panic of a failed Assert.
type AssertionError struct{ Msg string }

func (e AssertionError) Error() string { return "assertion failed: " + e.Msg }

// goFormat is format with %u as %d, the one verb fmt lacks (frontend/ir's
// GoPrintFormat does the same for devices).
func goFormat(format string) string {
	if !strings.Contains(format, "u") {
		return format
	}
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		b.WriteByte(c)
		if c != '%' {
			continue
		}
		for i+1 < len(format) && strings.IndexByte("+-# 0.0123456789", format[i+1]) >= 0 {
			i++
			b.WriteByte(format[i])
		}
		if i+1 < len(format) {
			i++
			if format[i] == 'u' {
				b.WriteByte('d')
			} else {
				b.WriteByte(format[i])
			}
		}
	}
	return b.String()
}
