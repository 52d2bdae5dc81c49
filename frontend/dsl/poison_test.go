package dsl_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lucent-gpu/lucent/frontend/dsl"
)

type poisonP struct {
	Pos  [3]float32
	Mass float32
}

// line is "file.go:N" of the line calling it, plus delta.
func line(delta int) string {
	_, file, n, _ := runtime.Caller(1)
	return fmt.Sprintf("%s:%d", filepath.Base(file), n+delta)
}

// An operation on operands of the wrong type is reported where its value is
// first used, and the error names the kernel line of the operation itself,
// which may be lines before.
func TestPoisonNamesTheLineMakingIt(t *testing.T) {
	var want []string
	cases := []func(k *dsl.K, o dsl.Buf[dsl.F32], ps dsl.Buf[dsl.Struct[poisonP]]){
		func(k *dsl.K, o dsl.Buf[dsl.F32], ps dsl.Buf[dsl.Struct[poisonP]]) {
			want = append(want, line(1))
			pos := dsl.Get[dsl.F32x3](ps.Read(dsl.U(0)), "Pos") // an array read as a vector
			x := pos.X()
			o.Write(dsl.U(0), x)
		},
		func(k *dsl.K, o dsl.Buf[dsl.F32], ps dsl.Buf[dsl.Struct[poisonP]]) {
			want = append(want, line(1))
			n := dsl.Sqrt(dsl.U(4)) // sqrt of an integer
			o.Write(dsl.U(0), dsl.Convert[float32](n.Add(dsl.U(1))))
		},
		func(k *dsl.K, o dsl.Buf[dsl.F32], ps dsl.Buf[dsl.Struct[poisonP]]) {
			want = append(want, line(1))
			m := dsl.Get[dsl.F32](ps.Read(dsl.U(0)), "Weight") // no such field
			k.If(m.Gt(dsl.F(0)), func() { o.Write(dsl.U(1), m) })
		},
	}
	for i, c := range cases {
		_, err := dsl.Kernel1D(64, c)
		if err == nil || !strings.Contains(err.Error(), want[i]) {
			t.Errorf("case %d: error %v, want one naming %s", i, err, want[i])
		}
	}
}
