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
		}, "break outside a loop or switch"},
		{"continue in a switch outside a loop", func(k *dsl.K, o dsl.Buf[dsl.U32]) {
			k.Switch(dsl.U(1)).Case(func() {
				want = line(1)
				k.Continue()
			}, 1)
		}, "continue outside a loop"},
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

// A constant index past the end of a local or shared array or a constant
// table is refused where it is written: only a run-time index is left to
// the checked mode.
func TestConstantIndexPastTheEnd(t *testing.T) {
	var want string
	cases := map[string]func(k *dsl.K, o dsl.Buf[dsl.U32]){
		"local array Set": func(k *dsl.K, o dsl.Buf[dsl.U32]) {
			a := dsl.NewArray[dsl.U32](k, 4)
			want = line(1)
			a.Set(dsl.U(4), dsl.U(1))
		},
		"local array At": func(k *dsl.K, o dsl.Buf[dsl.U32]) {
			a := dsl.NewArray[dsl.U32](k, 4)
			want = line(1)
			o.Write(dsl.U(0), a.At(dsl.U(9)))
		},
		"shared Write": func(k *dsl.K, o dsl.Buf[dsl.U32]) {
			s := dsl.NewShared[dsl.U32](k, 8)
			want = line(1)
			s.Write(dsl.U(8), dsl.U(1))
		},
		"constant table": func(k *dsl.K, o dsl.Buf[dsl.U32]) {
			tb := dsl.ConstTable[uint32](1, 2, 3)
			want = line(1)
			v := tb.At(dsl.U(3))
			o.Write(dsl.U(0), v)
		},
	}
	for name, c := range cases {
		_, err := dsl.Kernel1D(64, c)
		if err == nil || !errors.Is(err, dsl.ErrDSL) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "past the end") {
			t.Errorf("%s: error %v, want an ErrDSL naming %s and the index past the end", name, err, want)
		}
	}
	_, err := dsl.Kernel1D(64, func(k *dsl.K, o dsl.Buf[dsl.U32]) {
		a := dsl.NewArray[dsl.U32](k, 4)
		s := dsl.NewShared[dsl.U32](k, 8)
		a.Set(dsl.U(3), dsl.U(1))
		s.Write(dsl.U(7), a.At(dsl.U(3)))
		o.Write(dsl.U(0), dsl.ConstTable[uint32](1, 2, 3).At(dsl.U(2)).Add(s.Read(k.ThreadID().X())))
	})
	if err != nil {
		t.Errorf("indices in range: %v", err)
	}
}

type hintP struct {
	Pos  [3]float32
	Rot  [4][4]float32
	Mass float32
}

// A vector or matrix read from a struct field declared otherwise says which
// Go type declares it.
func TestStructFieldVectorHint(t *testing.T) {
	_, err := dsl.Kernel1D(64, func(k *dsl.K, ps dsl.Buf[dsl.Struct[hintP]], o dsl.Buf[dsl.F32x3]) {
		o.Write(dsl.U(0), dsl.Get[dsl.F32x3](ps.Read(dsl.U(0)), "Pos"))
	})
	if err == nil || !strings.Contains(err.Error(), "declared as ir.Float3") {
		t.Errorf("vec3 from [3]float32: error %v, want one naming ir.Float3", err)
	}
	_, err = dsl.Kernel1D(64, func(k *dsl.K, ps dsl.Buf[dsl.Struct[hintP]], o dsl.Buf[dsl.F32x4]) {
		o.Write(dsl.U(0), dsl.Get[dsl.Mat4](ps.Read(dsl.U(0)), "Rot").Col(0))
	})
	if err == nil || !strings.Contains(err.Error(), "declared as ir.Float4x4") {
		t.Errorf("mat4 from [4][4]float32: error %v, want one naming ir.Float4x4", err)
	}
}
