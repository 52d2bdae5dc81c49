package cpu

import (
	"encoding/binary"
	"math"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// placeC is compiled storage: leaf storage (mem), or bytes of a buffer argument.
type placeC struct {
	local int // >= 0: a constant slot of the register file
	mem   func(*th) ([]uint64, int)
	buf   func(*th) ([]byte, int) // the element's bytes and byte offset, bounds checked
}

// argLabel names kernel argument v in faults, as device.Argument.Label
// does, with its declaration position where the kernel came from source.
func (c *compiler) argLabel(v *ir.Var) string {
	s := device.Argument{Name: v.Name}.Label(c.params[v])
	if v.Pos != "" {
		s += " declared at " + v.Pos
	}
	return s
}

func (c *compiler) index(e ir.Expr) func(*th) int64 {
	s, it := c.expr(e).s, e.Type()
	if it.Kind() == ir.KindUint {
		return func(t *th) int64 { return int64(s(t)) }
	}
	return func(t *th) int64 { return int64(ir.SignExtend(s(t), it)) }
}

func (c *compiler) place(e ir.Expr) placeC {
	switch e := e.(type) {
	case *ir.Ref:
		v := e.Var
		if o, ok := c.slots[v]; ok {
			return placeC{local: o, mem: func(t *th) ([]uint64, int) { return t.r, o }}
		}
		if k, ok := c.refs[v]; ok {
			return placeC{local: -1, mem: func(t *th) ([]uint64, int) { return t.refs[k], 0 }}
		}
		if k, ok := c.shared[v]; ok {
			return placeC{local: -1, mem: func(t *th) ([]uint64, int) { return t.blk.shared[k], 0 }}
		}
		refuse(unsupported("variable %s (%v) as storage", v.Name, v.Kind))
	case *ir.Index:
		xt := e.X.Type()
		idx := c.index(e.I)
		if xt.Kind() == ir.KindBuffer {
			v := e.X.(*ir.Ref).Var
			k, es := c.params[v], int64(xt.Elem().Size())
			label := c.argSite(v)
			return placeC{local: -1, buf: func(t *th) ([]byte, int) {
				b := t.run.bufs[k]
				i := idx(t)
				if n := int64(len(b)) / es; i < 0 || i >= n {
					label.fault(device.FaultBufferIndex, uint64(i), uint64(n))
				}
				return b, int(i * es)
			}}
		}
		p := c.place(e.X)
		n := int64(xt.Len())
		what, kind := site{ir.IndexName(e), c.pos}, device.FaultArrayIndex
		if r := ir.PlaceRoot(e.X); r != nil && r.Kind == ir.VarShared {
			kind = device.FaultSharedIndex
		}
		if p.buf != nil {
			inner, es := p.buf, int64(e.T.Size())
			return placeC{local: -1, buf: func(t *th) ([]byte, int) {
				b, o := inner(t)
				i := idx(t)
				if i < 0 || i >= n {
					what.fault(kind, uint64(i), uint64(n))
				}
				return b, o + int(i*es)
			}}
		}
		el := int64(ir.Leaves(e.T))
		if l, ok := e.I.(*ir.Literal); ok && p.local >= 0 {
			i := int64(ir.SignExtend(l.Bits, l.T))
			if l.T.Kind() == ir.KindUint {
				i = int64(ir.Truncate(l.Bits, l.T))
			}
			if i >= 0 && i < n {
				o := p.local + int(i*el)
				return placeC{local: o, mem: func(t *th) ([]uint64, int) { return t.r, o }}
			}
		}
		mem := p.mem
		return placeC{local: -1, mem: func(t *th) ([]uint64, int) {
			m, o := mem(t)
			i := idx(t)
			if i < 0 || i >= n {
				what.fault(kind, uint64(i), uint64(n))
			}
			return m, o + int(i*el)
		}}
	case *ir.Member:
		p := c.place(e.X)
		fs := e.X.Type().Fields()
		if p.buf != nil {
			inner, off := p.buf, fs[e.Field].Offset
			return placeC{local: -1, buf: func(t *th) ([]byte, int) { b, o := inner(t); return b, o + off }}
		}
		off := 0
		for _, f := range fs[:e.Field] {
			off += ir.Leaves(f.Type)
		}
		if p.local >= 0 {
			o := p.local + off
			return placeC{local: o, mem: func(t *th) ([]uint64, int) { return t.r, o }}
		}
		mem := p.mem
		return placeC{local: -1, mem: func(t *th) ([]uint64, int) { m, o := mem(t); return m, o + off }}
	}
	refuse(unsupported("%T as storage", e))
	return placeC{}
}

// leafAt is where one leaf of a type lies in its Go layout.
type leafAt struct{ off, size int }

func layout(t *ir.Type) []leafAt {
	var out []leafAt
	var rec func(t *ir.Type, off int)
	rec = func(t *ir.Type, off int) {
		switch t.Kind() {
		case ir.KindVector, ir.KindMatrix, ir.KindArray:
			for i := range t.Len() {
				rec(t.Elem(), off+i*t.Elem().Size())
			}
		case ir.KindStruct:
			for _, f := range t.Fields() {
				rec(f.Type, off+f.Offset)
			}
		default:
			out = append(out, leafAt{off, t.Size()})
		}
	}
	rec(t, 0)
	return out
}

func getLeaf(b []byte, size int) uint64 {
	switch size {
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	case 8:
		return binary.LittleEndian.Uint64(b)
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	}
	return uint64(b[0])
}

func putLeaf(b []byte, size int, v uint64) {
	switch size {
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b, v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	default:
		b[0] = byte(v)
	}
}

// store returns the function storing a value of type t into buffer place p:
// a scalar in v, or the leaves in d.
func (p placeC) store(t *ir.Type) func(*th, uint64, []uint64) {
	addr := p.buf
	lay := layout(t)
	if len(lay) == 1 {
		size := lay[0].size
		if size == 4 {
			return func(th *th, v uint64, _ []uint64) {
				b, o := addr(th)
				binary.LittleEndian.PutUint32(b[o:], uint32(v))
			}
		}
		return func(th *th, v uint64, _ []uint64) { b, o := addr(th); putLeaf(b[o:], size, v) }
	}
	return func(th *th, _ uint64, d []uint64) {
		b, o := addr(th)
		for i, l := range lay {
			putLeaf(b[o+l.off:], l.size, d[i])
		}
	}
}

// directComp compiles one component of a built-in or uniform vector
// straight from where it lies, or returns nil.
func (c *compiler) directComp(e *ir.Swizzle) sfn {
	r, ok := e.X.(*ir.Ref)
	if !ok || len(e.Comps) != 1 {
		return nil
	}
	i := int(e.Comps[0])
	switch v := r.Var; {
	case v.Kind == ir.VarBuiltin:
		switch v.Builtin {
		case ir.DispatchID:
			return func(t *th) uint64 { return uint64(t.id[i]) }
		case ir.ThreadID:
			return func(t *th) uint64 { return uint64(t.tid[i]) }
		case ir.BlockID:
			return func(t *th) uint64 { return uint64(t.bid[i]) }
		case ir.DispatchSize:
			return func(t *th) uint64 { return uint64(t.run.size[i]) }
		case ir.BlockSize:
			return func(t *th) uint64 { return uint64(t.run.block[i]) }
		case ir.DispatchGroups:
			return func(t *th) uint64 { return uint64(t.run.groups[i]) }
		}
	case v.Kind == ir.VarArg && !v.Type.IsResource():
		o := c.uniSlot[v] + i
		return func(t *th) uint64 { return t.r[o] }
	}
	return nil
}

// word32 recognises buf[i] on a buffer of 4-byte scalars: the commonest
// access, compiled into one closure.
func (c *compiler) word32(e ir.Expr) (k int, idx sfn, label site, ok bool) {
	ix, isIndex := e.(*ir.Index)
	if !isIndex || ix.X.Type().Kind() != ir.KindBuffer || ix.T.Size() != 4 || !ix.T.IsScalar() || ix.I.Type().Kind() != ir.KindUint {
		return 0, nil, site{}, false
	}
	v := ix.X.(*ir.Ref).Var
	return c.params[v], c.expr(ix.I).s, c.argSite(v), true
}

// load compiles a read of place e.
func (c *compiler) load(e ir.Expr) ex {
	if k, idx, label, ok := c.word32(e); ok && !c.race {
		return scalarEx(func(t *th) uint64 {
			b := t.run.bufs[k]
			i := idx(t)
			if n := uint64(len(b)) / 4; i >= n {
				label.fault(device.FaultBufferIndex, i, n)
			}
			return uint64(binary.LittleEndian.Uint32(b[4*i:]))
		})
	}
	p := c.place(e)
	t := e.Type()
	n := ir.Leaves(t)
	if p.buf != nil {
		addr := c.raceBuf(e, p.buf, t.Size(), false, false)
		lay := layout(t)
		if n == 1 {
			size := lay[0].size
			if size == 4 {
				return scalarEx(func(t *th) uint64 { b, o := addr(t); return uint64(binary.LittleEndian.Uint32(b[o:])) })
			}
			return scalarEx(func(t *th) uint64 { b, o := addr(t); return getLeaf(b[o:], size) })
		}
		return ex{n: n, v: func(t *th, d []uint64) {
			b, o := addr(t)
			for i, l := range lay {
				d[i] = getLeaf(b[o+l.off:], l.size)
			}
		}}
	}
	if p.local >= 0 {
		o := p.local
		if n == 1 {
			x := scalarEx(func(t *th) uint64 { return t.r[o] })
			x.reg = o + 1
			return x
		}
		return ex{n: n, v: func(t *th, d []uint64) { copy(d, t.r[o:o+n]) }}
	}
	mem := c.raceMem(e, p.mem, n, false, false)
	if n == 1 {
		return scalarEx(func(t *th) uint64 { m, o := mem(t); return m[o] })
	}
	return ex{n: n, v: func(t *th, d []uint64) { m, o := mem(t); copy(d, m[o:o+n]) }}
}

// agg evaluates x into a fixed temporary and returns a reader of it.
func (c *compiler) agg(x ex) (int, func(*th)) {
	o := c.tmp(x.n)
	v, n := x.v, x.n
	if n == 1 {
		s := x.s
		return o, func(t *th) { t.r[o] = s(t) }
	}
	return o, func(t *th) { v(t, t.r[o:o+n]) }
}

// expr compiles e; every one-leaf expression has its scalar form.
func (c *compiler) expr(e ir.Expr) ex {
	if o, ok := c.hoisted[e]; ok {
		n := ir.Leaves(e.Type())
		if n == 1 {
			x := scalarEx(func(t *th) uint64 { return t.r[o] })
			x.reg = o + 1
			return x
		}
		return ex{n: n, v: func(t *th, d []uint64) { copy(d, t.r[o:o+n]) }}
	}
	x := c.expr0(e)
	if x.n == 1 && x.s == nil {
		o, v := c.tmp(1), x.v
		x.s = func(t *th) uint64 { v(t, t.r[o:o+1]); return t.r[o] }
	}
	return x
}

func (c *compiler) expr0(e ir.Expr) ex {
	switch e := e.(type) {
	case *ir.Literal:
		v := ir.Truncate(e.Bits, e.T)
		x := scalarEx(func(*th) uint64 { return v })
		x.isLit, x.lit = true, v
		return x
	case *ir.ConstArray:
		vals := make([]uint64, len(e.Values))
		for i, v := range e.Values {
			vals[i] = ir.Truncate(v.Bits, v.T)
		}
		return ex{n: len(vals), v: func(_ *th, d []uint64) { copy(d, vals) }}
	case *ir.Ref:
		return c.ref(e)
	case *ir.Index:
		if ir.IsPlace(e) {
			return c.load(e)
		}
		x := c.expr(e.X)
		o, eval := c.agg(x)
		idx := c.index(e.I)
		n, el := int64(e.X.Type().Len()), ir.Leaves(e.T)
		if e.X.Type().Kind() == ir.KindMatrix || e.X.Type().Kind() == ir.KindArray || e.X.Type().Kind() == ir.KindVector {
			what := site{ir.IndexName(e), c.pos}
			if el == 1 {
				return scalarEx(func(t *th) uint64 {
					eval(t)
					i := idx(t)
					if i < 0 || i >= n {
						what.fault(device.FaultArrayIndex, uint64(i), uint64(n))
					}
					return t.r[o+int(i)]
				})
			}
			return ex{n: el, v: func(t *th, d []uint64) {
				eval(t)
				i := idx(t)
				if i < 0 || i >= n {
					what.fault(device.FaultArrayIndex, uint64(i), uint64(n))
				}
				copy(d, t.r[o+int(i)*el:o+int(i+1)*el])
			}}
		}
		refuse(unsupported("index of %s", e.X.Type()))
	case *ir.Member:
		if ir.IsPlace(e) {
			return c.load(e)
		}
		x := c.expr(e.X)
		o, eval := c.agg(x)
		off := 0
		for _, f := range e.X.Type().Fields()[:e.Field] {
			off += ir.Leaves(f.Type)
		}
		n := ir.Leaves(e.T)
		o += off
		if n == 1 {
			return scalarEx(func(t *th) uint64 { eval(t); return t.r[o] })
		}
		return ex{n: n, v: func(t *th, d []uint64) { eval(t); copy(d, t.r[o:o+n]) }}
	case *ir.Swizzle:
		if f := c.directComp(e); f != nil {
			return scalarEx(f)
		}
		x := c.expr(e.X)
		var o int
		var eval func(*th)
		if ir.IsPlace(e.X) {
			if p := c.place(e.X); p.local >= 0 {
				o, eval = p.local, func(*th) {}
			}
		}
		if eval == nil {
			o, eval = c.agg(x)
		}
		comps := make([]int, len(e.Comps))
		for i, k := range e.Comps {
			comps[i] = o + int(k)
		}
		if len(comps) == 1 {
			k := comps[0]
			return scalarEx(func(t *th) uint64 { eval(t); return t.r[k] })
		}
		return ex{n: len(comps), v: func(t *th, d []uint64) {
			eval(t)
			for i, k := range comps {
				d[i] = t.r[k]
			}
		}}
	case *ir.Construct:
		return c.construct(e)
	case *ir.Unary:
		return c.unary(e)
	case *ir.Binary:
		return c.binary(e)
	case *ir.Cast:
		return c.cast(e)
	case *ir.Call:
		if e.Func != nil {
			return c.call(e)
		}
		return c.builtin(e)
	}
	refuse(unsupported("expression %T", e))
	return ex{}
}

func (c *compiler) ref(e *ir.Ref) ex {
	v := e.Var
	switch v.Kind {
	case ir.VarBuiltin:
		return builtinVar(v.Builtin)
	case ir.VarArg:
		if v.Type.IsResource() {
			refuse(unsupported("resource %s used as a value", v.Name))
		}
		o, n := c.uniSlot[v], ir.Leaves(v.Type)
		if n == 1 {
			x := scalarEx(func(t *th) uint64 { return t.r[o] })
			x.reg = o + 1
			return x
		}
		return ex{n: n, v: func(t *th, d []uint64) { copy(d, t.r[o:o+n]) }}
	}
	return c.load(e)
}

func builtinVar(b ir.BuiltinVar) ex {
	vec := func(f func(t *th) [3]uint32) ex {
		return ex{n: 3, v: func(t *th, d []uint64) {
			a := f(t)
			d[0], d[1], d[2] = uint64(a[0]), uint64(a[1]), uint64(a[2])
		}}
	}
	switch b {
	case ir.DispatchID:
		return vec(func(t *th) [3]uint32 { return t.id })
	case ir.ThreadID:
		return vec(func(t *th) [3]uint32 { return t.tid })
	case ir.BlockID:
		return vec(func(t *th) [3]uint32 { return t.bid })
	case ir.DispatchSize:
		return vec(func(t *th) [3]uint32 { return t.run.size })
	case ir.BlockSize:
		return vec(func(t *th) [3]uint32 { return t.run.block })
	case ir.DispatchGroups:
		return vec(func(t *th) [3]uint32 { return t.run.groups })
	case ir.SubgroupLane:
		return scalarEx(func(*th) uint64 { return 0 })
	case ir.SubgroupSize:
		return scalarEx(func(*th) uint64 { return 1 })
	}
	refuse(unsupported("built-in variable %v", b))
	return ex{}
}

func (c *compiler) construct(e *ir.Construct) ex {
	n := ir.Leaves(e.T)
	parts := make([]ex, len(e.Args))
	total := 0
	for i, a := range e.Args {
		parts[i] = c.expr(a)
		total += parts[i].n
	}
	if total == 1 && n > 1 && e.T.Kind() == ir.KindVector { // a splat
		s := parts[0].s
		return ex{n: n, v: func(t *th, d []uint64) {
			x := s(t)
			for i := range d[:n] {
				d[i] = x
			}
		}}
	}
	if e.T.Kind() == ir.KindArray && len(e.Args) == 1 && e.T.Len() > 1 { // one element for all
		p := parts[0]
		return ex{n: n, v: func(t *th, d []uint64) {
			p.v(t, d[:p.n])
			for i := p.n; i < n; i += p.n {
				copy(d[i:i+p.n], d[:p.n])
			}
		}}
	}
	if total != n {
		refuse(unsupported("construct of %s from %d scalars", e.T, total))
	}
	if n == 1 {
		return parts[0]
	}
	return ex{n: n, v: func(t *th, d []uint64) {
		o := 0
		for _, p := range parts {
			if p.n == 1 {
				d[o] = p.s(t)
			} else {
				p.v(t, d[o:o+p.n])
			}
			o += p.n
		}
	}}
}

// lift makes a componentwise expression from a scalar function of k operands.
func (c *compiler) lift(n int, ops []ex, f func(a []uint64) uint64) ex {
	if n == 1 && len(ops) == 1 && ops[0].n == 1 {
		s := ops[0].s
		return scalarEx(func(t *th) uint64 { var a [1]uint64; a[0] = s(t); return f(a[:]) })
	}
	offs := make([]int, len(ops))
	evals := make([]func(*th), len(ops))
	widths := make([]int, len(ops))
	for i, o := range ops {
		offs[i], evals[i] = c.agg(o)
		widths[i] = o.n
	}
	scratch := c.tmp(len(ops))
	comp := func(t *th, j int) uint64 {
		a := t.r[scratch : scratch+len(ops)]
		for i, o := range offs {
			if widths[i] == 1 {
				a[i] = t.r[o]
			} else {
				a[i] = t.r[o+j]
			}
		}
		return f(a)
	}
	if n == 1 {
		return scalarEx(func(t *th) uint64 {
			for _, ev := range evals {
				ev(t)
			}
			return comp(t, 0)
		})
	}
	return ex{n: n, v: func(t *th, d []uint64) {
		for _, ev := range evals {
			ev(t)
		}
		for j := range n {
			d[j] = comp(t, j)
		}
	}}
}

func (c *compiler) unary(e *ir.Unary) ex {
	x := c.expr(e.X)
	s := e.T.Scalar()
	var f func(uint64) uint64
	switch {
	case e.Op == ir.Not:
		f = func(v uint64) uint64 { return v ^ 1 }
	case e.Op == ir.BitNot:
		f = func(v uint64) uint64 { return ir.Truncate(^v, s) }
	case s == ir.TF32:
		f = func(v uint64) uint64 { return v ^ 1<<31 }
	case s == ir.TF16:
		f = func(v uint64) uint64 { return v ^ 1<<15 }
	case s.Kind() == ir.KindFloat:
		f = func(v uint64) uint64 { return v ^ 1<<63 }
	default:
		f = func(v uint64) uint64 { return ir.Truncate(-v, s) }
	}
	if x.n == 1 {
		xs := x.s
		return scalarEx(func(t *th) uint64 { return f(xs(t)) })
	}
	return c.lift(x.n, []ex{x}, func(a []uint64) uint64 { return f(a[0]) })
}

func f32(v uint64) float32  { return math.Float32frombits(uint32(v)) }
func uf32(x float32) uint64 { return uint64(math.Float32bits(x)) }

func (c *compiler) binary(e *ir.Binary) ex {
	xt, yt := e.X.Type(), e.Y.Type()
	if xt.Kind() == ir.KindMatrix || yt.Kind() == ir.KindMatrix {
		return c.matBinary(e)
	}
	x, y := c.expr(e.X), c.expr(e.Y)
	s, ys := xt.Scalar(), yt.Scalar()
	n := ir.Leaves(e.T)
	if x.n == 1 && y.n == 1 {
		xs, yss := x.s, y.s
		if e.Op == ir.LogicAnd {
			return scalarEx(func(t *th) uint64 {
				if xs(t) == 0 {
					return 0
				}
				return yss(t)
			})
		}
		if e.Op == ir.LogicOr {
			return scalarEx(func(t *th) uint64 {
				if xs(t) != 0 {
					return 1
				}
				return yss(t)
			})
		}
		if f := fastOperands(e.Op, s, ys, x, y); f != nil {
			return scalarEx(f)
		}
		if f := fastBinary(e.Op, s, ys, xs, yss); f != nil {
			return scalarEx(f)
		}
		op := scalarOpAt(e.Op, s, ys, c.pos)
		return scalarEx(func(t *th) uint64 { return op(xs(t), yss(t)) })
	}
	op := scalarOpAt(e.Op, s, ys, c.pos)
	return c.lift(n, []ex{x, y}, func(a []uint64) uint64 { return op(a[0], a[1]) })
}

// fastOperands specialises the commonest float32 operations on the operand
// forms that make up most of a loop body (a register, a constant), saving a
// closure call per operand.
func fastOperands(op ir.BinaryOp, s, ys *ir.Type, x, y ex) sfn {
	if s == ir.TU32 && ys == ir.TU32 {
		return fastU32(op, x, y)
	}
	if s != ir.TF32 {
		return nil
	}
	switch {
	case x.reg > 0 && y.reg > 0:
		a, b := x.reg-1, y.reg-1
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uf32(f32(t.r[a]) + f32(t.r[b])) }
		case ir.Sub:
			return func(t *th) uint64 { return uf32(f32(t.r[a]) - f32(t.r[b])) }
		case ir.Mul:
			return func(t *th) uint64 { return uf32(f32(t.r[a]) * f32(t.r[b])) }
		}
	case x.reg > 0 && y.isLit:
		a, c := x.reg-1, f32(y.lit)
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uf32(f32(t.r[a]) + c) }
		case ir.Sub:
			return func(t *th) uint64 { return uf32(f32(t.r[a]) - c) }
		case ir.Mul:
			return func(t *th) uint64 { return uf32(f32(t.r[a]) * c) }
		case ir.Gt:
			return func(t *th) uint64 { return b2u(f32(t.r[a]) > c) }
		case ir.Lt:
			return func(t *th) uint64 { return b2u(f32(t.r[a]) < c) }
		}
	case x.isLit && y.reg > 0:
		c, b := f32(x.lit), y.reg-1
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uf32(c + f32(t.r[b])) }
		case ir.Mul:
			return func(t *th) uint64 { return uf32(c * f32(t.r[b])) }
		}
	case y.isLit:
		xs, c := x.s, f32(y.lit)
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uf32(f32(xs(t)) + c) }
		case ir.Sub:
			return func(t *th) uint64 { return uf32(f32(xs(t)) - c) }
		case ir.Mul:
			return func(t *th) uint64 { return uf32(f32(xs(t)) * c) }
		case ir.Div:
			return func(t *th) uint64 { return uf32(f32(xs(t)) / c) }
		case ir.Gt:
			return func(t *th) uint64 { return b2u(f32(xs(t)) > c) }
		case ir.Lt:
			return func(t *th) uint64 { return b2u(f32(xs(t)) < c) }
		}
	case y.reg > 0:
		xs, b := x.s, y.reg-1
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uf32(f32(xs(t)) + f32(t.r[b])) }
		case ir.Sub:
			return func(t *th) uint64 { return uf32(f32(xs(t)) - f32(t.r[b])) }
		case ir.Mul:
			return func(t *th) uint64 { return uf32(f32(xs(t)) * f32(t.r[b])) }
		}
	case x.reg > 0:
		a, ys := x.reg-1, y.s
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uf32(f32(t.r[a]) + f32(ys(t))) }
		case ir.Sub:
			return func(t *th) uint64 { return uf32(f32(t.r[a]) - f32(ys(t))) }
		case ir.Mul:
			return func(t *th) uint64 { return uf32(f32(t.r[a]) * f32(ys(t))) }
		}
	}
	return nil
}

