package cpu

import (
	"sync/atomic"
	"unsafe"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Atomic adds whose old value nothing reads, to a buffer the kernel does
// nothing else with, are added up per worker and made once each at the
// end of the worker's part of the dispatch: the histogram's 64 bins took
// 64 contended atomics a block. Nothing in the dispatch can tell (it reads
// neither the old values nor the buffer, and the buffer is bound to no
// other argument: deferAdds checks); integer addition wraps and commutes,
// so the buffer ends the dispatch with the same words. The index of each
// add is checked where the add is, as before.

// maxDeferred is the most words of a buffer whose adds a worker sums.
const maxDeferred = 1 << 12

// addOnly is the buffer arguments of f used only as the place of atomic
// adds whose result goes nowhere (a statement of its own, or a local no
// expression reads), and in their lengths.
func addOnly(f *ir.Function) map[*ir.Var]bool {
	read := map[*ir.Var]bool{}
	refs, adds := map[*ir.Var]int{}, map[*ir.Var]int{}
	var visit func(e ir.Expr)
	visit = func(e ir.Expr) {
		if e == nil {
			return
		}
		switch x := e.(type) {
		case *ir.Ref:
			read[x.Var] = true
			refs[x.Var]++
		case *ir.Call:
			if x.Func == nil && x.Op == ir.OpBufferSize {
				if r, ok := x.Args[0].(*ir.Ref); ok {
					adds[r.Var]++ // its length: allowed
				}
			}
		}
		for _, ch := range children(e) {
			visit(ch)
		}
	}
	walkStmts(f.Body, nil, visit)
	// The adds whose result goes nowhere, by the statement holding them.
	addOf := func(e ir.Expr) *ir.Var {
		c, ok := e.(*ir.Call)
		if !ok || c.Func != nil || c.Op != ir.OpAtomicAdd || len(c.Args) != 2 {
			return nil
		}
		ix, ok := c.Args[0].(*ir.Index)
		if !ok || !ix.T.IsInteger() || ix.T.Size() != 4 {
			return nil
		}
		r, ok := ix.X.(*ir.Ref)
		if !ok || r.Var.Kind != ir.VarArg || r.Var.Type.Kind() != ir.KindBuffer {
			return nil
		}
		return r.Var
	}
	walkStmts(f.Body, func(s ir.Stmt) {
		var v *ir.Var
		switch s := s.(type) {
		case *ir.ExprStmt:
			v = addOf(s.X)
		case *ir.Assign:
			if root := ir.PlaceRoot(s.Dst); root != nil {
				refs[root]++ // a store into it (the place's root is no expression walked)
			}
			if r, ok := s.Dst.(*ir.Ref); ok && r.Var.Kind == ir.VarLocal && !read[r.Var] {
				v = addOf(s.Src)
			}
		}
		if v != nil {
			adds[v]++
		}
	}, func(ir.Expr) {})
	out := map[*ir.Var]bool{}
	for _, v := range f.Params {
		if v.Type.Kind() == ir.KindBuffer && refs[v] > 0 && refs[v] == adds[v] {
			out[v] = true
		}
	}
	return out
}

// deferAdds is the worker's sums of adds to buffer argument k, or nil where
// they are made at once (a large buffer, or one bound to another argument
// too).
func (t *lth) deferAdds(k int) []uint32 {
	if len(t.noAdd) <= k {
		t.noAdd = append(t.noAdd, make([]bool, k+1-len(t.noAdd))...)
		t.adds = append(t.adds, make([][]uint32, k+1-len(t.adds))...)
	}
	if t.noAdd[k] {
		return nil
	}
	if s := t.adds[k]; s != nil {
		return s
	}
	b := t.run.bufs[k]
	ok := len(b)/4 <= maxDeferred
	for j, o := range t.run.bufs {
		ok = ok && (j == k || !overlap(b, o))
	}
	if !ok {
		t.noAdd[k] = true
		return nil
	}
	t.adds[k] = make([]uint32, len(b)/4)
	return t.adds[k]
}

// overlap says whether a and b share a byte.
func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// flushAdds makes the worker's deferred adds, at the end of its part of a
// dispatch (also one that failed: the adds that ran are in the buffer).
func (t *lth) flushAdds() {
	for k, s := range t.adds {
		if s == nil {
			continue
		}
		b := t.run.bufs[k]
		for i, d := range s {
			if d != 0 {
				atomic.AddUint32((*uint32)(unsafe.Pointer(&b[4*i])), d)
			}
		}
		t.adds[k] = nil
	}
	clear(t.noAdd)
}
