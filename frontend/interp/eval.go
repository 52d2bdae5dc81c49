package interp

import (
	"math"
	"slices"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (m *machine) eval(fr *frame, e ir.Expr) []uint64 {
	switch e := e.(type) {
	case *ir.Literal:
		return []uint64{ir.Truncate(e.Bits, e.T)}
	case *ir.ConstArray:
		out := make([]uint64, len(e.Values))
		for i, v := range e.Values {
			out[i] = ir.Truncate(v.Bits, v.T)
		}
		return out
	case *ir.Ref:
		switch e.Var.Kind {
		case ir.VarBuiltin:
			return m.builtin(e.Var.Builtin)
		case ir.VarArg:
			if v, ok := m.uniforms[e.Var]; ok {
				return v
			}
			fail("resource %s used as a value", e.Var.Name)
		}
		return m.load(fr, e)
	case *ir.Index:
		if ir.IsPlace(e) {
			return m.load(fr, e)
		}
		x := m.eval(fr, e.X)
		i := int(ir.SignExtend(m.eval(fr, e.I)[0], e.I.Type()))
		n := ir.Leaves(e.T)
		if i < 0 || (i+1)*n > len(x) {
			fail("index %d out of range of %s", i, e.X.Type())
		}
		return x[i*n : (i+1)*n]
	case *ir.Member:
		if ir.IsPlace(e) {
			return m.load(fr, e)
		}
		x := m.eval(fr, e.X)
		off := 0
		for _, f := range e.X.Type().Fields()[:e.Field] {
			off += ir.Leaves(f.Type)
		}
		return x[off : off+ir.Leaves(e.T)]
	case *ir.Swizzle:
		x := m.eval(fr, e.X)
		out := make([]uint64, len(e.Comps))
		for i, c := range e.Comps {
			out[i] = x[c]
		}
		return out
	case *ir.Construct:
		var out []uint64
		for _, a := range e.Args {
			out = append(out, m.eval(fr, a)...)
		}
		if e.T.Kind() == ir.KindVector && len(out) == 1 {
			for len(out) < e.T.Len() {
				out = append(out, out[0])
			}
		}
		if e.T.Kind() == ir.KindArray && len(e.Args) == 1 && e.T.Len() > 1 {
			out = slices.Repeat(out, e.T.Len()) // one element for all
		}
		return out
	case *ir.Unary:
		x := m.eval(fr, e.X)
		s := e.T.Scalar()
		out := make([]uint64, len(x))
		for i, v := range x {
			switch {
			case e.Op == ir.Not:
				out[i] = v ^ 1
			case e.Op == ir.BitNot:
				out[i] = ir.Truncate(^v, s)
			case s.Kind() == ir.KindFloat:
				out[i] = fromF(-toF(v, s), s)
			default:
				out[i] = ir.Truncate(-v, s)
			}
		}
		return out
	case *ir.Binary:
		return m.binary(fr, e)
	case *ir.Cast:
		return m.cast(m.eval(fr, e.X), e.X.Type(), e.T, e.Bit)
	case *ir.Call:
		if e.Func != nil {
			args := make([]*[]uint64, len(e.Args))
			for i, a := range e.Args {
				if e.Func.Params[i].Kind == ir.VarRefParam {
					p := m.place(fr, a)
					if p.buf != nil || p.leaf != 0 {
						fail("by-reference argument that is not a whole variable")
					}
					args[i] = p.vals
				} else {
					v := m.eval(fr, a)
					args[i] = &v
				}
			}
			return m.call(e.Func, args)
		}
		return m.builtinCall(fr, e)
	}
	fail("expression %T", e)
	return nil
}

func (m *machine) binary(fr *frame, e *ir.Binary) []uint64 {
	xt, yt := e.X.Type(), e.Y.Type()
	if xt.Kind() == ir.KindMatrix || yt.Kind() == ir.KindMatrix {
		fail("matrix arithmetic on the CPU")
	}
	x, y := m.eval(fr, e.X), m.eval(fr, e.Y)
	// a vector scaled by a scalar, or shifted by a scalar count
	if len(y) == 1 && len(x) > 1 {
		for len(y) < len(x) {
			y = append(y, y[0])
		}
	}
	s, ys := xt.Scalar(), yt.Scalar()
	out := make([]uint64, len(x))
	for i := range x {
		out[i] = scalarBinary(e.Op, s, ys, x[i], y[i])
	}
	return out
}

func scalarBinary(op ir.BinaryOp, s, ys *ir.Type, a, b uint64) uint64 {
	if s.Kind() == ir.KindFloat {
		x, y := toF(a, s), toF(b, s)
		switch op {
		case ir.Add:
			return fromF(x+y, s)
		case ir.Sub:
			return fromF(x-y, s)
		case ir.Mul:
			return fromF(x*y, s)
		case ir.Div:
			return fromF(x/y, s)
		case ir.Rem:
			return fromF(math.Mod(x, y), s)
		case ir.Eq:
			return b2u(x == y)
		case ir.Ne:
			return b2u(x != y)
		case ir.Lt:
			return b2u(x < y)
		case ir.Le:
			return b2u(x <= y)
		case ir.Gt:
			return b2u(x > y)
		case ir.Ge:
			return b2u(x >= y)
		}
		fail("%s on floats", op)
	}
	if s == ir.TBool {
		switch op {
		case ir.And, ir.LogicAnd:
			return a & b
		case ir.Or, ir.LogicOr:
			return a | b
		case ir.Xor, ir.Ne:
			return a ^ b
		case ir.Eq:
			return 1 ^ a ^ b
		}
	}
	w := uint(s.Bits())
	signed := s.Kind() == ir.KindInt
	sa, sb := int64(ir.SignExtend(a, s)), int64(ir.SignExtend(b, ys))
	switch op {
	case ir.Add:
		return ir.Truncate(a+b, s)
	case ir.Sub:
		return ir.Truncate(a-b, s)
	case ir.Mul:
		return ir.Truncate(a*b, s)
	case ir.Div, ir.Rem:
		if b == 0 || signed && sb == -1 && sa == int64(ir.SignExtend(1<<(w-1), s)) {
			return 0 // undefined on the device; any value is right
		}
		switch {
		case signed && op == ir.Div:
			return ir.Truncate(uint64(sa/sb), s)
		case signed:
			return ir.Truncate(uint64(sa%sb), s)
		case op == ir.Div:
			return a / b
		}
		return a % b
	case ir.And:
		return a & b
	case ir.Or:
		return a | b
	case ir.Xor:
		return a ^ b
	case ir.Shl:
		if ir.Truncate(b, ys) >= uint64(w) {
			return 0
		}
		return ir.Truncate(a<<ir.Truncate(b, ys), s)
	case ir.Shr:
		n := ir.Truncate(b, ys)
		if signed {
			if n >= uint64(w) {
				n = uint64(w - 1)
			}
			return ir.Truncate(uint64(sa>>n), s)
		}
		if n >= uint64(w) {
			return 0
		}
		return a >> n
	case ir.Eq:
		return b2u(a == b)
	case ir.Ne:
		return b2u(a != b)
	case ir.Lt:
		if signed {
			return b2u(sa < sb)
		}
		return b2u(a < b)
	case ir.Le:
		if signed {
			return b2u(sa <= sb)
		}
		return b2u(a <= b)
	case ir.Gt:
		if signed {
			return b2u(sa > sb)
		}
		return b2u(a > b)
	case ir.Ge:
		if signed {
			return b2u(sa >= sb)
		}
		return b2u(a >= b)
	}
	fail("%s on %s", op, s)
	return 0
}

func (m *machine) cast(x []uint64, from, to *ir.Type, bit bool) []uint64 {
	fs, ts := from.Scalar(), to.Scalar()
	out := make([]uint64, len(x))
	if bit {
		if fs.Bits() != ts.Bits() {
			fail("bitcast between %s and %s on the CPU", from, to)
		}
		return append(out[:0], x...)
	}
	for i, v := range x {
		switch {
		case fs == ir.TBool:
			if ts.Kind() == ir.KindFloat {
				out[i] = fromF(float64(v), ts)
			} else {
				out[i] = v
			}
		case ts == ir.TBool:
			if fs.Kind() == ir.KindFloat {
				f := toF(v, fs)
				out[i] = b2u(f != 0)
			} else {
				out[i] = b2u(v != 0)
			}
		case fs.Kind() == ir.KindFloat && ts.Kind() == ir.KindFloat:
			out[i] = fromF(toF(v, fs), ts)
		case fs.Kind() == ir.KindFloat:
			f := math.Trunc(toF(v, fs))
			if ts.Kind() == ir.KindInt {
				out[i] = ir.Truncate(uint64(int64(f)), ts)
			} else {
				out[i] = ir.Truncate(uint64(f), ts)
			}
		case ts.Kind() == ir.KindFloat:
			if fs.Kind() == ir.KindInt {
				out[i] = fromF(float64(int64(ir.SignExtend(v, fs))), ts)
			} else if fs.Bits() == 64 {
				out[i] = fromF(float64(v), ts)
			} else {
				out[i] = fromF(float64(v), ts)
			}
			if ts.Bits() == 32 { // round once, from the exact integer
				if fs.Kind() == ir.KindInt {
					out[i] = uint64(math.Float32bits(float32(int64(ir.SignExtend(v, fs)))))
				} else {
					out[i] = uint64(math.Float32bits(float32(v)))
				}
			}
		default:
			out[i] = ir.Truncate(ir.SignExtend(v, fs), ts)
		}
	}
	return out
}

func (m *machine) builtinCall(fr *frame, e *ir.Call) []uint64 {
	if e.Op == ir.OpBufferSize {
		return []uint64{uint64(m.bufs[e.Args[0].(*ir.Ref).Var].Len())}
	}
	if e.Op == ir.OpRayClosest || e.Op == ir.OpRayAny {
		return m.ray(fr, e)
	}
	if ir.CandidateOp(e.Op) {
		return m.candidateOp(fr, e)
	}
	args := make([][]uint64, len(e.Args))
	for i, a := range e.Args {
		args[i] = m.eval(fr, a)
	}
	var at *ir.Type
	if len(e.Args) > 0 {
		at = e.Args[0].Type()
	}
	switch e.Op {
	case ir.OpSelect:
		out := make([]uint64, len(args[1]))
		for i := range out {
			c := args[0][0]
			if len(args[0]) > 1 {
				c = args[0][i]
			}
			if c != 0 {
				out[i] = args[1][i]
			} else {
				out[i] = args[2][i]
			}
		}
		return out
	case ir.OpIsNaN, ir.OpIsInf:
		out := make([]uint64, len(args[0]))
		for i, v := range args[0] {
			f := toF(v, at.Scalar())
			if e.Op == ir.OpIsNaN {
				out[i] = b2u(f != f)
			} else {
				out[i] = b2u(math.IsInf(f, 0))
			}
		}
		return out
	case ir.OpDot, ir.OpLength, ir.OpDistance, ir.OpNormalize:
		s := at.Scalar()
		a, b := args[0], args[0]
		if e.Op == ir.OpDot || e.Op == ir.OpDistance {
			b = args[1]
		}
		var sum float64
		for i := range a {
			x, y := toF(a[i], s), toF(b[i], s)
			if e.Op == ir.OpDistance {
				x, y = x-y, x-y
			}
			sum += x * y
		}
		switch e.Op {
		case ir.OpDot:
			return []uint64{fromF(sum, s)}
		case ir.OpNormalize:
			out := make([]uint64, len(a))
			for i := range a {
				out[i] = fromF(toF(a[i], s)/math.Sqrt(sum), s)
			}
			return out
		}
		return []uint64{fromF(math.Sqrt(sum), s)}
	case ir.OpCross:
		s := at.Scalar()
		f := func(v []uint64, i int) float64 { return toF(v[i], s) }
		a, b := args[0], args[1]
		return []uint64{
			fromF(f(a, 1)*f(b, 2)-f(a, 2)*f(b, 1), s),
			fromF(f(a, 2)*f(b, 0)-f(a, 0)*f(b, 2), s),
			fromF(f(a, 0)*f(b, 1)-f(a, 1)*f(b, 0), s),
		}
	case ir.OpAny, ir.OpAll:
		r := e.Op == ir.OpAll
		for _, v := range args[0] {
			if e.Op == ir.OpAny {
				r = r || v != 0
			} else {
				r = r && v != 0
			}
		}
		return []uint64{b2u(r)}
	case ir.OpReduceSum, ir.OpReduceProd, ir.OpReduceMin, ir.OpReduceMax:
		s := at.Scalar()
		acc := args[0][0]
		for _, v := range args[0][1:] {
			switch e.Op {
			case ir.OpReduceSum:
				acc = scalarBinary(ir.Add, s, s, acc, v)
			case ir.OpReduceProd:
				acc = scalarBinary(ir.Mul, s, s, acc, v)
			case ir.OpReduceMin:
				if scalarBinary(ir.Lt, s, s, v, acc) != 0 {
					acc = v
				}
			default:
				if scalarBinary(ir.Gt, s, s, v, acc) != 0 {
					acc = v
				}
			}
		}
		return []uint64{acc}
	}
	// Componentwise scalar built-ins through the CPU references.
	s := at.Scalar()
	out := make([]uint64, len(args[0]))
	for i := range out {
		if s == ir.TF32 {
			ops := make([]float32, len(args))
			for j, a := range args {
				ops[j] = math.Float32frombits(uint32(a[i]))
			}
			r, ok := ir.RefFloat32(e.Op, ops...)
			if !ok {
				fail("built-in %s on the CPU", e.Op)
			}
			out[i] = uint64(math.Float32bits(r))
			continue
		}
		if s == ir.TF16 { // the float32 reference, rounded; fma in float64
			ops := make([]float32, len(args))
			for j, a := range args {
				ops[j] = ir.HalfToFloat32(uint16(a[i]))
			}
			if e.Op == ir.OpFma {
				out[i] = fromF(math.FMA(float64(ops[0]), float64(ops[1]), float64(ops[2])), s)
				continue
			}
			r, ok := ir.RefFloat32(e.Op, ops...)
			if !ok {
				fail("built-in %s on the CPU", e.Op)
			}
			out[i] = uint64(ir.Float32ToHalf(r))
			continue
		}
		if s.Bits() == 32 && s.IsInteger() {
			ops := make([]uint32, len(args))
			for j, a := range args {
				ops[j] = uint32(a[i])
			}
			r, ok := ir.RefInt(e.Op, s.Kind() == ir.KindInt, ops...)
			if !ok {
				fail("built-in %s on the CPU", e.Op)
			}
			out[i] = uint64(r)
			continue
		}
		fail("built-in %s on %s on the CPU", e.Op, s)
	}
	return out
}

// rayOf evaluates a ray query's operands (accel, origin, tmin, dir, tmax,
// mask; the mask's low 8 bits: instance masks have 8).
func (m *machine) rayOf(fr *frame, op string, args []ir.Expr) (*bvh.Scene, bvh.Ray) {
	r, ok := args[0].(*ir.Ref)
	if !ok || m.accels[r.Var] == nil {
		fail("%s on an accel that is not a kernel argument", op)
	}
	f := func(v uint64) float32 { return math.Float32frombits(uint32(v)) }
	o, d := m.eval(fr, args[1]), m.eval(fr, args[3])
	return m.accels[r.Var], bvh.Ray{
		Origin: [3]float32{f(o[0]), f(o[1]), f(o[2])}, TMin: f(m.eval(fr, args[2])[0]),
		Dir: [3]float32{f(d[0]), f(d[1]), f(d[2])}, TMax: f(m.eval(fr, args[4])[0]),
		Mask: uint8(m.eval(fr, args[5])[0]),
	}
}

// rayQuery runs a candidate loop: its body as bvh's Query callback, once
// per candidate; then the committed result to s.Result.
func (m *machine) rayQuery(fr *frame, s *ir.RayQuery) {
	sc, ray := m.rayOf(fr, "ray query", s.Args)
	defer func() { m.cand, m.dec, m.candScene = nil, nil, nil }()
	var dec bvh.Decision
	h := sc.Query(ray, func(c bvh.Candidate) (float32, bool, bool) {
		dec.Reset(&c)
		m.cand, m.dec, m.candScene = &c, &dec, sc
		m.block_(fr, s.Body)
		return dec.Verdict()
	})
	w := sc.ResultWords(h, ray)
	out := make([]uint64, len(w))
	for i, x := range w {
		out[i] = uint64(x)
	}
	m.store(fr, s.Result, out)
}

// candidateOp evaluates an op of a candidate loop's body.
func (m *machine) candidateOp(fr *frame, e *ir.Call) []uint64 {
	if m.cand == nil {
		fail("%s outside a ray query's candidate loop", e.Op)
	}
	switch e.Op {
	case ir.OpRayCandidate:
		w := m.candScene.CandidateWords(m.cand)
		out := make([]uint64, len(w))
		for i, x := range w {
			out[i] = uint64(x)
		}
		return out
	case ir.OpRayCommitProcedural:
		m.dec.CommitProcedural(math.Float32frombits(uint32(m.eval(fr, e.Args[0])[0])))
	case ir.OpRayCommitTriangle:
		m.dec.CommitTriangle()
	case ir.OpRayTerminate:
		m.dec.Terminate()
	}
	return nil
}

// ray traces a ray query.
func (m *machine) ray(fr *frame, e *ir.Call) []uint64 {
	sc, ray := m.rayOf(fr, e.Op.String(), e.Args)
	h := sc.Trace(ray, e.Op == ir.OpRayAny)
	if e.Op == ir.OpRayAny {
		return []uint64{b2u(h.Kind != bvh.KindMiss)}
	}
	if h.Kind == bvh.KindMiss {
		return make([]uint64, 6)
	}
	u := func(x float32) uint64 { return uint64(math.Float32bits(x)) }
	return []uint64{uint64(h.ID), uint64(h.Prim), u(h.Bary[0]), u(h.Bary[1]), u(h.T), uint64(h.Kind)}
}