// fastU32 is fastOperands for u32: counters and indices.
func fastU32(op ir.BinaryOp, x, y ex) sfn {
	switch {
	case x.reg > 0 && y.isLit:
		a, c := x.reg-1, uint32(y.lit)
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uint64(uint32(t.r[a]) + c) }
		case ir.Mul:
			return func(t *th) uint64 { return uint64(uint32(t.r[a]) * c) }
		case ir.Lt:
			return func(t *th) uint64 { return b2u(uint32(t.r[a]) < c) }
		}
	case x.reg > 0 && y.reg > 0:
		a, b := x.reg-1, y.reg-1
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uint64(uint32(t.r[a]) + uint32(t.r[b])) }
		case ir.Mul:
			return func(t *th) uint64 { return uint64(uint32(t.r[a]) * uint32(t.r[b])) }
		case ir.Lt:
			return func(t *th) uint64 { return b2u(t.r[a] < t.r[b]) }
		}
	case y.isLit:
		xs, c := x.s, uint32(y.lit)
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uint64(uint32(xs(t)) + c) }
		case ir.Mul:
			return func(t *th) uint64 { return uint64(uint32(xs(t)) * c) }
		case ir.Lt:
			return func(t *th) uint64 { return b2u(uint32(xs(t)) < c) }
		}
	}
	return nil
}

