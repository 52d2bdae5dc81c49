package dsl_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// Errors found while tracing name the kernel line that caused them, and a
// Break or Continue with nothing to leave is one of them.
func TestTraceErrorsNameTheLine(t *testing.T) {
	type body = func(k *dsl.K, o dsl.Buf[dsl.U32])
	var want string
	cs := dsl.Callable("cs", func(k *dsl.K, x dsl.U32) dsl.U32 {
		want = line(1)
		sh := dsl.NewShared[dsl.U32](k, 4)
		sh.Write(x, x)
		return sh.Read(x)
	})
	cases := []struct {
		name string
		body body
		msg  string
	}{
		{"break outside a loop", func(k *dsl.K, o dsl.Buf[dsl.U32]) {
			want = line(1)
			k.Break()
		}, "Break outside a loop or switch"},
		{"continue in a switch outside a loop", func(k *dsl.K, o dsl.Buf[dsl.U32]) {
			k.Switch(dsl.U(1)).Case(func() {
				want = line(1)
				k.Continue()
			}, 1)
		}, "Continue outside a loop"},
		{"second else", func(k *dsl.K, o dsl.Buf[dsl.U32]) {
			c := k.If(dsl.B(true), func() {})
			c.Else(func() {})
			want = line(1)
			c.Else(func() {})
		}, "second Else"},
		{"huge shared array", func(k *dsl.K, o dsl.Buf[dsl.U32]) {
			want = line(1)
			sh := dsl.NewShared[dsl.U32](k, 1<<20)
			sh.Write(dsl.U(0), dsl.U(1))
		}, "NewShared in kernel: "},
		{"shared array in a callable", func(k *dsl.K, o dsl.Buf[dsl.U32]) {
			o.Write(dsl.U(0), cs(k, dsl.U(1)))
		}, "shared array of 4 u32 in cs"},
	}
	for _, c := range cases {
		_, err := dsl.Kernel1D(64, c.body)
		if err == nil || !errors.Is(err, dsl.ErrDSL) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want an ErrDSL naming %s and saying %q", c.name, err, want, c.msg)
		}
	}
	// Break and Continue where there is something to leave.
	_, err := dsl.Kernel1D(64, func(k *dsl.K, o dsl.Buf[dsl.U32]) {
		k.Loop(func() { k.Break() })
		dsl.Range(k, dsl.U(0), dsl.U(4), func(i dsl.U32) {
			k.If(i.Eq(dsl.U(1)), k.Continue)
			k.Switch(i).Case(func() { k.Break() }, 2).Default(func() { k.Continue() })
		})
		k.While(func() dsl.Bool { return dsl.B(true) }, func() { k.Break() })
		k.Switch(dsl.U(0)).Default(func() { k.Break() })
	})
	if err != nil {
		t.Errorf("Break and Continue inside loops and switches: %v", err)
	}
}
