package ir

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// Hash is a stable digest of a kernel and every callable it reaches, for
// cache keys: variables and functions are numbered by first appearance, so
// the digest depends on neither pointer values nor map order, and two
// kernels built by the same code hash alike. Names do not take part.
func (f *Function) Hash() [32]byte {
	h := &hasher{vars: map[*Var]int{}, funcs: map[*Function]int{}}
	h.fn(f)
	for _, g := range f.Callees() {
		h.fn(g)
	}
	return sha256.Sum256(h.buf)
}

type hasher struct {
	buf   []byte
	vars  map[*Var]int
	funcs map[*Function]int
}

func (h *hasher) u(x uint64) { h.buf = binary.AppendUvarint(h.buf, x) }
func (h *hasher) s(x string) { h.u(uint64(len(x))); h.buf = append(h.buf, x...) }
func (h *hasher) t(t *Type) {
	if t == nil {
		h.s("")
		return
	}
	h.s(t.key)
}

func (h *hasher) v(v *Var) {
	if v.Kind == VarBuiltin {
		h.u(1000 + uint64(v.Builtin))
		return
	}
	id, ok := h.vars[v]
	if !ok {
		id = len(h.vars)
		h.vars[v] = id
	}
	h.u(uint64(id))
}

func (h *hasher) fnID(f *Function) uint64 {
	id, ok := h.funcs[f]
	if !ok {
		id = len(h.funcs)
		h.funcs[f] = id
	}
	return uint64(id)
}

func (h *hasher) fn(f *Function) {
	h.u(h.fnID(f))
	h.u(uint64(f.Kind))
	h.u(uint64(f.Dim))
	for _, b := range f.BlockSize {
		h.u(uint64(b))
	}
	h.t(f.Result)
	for _, list := range [][]*Var{f.Params, f.Locals, f.Shared} {
		h.u(uint64(len(list)))
		for _, v := range list {
			h.v(v)
			h.u(uint64(v.Kind))
			h.t(v.Type)
		}
	}
	h.block(f.Body)
}

func (h *hasher) block(b *Block) {
	if b == nil {
		h.u(0)
		return
	}
	h.u(uint64(len(b.Stmts)) + 1)
	for _, s := range b.Stmts {
		h.stmt(s)
	}
}

func (h *hasher) stmt(s Stmt) {
	switch s := s.(type) {
	case *Block:
		h.u(1)
		h.block(s)
	case *If:
		h.u(2)
		h.expr(s.Cond)
		h.block(s.Then)
		h.block(s.Else)
	case *Loop:
		h.u(3)
		h.block(s.Body)
	case *For:
		h.u(4)
		h.expr(s.Cond)
		h.block(s.Update)
		h.block(s.Body)
	case *Switch:
		h.u(5)
		h.expr(s.Tag)
		h.u(uint64(len(s.Cases)))
		for _, c := range s.Cases {
			h.u(uint64(len(c.Values)))
			for _, x := range c.Values {
				h.u(uint64(x))
			}
			h.block(c.Body)
		}
		h.block(s.Default)
	case *Break:
		h.u(6)
	case *Continue:
		h.u(7)
	case *Return:
		h.u(8)
		h.expr(s.Value)
	case *Assign:
		h.u(9)
		h.expr(s.Dst)
		h.expr(s.Src)
	case *ExprStmt:
		h.u(10)
		h.expr(s.X)
	case *Comment:
		h.u(11)
	case *Assert:
		h.u(13)
		h.s(s.Msg)
		h.expr(s.Cond)
	case *Print:
		h.u(12)
		h.s(s.Format)
		h.u(uint64(len(s.Args)))
		for _, a := range s.Args {
			h.expr(a)
		}
	case *RayQuery:
		h.u(14)
		h.u(uint64(len(s.Args)))
		for _, a := range s.Args {
			h.expr(a)
		}
		h.block(s.Body)
		h.expr(s.Result)
	default:
		h.s(fmt.Sprintf("%T", s))
	}
}

func (h *hasher) expr(e Expr) {
	if e == nil {
		h.u(0)
		return
	}
	h.t(e.Type())
	switch e := e.(type) {
	case *Unary:
		h.u(1)
		h.u(uint64(e.Op))
		h.expr(e.X)
	case *Binary:
		h.u(2)
		h.u(uint64(e.Op))
		h.expr(e.X)
		h.expr(e.Y)
	case *Member:
		h.u(3)
		h.u(uint64(e.Field))
		h.expr(e.X)
	case *Swizzle:
		h.u(4)
		h.s(string(e.Comps))
		h.expr(e.X)
	case *Index:
		h.u(5)
		h.expr(e.X)
		h.expr(e.I)
	case *Literal:
		h.u(6)
		h.u(e.Bits)
	case *ConstArray:
		h.u(7)
		for _, x := range e.Values {
			h.u(x.Bits)
		}
	case *Ref:
		h.u(8)
		h.v(e.Var)
	case *Call:
		h.u(9)
		h.u(uint64(e.Op))
		if e.Func != nil {
			h.u(h.fnID(e.Func) + 1)
		} else {
			h.u(0)
		}
		h.u(uint64(len(e.Args)))
		for _, a := range e.Args {
			h.expr(a)
		}
	case *Cast:
		h.u(10)
		if e.Bit {
			h.u(1)
		} else {
			h.u(0)
		}
		h.expr(e.X)
	case *Construct:
		h.u(11)
		h.u(uint64(len(e.Args)))
		for _, a := range e.Args {
			h.expr(a)
		}
	}
}