// fastBinary specialises the commonest scalar operations.
func fastBinary(op ir.BinaryOp, s, ys *ir.Type, x, y sfn) sfn {
	switch {
	case s == ir.TF16:
		// In float32, rounded to f16 once: correctly rounded (fromF).
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uf16(f16(x(t)) + f16(y(t))) }
		case ir.Sub:
			return func(t *th) uint64 { return uf16(f16(x(t)) - f16(y(t))) }
		case ir.Mul:
			return func(t *th) uint64 { return uf16(f16(x(t)) * f16(y(t))) }
		case ir.Div:
			return func(t *th) uint64 { return uf16(f16(x(t)) / f16(y(t))) }
		}
	case s == ir.TF32:
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uf32(f32(x(t)) + f32(y(t))) }
		case ir.Sub:
			return func(t *th) uint64 { return uf32(f32(x(t)) - f32(y(t))) }
		case ir.Mul:
			return func(t *th) uint64 { return uf32(f32(x(t)) * f32(y(t))) }
		case ir.Div:
			return func(t *th) uint64 { return uf32(f32(x(t)) / f32(y(t))) }
		case ir.Lt:
			return func(t *th) uint64 { return b2u(f32(x(t)) < f32(y(t))) }
		case ir.Le:
			return func(t *th) uint64 { return b2u(f32(x(t)) <= f32(y(t))) }
		case ir.Gt:
			return func(t *th) uint64 { return b2u(f32(x(t)) > f32(y(t))) }
		case ir.Ge:
			return func(t *th) uint64 { return b2u(f32(x(t)) >= f32(y(t))) }
		}
	case s == ir.TU32 && ys == ir.TU32:
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uint64(uint32(x(t)) + uint32(y(t))) }
		case ir.Sub:
			return func(t *th) uint64 { return uint64(uint32(x(t)) - uint32(y(t))) }
		case ir.Mul:
			return func(t *th) uint64 { return uint64(uint32(x(t)) * uint32(y(t))) }
		case ir.And:
			return func(t *th) uint64 { return x(t) & y(t) }
		case ir.Or:
			return func(t *th) uint64 { return x(t) | y(t) }
		case ir.Lt:
			return func(t *th) uint64 { return b2u(x(t) < y(t)) }
		case ir.Le:
			return func(t *th) uint64 { return b2u(x(t) <= y(t)) }
		case ir.Gt:
			return func(t *th) uint64 { return b2u(x(t) > y(t)) }
		case ir.Ge:
			return func(t *th) uint64 { return b2u(x(t) >= y(t)) }
		case ir.Eq:
			return func(t *th) uint64 { return b2u(x(t) == y(t)) }
		case ir.Ne:
			return func(t *th) uint64 { return b2u(x(t) != y(t)) }
		}
	case s == ir.TI32 && ys == ir.TI32:
		switch op {
		case ir.Add:
			return func(t *th) uint64 { return uint64(uint32(x(t)) + uint32(y(t))) }
		case ir.Sub:
			return func(t *th) uint64 { return uint64(uint32(x(t)) - uint32(y(t))) }
		case ir.Mul:
			return func(t *th) uint64 { return uint64(uint32(x(t)) * uint32(y(t))) }
		case ir.Lt:
			return func(t *th) uint64 { return b2u(int32(x(t)) < int32(y(t))) }
		case ir.Le:
			return func(t *th) uint64 { return b2u(int32(x(t)) <= int32(y(t))) }
		case ir.Gt:
			return func(t *th) uint64 { return b2u(int32(x(t)) > int32(y(t))) }
		case ir.Ge:
			return func(t *th) uint64 { return b2u(int32(x(t)) >= int32(y(t))) }
		}
	}
	return nil
}

