package dsl_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// A buffer, variable or K kept from a kernel whose tracing has ended takes
// no more statements: each use in a later kernel is that kernel's error,
// naming the line, rather than a statement added to the finished kernel and
// lost.
func TestValueOfFinishedKernelRefused(t *testing.T) {
	var (
		oldBuf dsl.Buf[dsl.F32]
		oldVar *dsl.Local[dsl.U32]
		oldK   *dsl.K
	)
	first, err := dsl.Kernel1D(64, func(k *dsl.K, o dsl.Buf[dsl.F32]) {
		oldBuf, oldK = o, k
		oldVar = dsl.NewVar(k, dsl.U(0))
	})
	if err != nil {
		t.Fatal(err)
	}
	stmts := len(first.Body.Stmts)
	uses := map[string]func(k *dsl.K){
		"Buf.Write": func(k *dsl.K) { oldBuf.Write(k.DispatchID().X(), dsl.F(1)) },
		"Buf.Read":  func(k *dsl.K) { _ = oldBuf.Read(k.DispatchID().X()) },
		"Local.Set": func(k *dsl.K) { oldVar.Set(dsl.U(7)) },
		"Local.Get": func(k *dsl.K) { _ = oldVar.Get() },
		"K.Barrier": func(k *dsl.K) { oldK.Barrier() },
		"K.If":      func(k *dsl.K) { oldK.If(dsl.B(true), func() {}) },
	}
	for name, use := range uses {
		f, err := dsl.Kernel1D(64, func(k *dsl.K, x dsl.Buf[dsl.U32]) {
			use(k)
			x.Write(k.DispatchID().X(), dsl.U(1))
		})
		if err == nil {
			t.Errorf("%s on a finished kernel's value: no error (kernel %v)", name, f != nil)
			continue
		}
		if !errors.Is(err, dsl.ErrDSL) || !strings.Contains(err.Error(), "leak_test.go:") || !strings.Contains(err.Error(), "tracing has ended") {
			t.Errorf("%s: error %q, want an ErrDSL naming leak_test.go's line and the ended tracing", name, err)
		}
	}
	if n := len(first.Body.Stmts); n != stmts {
		t.Errorf("the finished kernel's body grew from %d to %d statements", stmts, n)
	}
}
