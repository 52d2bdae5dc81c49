package interp

import (
	"math"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

type machine struct {
	bufs     map[*ir.Var]*Buffer
	uniforms map[*ir.Var][]uint64
	accels   map[*ir.Var]*bvh.Scene
	id, size [3]uint32
	block    [3]uint32
	print    func(thread [3]uint32, text string)
	// The candidate in hand while a RayQuery's body runs, its scene and
	// what the body decides about it.
	cand      *bvh.Candidate
	candScene *bvh.Scene
	dec       *bvh.Decision
}

type frame struct {
	vars map[*ir.Var]*[]uint64 // locals, by-value and by-reference parameters
	ret  []uint64
}

type flow uint8

const (
	next flow = iota
	brk
	cont
	ret
)

// call runs f with parameter values args (pointers for by-reference ones).
func (m *machine) call(f *ir.Function, args []*[]uint64) []uint64 {
	fr := &frame{vars: map[*ir.Var]*[]uint64{}}
	for i, p := range f.Params {
		if f.Kind == ir.KernelFunc {
			break
		}
		if p.Kind == ir.VarRefParam {
			fr.vars[p] = args[i]
		} else {
			v := append([]uint64(nil), *args[i]...)
			fr.vars[p] = &v
		}
	}
	for _, l := range f.Locals {
		v := make([]uint64, ir.Leaves(l.Type))
		fr.vars[l] = &v
	}
	m.block_(fr, f.Body)
	return fr.ret
}

func (m *machine) block_(fr *frame, b *ir.Block) flow {
	if b == nil {
		return next
	}
	for _, s := range b.Stmts {
		if fl := m.stmt(fr, s); fl != next {
			return fl
		}
	}
	return next
}

func (m *machine) stmt(fr *frame, s ir.Stmt) flow {
	switch s := s.(type) {
	case *ir.Block:
		return m.block_(fr, s)
	case *ir.If:
		if m.eval(fr, s.Cond)[0] != 0 {
			return m.block_(fr, s.Then)
		}
		return m.block_(fr, s.Else)
	case *ir.Loop:
		for {
			switch m.block_(fr, s.Body) {
			case brk:
				return next
			case ret:
				return ret
			}
		}
	case *ir.For:
		for m.eval(fr, s.Cond)[0] != 0 {
			fl := m.block_(fr, s.Body)
			if fl == brk {
				break
			}
			if fl == ret {
				return ret
			}
			m.block_(fr, s.Update)
		}
		return next
	case *ir.Switch:
		tag := int64(ir.SignExtend(m.eval(fr, s.Tag)[0], s.Tag.Type()))
		if s.Tag.Type() == ir.TU32 {
			tag = int64(uint32(tag))
		}
		body := s.Default
		for _, c := range s.Cases {
			for _, v := range c.Values {
				if v == tag {
					body = c.Body
				}
			}
		}
		if fl := m.block_(fr, body); fl == ret || fl == cont {
			return fl
		}
		return next
	case *ir.Break:
		return brk
	case *ir.Continue:
		return cont
	case *ir.Return:
		if s.Value != nil {
			fr.ret = m.eval(fr, s.Value)
		}
		return ret
	case *ir.Assign:
		v := m.eval(fr, s.Src)
		m.store(fr, s.Dst, v)
	case *ir.ExprStmt:
		m.eval(fr, s.X)
	case *ir.Print:
		var words []uint32
		for _, a := range s.Args {
			words = ir.AppendPrintWords(words, a.Type(), m.eval(fr, a))
		}
		m.print(m.id, ir.PrintText(s, words))
	case *ir.RayQuery:
		m.rayQuery(fr, s)
	case *ir.Assert:
		if m.eval(fr, s.Cond)[0] == 0 {
			at := ""
			if s.Pos != "" {
				at = s.Pos + ": "
			}
			fail("%sassertion failed: %s", at, s.Msg)
		}
	case *ir.Comment:
	}
	return next
}

// place is storage: a slice of leaves at a leaf offset, or a buffer at a byte offset.
type place struct {
	vals *[]uint64
	leaf int
	buf  *Buffer
	off  int
	ok   bool // in range (buffers)
}

func (m *machine) place(fr *frame, e ir.Expr) place {
	switch e := e.(type) {
	case *ir.Ref:
		if v, ok := fr.vars[e.Var]; ok {
			return place{vals: v, ok: true}
		}
		fail("variable %s has no storage here", e.Var.Name)
	case *ir.Index:
		i := int64(ir.SignExtend(m.eval(fr, e.I)[0], e.I.Type()))
		xt := e.X.Type()
		if xt.Kind() == ir.KindBuffer {
			b := m.bufs[e.X.(*ir.Ref).Var]
			es := xt.Elem().Size()
			return place{buf: b, off: int(i) * es, ok: i >= 0 && (int(i)+1)*es <= len(b.Data)}
		}
		p := m.place(fr, e.X)
		if p.buf != nil {
			p.off += int(i) * e.T.Size()
			p.ok = p.ok && i >= 0 && int(i) < xt.Len()
			return p
		}
		if i < 0 || int(i) >= xt.Len() {
			fail("index %d out of range of %s", i, xt)
		}
		p.leaf += int(i) * ir.Leaves(e.T)
		return p
	case *ir.Member:
		p := m.place(fr, e.X)
		if p.buf != nil {
			p.off += e.X.Type().Fields()[e.Field].Offset
			return p
		}
		for _, f := range e.X.Type().Fields()[:e.Field] {
			p.leaf += ir.Leaves(f.Type)
		}
		return p
	}
	fail("%T is not a place", e)
	return place{}
}

func (m *machine) load(fr *frame, e ir.Expr) []uint64 {
	p := m.place(fr, e)
	t := e.Type()
	if p.buf != nil {
		if !p.ok {
			return make([]uint64, ir.Leaves(t)) // robust buffer access: zero
		}
		return decode(t, p.buf.Data[p.off:])
	}
	return append([]uint64(nil), (*p.vals)[p.leaf:p.leaf+ir.Leaves(t)]...)
}

func (m *machine) store(fr *frame, e ir.Expr, v []uint64) {
	p := m.place(fr, e)
	if p.buf != nil {
		if p.ok { // writes out of range are dropped
			encode(e.Type(), v, p.buf.Data[p.off:])
		}
		return
	}
	copy((*p.vals)[p.leaf:], v)
}

func (m *machine) builtin(b ir.BuiltinVar) []uint64 {
	u3 := func(a [3]uint32) []uint64 { return []uint64{uint64(a[0]), uint64(a[1]), uint64(a[2])} }
	var t, blk [3]uint32
	for i := range 3 {
		t[i], blk[i] = m.id[i]%m.block[i], m.id[i]/m.block[i]
	}
	switch b {
	case ir.DispatchID:
		return u3(m.id)
	case ir.ThreadID:
		return u3(t)
	case ir.BlockID:
		return u3(blk)
	case ir.DispatchSize:
		return u3(m.size)
	case ir.BlockSize:
		return u3(m.block)
	case ir.DispatchGroups:
		var g [3]uint32
		for i := range 3 {
			g[i] = (m.size[i]-1)/m.block[i] + 1
		}
		return u3(g)
	}
	fail("built-in %s (subgroups) on the CPU", b)
	return nil
}

func toF(v uint64, t *ir.Type) float64 {
	if t.Bits() == 32 {
		return float64(math.Float32frombits(uint32(v)))
	}
	if t.Bits() == 64 {
		return math.Float64frombits(v)
	}
	return float64(ir.HalfToFloat32(uint16(v)))
}

// fromF rounds x to type t once; for f16, operations computed in float64 and
// rounded so are correctly rounded (float64 has more than 2·11+2 bits).
func fromF(x float64, t *ir.Type) uint64 {
	switch t.Bits() {
	case 32:
		return uint64(math.Float32bits(float32(x)))
	case 16:
		return uint64(ir.Float64ToHalf(x))
	}
	return math.Float64bits(x)
}