// scalarOp is the scalar operation op on bits of type s (ys: the right
// operand's type, for shifts), with Go's semantics, as frontend/interp.
func scalarOp(op ir.BinaryOp, s, ys *ir.Type) func(a, b uint64) uint64 {
	return scalarOpAt(op, s, ys, "")
}

// scalarOpAt is scalarOp in a statement at pos, which a division by zero
// names.
func scalarOpAt(op ir.BinaryOp, s, ys *ir.Type, pos string) func(a, b uint64) uint64 {
	if s.Kind() == ir.KindFloat {
		switch op {
		case ir.Add:
			return func(a, b uint64) uint64 { return fromF(toF(a, s)+toF(b, s), s) }
		case ir.Sub:
			return func(a, b uint64) uint64 { return fromF(toF(a, s)-toF(b, s), s) }
		case ir.Mul:
			return func(a, b uint64) uint64 { return fromF(toF(a, s)*toF(b, s), s) }
		case ir.Div:
			return func(a, b uint64) uint64 { return fromF(toF(a, s)/toF(b, s), s) }
		case ir.Rem:
			return func(a, b uint64) uint64 { return fromF(math.Mod(toF(a, s), toF(b, s)), s) }
		case ir.Eq:
			return func(a, b uint64) uint64 { return b2u(toF(a, s) == toF(b, s)) }
		case ir.Ne:
			return func(a, b uint64) uint64 { return b2u(toF(a, s) != toF(b, s)) }
		case ir.Lt:
			return func(a, b uint64) uint64 { return b2u(toF(a, s) < toF(b, s)) }
		case ir.Le:
			return func(a, b uint64) uint64 { return b2u(toF(a, s) <= toF(b, s)) }
		case ir.Gt:
			return func(a, b uint64) uint64 { return b2u(toF(a, s) > toF(b, s)) }
		case ir.Ge:
			return func(a, b uint64) uint64 { return b2u(toF(a, s) >= toF(b, s)) }
		}
		refuse(unsupported("%s on %s", op, s))
	}
	if s == ir.TBool {
		switch op {
		case ir.And, ir.LogicAnd:
			return func(a, b uint64) uint64 { return a & b }
		case ir.Or, ir.LogicOr:
			return func(a, b uint64) uint64 { return a | b }
		case ir.Xor, ir.Ne:
			return func(a, b uint64) uint64 { return a ^ b }
		case ir.Eq:
			return func(a, b uint64) uint64 { return 1 ^ a ^ b }
		}
		refuse(unsupported("%s on bool", op))
	}
	w := uint64(s.Bits())
	signed := s.Kind() == ir.KindInt
	se := func(v uint64) int64 { return int64(ir.SignExtend(v, s)) }
	switch op {
	case ir.Add:
		return func(a, b uint64) uint64 { return ir.Truncate(a+b, s) }
	case ir.Sub:
		return func(a, b uint64) uint64 { return ir.Truncate(a-b, s) }
	case ir.Mul:
		return func(a, b uint64) uint64 { return ir.Truncate(a*b, s) }
	case ir.Div, ir.Rem:
		minInt := se(1 << (w - 1))
		return func(a, b uint64) uint64 {
			if b == 0 {
				site{pos: pos}.fault(device.FaultDivideByZero, 0, 0)
			}
			if signed {
				sa, sb := se(a), se(b)
				if sb == -1 && sa == minInt {
					if op == ir.Div {
						return ir.Truncate(uint64(sa), s) // Go's wrap-around
					}
					return 0
				}
				if op == ir.Div {
					return ir.Truncate(uint64(sa/sb), s)
				}
				return ir.Truncate(uint64(sa%sb), s)
			}
			if op == ir.Div {
				return a / b
			}
			return a % b
		}
	case ir.And:
		return func(a, b uint64) uint64 { return a & b }
	case ir.Or:
		return func(a, b uint64) uint64 { return a | b }
	case ir.Xor:
		return func(a, b uint64) uint64 { return a ^ b }
	case ir.Shl:
		return func(a, b uint64) uint64 {
			n := ir.Truncate(b, ys)
			if n >= w {
				return 0
			}
			return ir.Truncate(a<<n, s)
		}
	case ir.Shr:
		return func(a, b uint64) uint64 {
			n := ir.Truncate(b, ys)
			if signed {
				n = min(n, w-1)
				return ir.Truncate(uint64(se(a)>>n), s)
			}
			if n >= w {
				return 0
			}
			return a >> n
		}
	case ir.Eq:
		return func(a, b uint64) uint64 { return b2u(a == b) }
	case ir.Ne:
		return func(a, b uint64) uint64 { return b2u(a != b) }
	case ir.Lt, ir.Le, ir.Gt, ir.Ge:
		cmp := func(a, b uint64) int {
			if signed {
				x, y := se(a), se(b)
				switch {
				case x < y:
					return -1
				case x > y:
					return 1
				}
				return 0
			}
			switch {
			case a < b:
				return -1
			case a > b:
				return 1
			}
			return 0
		}
		switch op {
		case ir.Lt:
			return func(a, b uint64) uint64 { return b2u(cmp(a, b) < 0) }
		case ir.Le:
			return func(a, b uint64) uint64 { return b2u(cmp(a, b) <= 0) }
		case ir.Gt:
			return func(a, b uint64) uint64 { return b2u(cmp(a, b) > 0) }
		}
		return func(a, b uint64) uint64 { return b2u(cmp(a, b) >= 0) }
	}
	refuse(unsupported("%s on %s", op, s))
	return nil
}

func (c *compiler) cast(e *ir.Cast) ex {
	x := c.expr(e.X)
	fs, ts := e.X.Type().Scalar(), e.T.Scalar()
	if e.Bit {
		if fs.Bits() != ts.Bits() || ir.Leaves(e.X.Type()) != ir.Leaves(e.T) {
			refuse(unsupported("bitcast between %s and %s", e.X.Type(), e.T))
		}
		return x
	}
	f := castFn(fs, ts)
	if x.n == 1 {
		xs := x.s
		return scalarEx(func(t *th) uint64 { return f(xs(t)) })
	}
	return c.lift(x.n, []ex{x}, func(a []uint64) uint64 { return f(a[0]) })
}

// castFn is the value conversion of a scalar from fs to ts.
func castFn(fs, ts *ir.Type) func(uint64) uint64 {
	var f func(uint64) uint64
	switch {
	case fs == ir.TBool && ts.Kind() == ir.KindFloat:
		f = func(v uint64) uint64 { return fromF(float64(v), ts) }
	case fs == ir.TBool:
		f = func(v uint64) uint64 { return v }
	case ts == ir.TBool && fs.Kind() == ir.KindFloat:
		f = func(v uint64) uint64 { return b2u(toF(v, fs) != 0) }
	case ts == ir.TBool:
		f = func(v uint64) uint64 { return b2u(v != 0) }
	case fs.Kind() == ir.KindFloat && ts.Kind() == ir.KindFloat:
		f = func(v uint64) uint64 { return fromF(toF(v, fs), ts) }
	case fs.Kind() == ir.KindFloat && ts.Kind() == ir.KindInt:
		f = func(v uint64) uint64 { return ir.Truncate(uint64(int64(math.Trunc(toF(v, fs)))), ts) }
	case fs.Kind() == ir.KindFloat:
		f = func(v uint64) uint64 { return ir.Truncate(uint64(math.Trunc(toF(v, fs))), ts) }
	case ts == ir.TF32 && fs.Kind() == ir.KindInt:
		f = func(v uint64) uint64 { return uf32(float32(int64(ir.SignExtend(v, fs)))) }
	case ts == ir.TF32:
		f = func(v uint64) uint64 { return uf32(float32(v)) }
	case ts.Kind() == ir.KindFloat && fs.Kind() == ir.KindInt:
		f = func(v uint64) uint64 { return fromF(float64(int64(ir.SignExtend(v, fs))), ts) }
	case ts.Kind() == ir.KindFloat:
		f = func(v uint64) uint64 { return fromF(float64(v), ts) }
	default:
		f = func(v uint64) uint64 { return ir.Truncate(ir.SignExtend(v, fs), ts) }
	}
	return f
}

// call compiles a call of a callable: arguments into temporaries first (an
// argument may call the same callable), then into the parameters.
func (c *compiler) call(e *ir.Call) ex {
	cf := c.function(e.Func)
	type arg struct {
		tmp, n, param int
		eval          func(*th)
		mem           func(*th) ([]uint64, int)
		ref, tmpRf    int
	}
	args := make([]arg, len(e.Args))
	for i, a := range e.Args {
		p := e.Func.Params[i]
		if p.Kind == ir.VarRefParam {
			pl := c.place(a)
			if pl.buf != nil {
				refuse(unsupported("a buffer element passed by reference to %s", e.Func.Name))
			}
			args[i] = arg{mem: pl.mem, n: ir.Leaves(a.Type()), ref: c.refs[p], tmpRf: c.nrefs}
			c.nrefs++
			continue
		}
		x := c.expr(a)
		o, eval := c.agg(x)
		args[i] = arg{tmp: o, n: x.n, param: cf.params[i], eval: eval}
	}
	run := func(t *th) {
		for _, a := range args {
			if a.mem != nil {
				m, o := a.mem(t)
				t.refs[a.tmpRf] = m[o : o+a.n]
			} else {
				a.eval(t)
			}
		}
		for _, a := range args {
			if a.mem != nil {
				t.refs[a.ref] = t.refs[a.tmpRf]
			} else {
				copy(t.r[a.param:a.param+a.n], t.r[a.tmp:a.tmp+a.n])
			}
		}
		clear(t.r[cf.lo:cf.hi])
		cf.body(t)
	}
	n, res := cf.nres, cf.res
	switch n {
	case 0:
		return ex{n: 0, v: func(t *th, _ []uint64) { run(t) }}
	case 1:
		return scalarEx(func(t *th) uint64 { run(t); return t.r[res] })
	}
	return ex{n: n, v: func(t *th, d []uint64) { run(t); copy(d, t.r[res:res+n]) }}
}
