package interp

import (
	"math"
	"slices"

	fe "github.com/lucent-gpu/lucent/frontend"
)

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (m *machine) eval(fr *frame, e fe.Expr) []uint64 {
	switch e := e.(type) {
	case *fe.Literal:
		return []uint64{fe.Truncate(e.Bits, e.T)}
	case *fe.ConstArray:
		out := make([]uint64, len(e.Values))
		for i, v := range e.Values {
			out[i] = fe.Truncate(v.Bits, v.T)
		}
		return out
	case *fe.Ref:
		switch e.Var.Kind {
		case fe.VarBuiltin:
			return m.builtin(e.Var.Builtin)
		case fe.VarArg:
			if v, ok := m.uniforms[e.Var]; ok {
				return v
			}
			fail("resource %s used as a value", e.Var.Name)
		}
		return m.load(fr, e)
	case *fe.Index:
		if fe.IsPlace(e) {
			return m.load(fr, e)
		}
		x := m.eval(fr, e.X)
		i := int(fe.SignExtend(m.eval(fr, e.I)[0], e.I.Type()))
		n := fe.Leaves(e.T)
		if i < 0 || (i+1)*n > len(x) {
			fail("index %d out of range of %s", i, e.X.Type())
		}
		return x[i*n : (i+1)*n]
	case *fe.Member:
		if fe.IsPlace(e) {
			return m.load(fr, e)
		}
		x := m.eval(fr, e.X)
		off := 0
		for _, f := range e.X.Type().Fields()[:e.Field] {
			off += fe.Leaves(f.Type)
		}
		return x[off : off+fe.Leaves(e.T)]
	case *fe.Swizzle:
		x := m.eval(fr, e.X)
		out := make([]uint64, len(e.Comps))
		for i, c := range e.Comps {
			out[i] = x[c]
		}
		return out
	case *fe.Construct:
		var out []uint64
		for _, a := range e.Args {
			out = append(out, m.eval(fr, a)...)
		}
		if e.T.Kind() == fe.KindVector && len(out) == 1 {
			for len(out) < e.T.Len() {
				out = append(out, out[0])
			}
		}
		if e.T.Kind() == fe.KindArray && len(e.Args) == 1 && e.T.Len() > 1 {
			out = slices.Repeat(out, e.T.Len()) // one element for all
		}
		return out
	case *fe.Unary:
		x := m.eval(fr, e.X)
		s := e.T.Scalar()
		out := make([]uint64, len(x))
		for i, v := range x {
			switch {
			case e.Op == fe.Not:
				out[i] = v ^ 1
			case e.Op == fe.BitNot:
				out[i] = fe.Truncate(^v, s)
			case s.Kind() == fe.KindFloat:
				out[i] = fromF(-toF(v, s), s)
			default:
				out[i] = fe.Truncate(-v, s)
			}
		}
		return out
	case *fe.Binary:
		return m.binary(fr, e)
	case *fe.Cast:
		return m.cast(m.eval(fr, e.X), e.X.Type(), e.T, e.Bit)
	case *fe.Call:
		if e.Func != nil {
			args := make([]*[]uint64, len(e.Args))
			for i, a := range e.Args {
				if e.Func.Params[i].Kind == fe.VarRefParam {
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

func (m *machine) binary(fr *frame, e *fe.Binary) []uint64 {
	xt, yt := e.X.Type(), e.Y.Type()
	if xt.Kind() == fe.KindMatrix || yt.Kind() == fe.KindMatrix {
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

func scalarBinary(op fe.BinaryOp, s, ys *fe.Type, a, b uint64) uint64 {
	if s.Kind() == fe.KindFloat {
		x, y := toF(a, s), toF(b, s)
		switch op {
		case fe.Add:
			return fromF(x+y, s)
		case fe.Sub:
			return fromF(x-y, s)
		case fe.Mul:
			return fromF(x*y, s)
		case fe.Div:
			return fromF(x/y, s)
		case fe.Rem:
			return fromF(math.Mod(x, y), s)
		case fe.Eq:
			return b2u(x == y)
		case fe.Ne:
			return b2u(x != y)
		case fe.Lt:
			return b2u(x < y)
		case fe.Le:
			return b2u(x <= y)
		case fe.Gt:
			return b2u(x > y)
		case fe.Ge:
			return b2u(x >= y)
		}
		fail("%s on floats", op)
	}
	if s == fe.TBool {
		switch op {
		case fe.And, fe.LogicAnd:
			return a & b
		case fe.Or, fe.LogicOr:
			return a | b
		case fe.Xor, fe.Ne:
			return a ^ b
		case fe.Eq:
			return 1 ^ a ^ b
		}
	}
	w := uint(s.Bits())
	signed := s.Kind() == fe.KindInt
	sa, sb := int64(fe.SignExtend(a, s)), int64(fe.SignExtend(b, ys))
	switch op {
	case fe.Add:
		return fe.Truncate(a+b, s)
	case fe.Sub:
		return fe.Truncate(a-b, s)
	case fe.Mul:
		return fe.Truncate(a*b, s)
	case fe.Div, fe.Rem:
		if b == 0 || signed && sb == -1 && sa == int64(fe.SignExtend(1<<(w-1), s)) {
			return 0 // undefined on the device; any value is right
		}
		switch {
		case signed && op == fe.Div:
			return fe.Truncate(uint64(sa/sb), s)
		case signed:
			return fe.Truncate(uint64(sa%sb), s)
		case op == fe.Div:
			return a / b
		}
		return a % b
	case fe.And:
		return a & b
	case fe.Or:
		return a | b
	case fe.Xor:
		return a ^ b
	case fe.Shl:
		if fe.Truncate(b, ys) >= uint64(w) {
			return 0
		}
		return fe.Truncate(a<<fe.Truncate(b, ys), s)
	case fe.Shr:
		n := fe.Truncate(b, ys)
		if signed {
			if n >= uint64(w) {
				n = uint64(w - 1)
			}
			return fe.Truncate(uint64(sa>>n), s)
		}
		if n >= uint64(w) {
			return 0
		}
		return a >> n
	case fe.Eq:
		return b2u(a == b)
	case fe.Ne:
		return b2u(a != b)
	case fe.Lt:
		if signed {
			return b2u(sa < sb)
		}
		return b2u(a < b)
	case fe.Le:
		if signed {
			return b2u(sa <= sb)
		}
		return b2u(a <= b)
	case fe.Gt:
		if signed {
			return b2u(sa > sb)
		}
		return b2u(a > b)
	case fe.Ge:
		if signed {
			return b2u(sa >= sb)
		}
		return b2u(a >= b)
	}
	fail("%s on %s", op, s)
	return 0
}

func (m *machine) cast(x []uint64, from, to *fe.Type, bit bool) []uint64 {
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
		case fs == fe.TBool:
			if ts.Kind() == fe.KindFloat {
				out[i] = fromF(float64(v), ts)
			} else {
				out[i] = v
			}
		case ts == fe.TBool:
			if fs.Kind() == fe.KindFloat {
				f := toF(v, fs)
				out[i] = b2u(f != 0)
			} else {
				out[i] = b2u(v != 0)
			}
		case fs.Kind() == fe.KindFloat && ts.Kind() == fe.KindFloat:
			out[i] = fromF(toF(v, fs), ts)
		case fs.Kind() == fe.KindFloat:
			f := math.Trunc(toF(v, fs))
			if ts.Kind() == fe.KindInt {
				out[i] = fe.Truncate(uint64(int64(f)), ts)
			} else {
				out[i] = fe.Truncate(uint64(f), ts)
			}
		case ts.Kind() == fe.KindFloat:
			if fs.Kind() == fe.KindInt {
				out[i] = fromF(float64(int64(fe.SignExtend(v, fs))), ts)
			} else if fs.Bits() == 64 {
				out[i] = fromF(float64(v), ts)
			} else {
				out[i] = fromF(float64(v), ts)
			}
			if ts.Bits() == 32 { // round once, from the exact integer
				if fs.Kind() == fe.KindInt {
					out[i] = uint64(math.Float32bits(float32(int64(fe.SignExtend(v, fs)))))
				} else {
					out[i] = uint64(math.Float32bits(float32(v)))
				}
			}
		default:
			out[i] = fe.Truncate(fe.SignExtend(v, fs), ts)
		}
	}
	return out
}

func (m *machine) builtinCall(fr *frame, e *fe.Call) []uint64 {
	if e.Op == fe.OpBufferSize {
		return []uint64{uint64(m.bufs[e.Args[0].(*fe.Ref).Var].Len())}
	}
	args := make([][]uint64, len(e.Args))
	for i, a := range e.Args {
		args[i] = m.eval(fr, a)
	}
	var at *fe.Type
	if len(e.Args) > 0 {
		at = e.Args[0].Type()
	}
	switch e.Op {
	case fe.OpSelect:
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
	case fe.OpIsNaN, fe.OpIsInf:
		out := make([]uint64, len(args[0]))
		for i, v := range args[0] {
			f := toF(v, at.Scalar())
			if e.Op == fe.OpIsNaN {
				out[i] = b2u(f != f)
			} else {
				out[i] = b2u(math.IsInf(f, 0))
			}
		}
		return out
	case fe.OpDot, fe.OpLength, fe.OpDistance, fe.OpNormalize:
		s := at.Scalar()
		a, b := args[0], args[0]
		if e.Op == fe.OpDot || e.Op == fe.OpDistance {
			b = args[1]
		}
		var sum float64
		for i := range a {
			x, y := toF(a[i], s), toF(b[i], s)
			if e.Op == fe.OpDistance {
				x, y = x-y, x-y
			}
			sum += x * y
		}
		switch e.Op {
		case fe.OpDot:
			return []uint64{fromF(sum, s)}
		case fe.OpNormalize:
			out := make([]uint64, len(a))
			for i := range a {
				out[i] = fromF(toF(a[i], s)/math.Sqrt(sum), s)
			}
			return out
		}
		return []uint64{fromF(math.Sqrt(sum), s)}
	case fe.OpCross:
		s := at.Scalar()
		f := func(v []uint64, i int) float64 { return toF(v[i], s) }
		a, b := args[0], args[1]
		return []uint64{
			fromF(f(a, 1)*f(b, 2)-f(a, 2)*f(b, 1), s),
			fromF(f(a, 2)*f(b, 0)-f(a, 0)*f(b, 2), s),
			fromF(f(a, 0)*f(b, 1)-f(a, 1)*f(b, 0), s),
		}
	case fe.OpAny, fe.OpAll:
		r := e.Op == fe.OpAll
		for _, v := range args[0] {
			if e.Op == fe.OpAny {
				r = r || v != 0
			} else {
				r = r && v != 0
			}
		}
		return []uint64{b2u(r)}
	case fe.OpReduceSum, fe.OpReduceProd, fe.OpReduceMin, fe.OpReduceMax:
		s := at.Scalar()
		acc := args[0][0]
		for _, v := range args[0][1:] {
			switch e.Op {
			case fe.OpReduceSum:
				acc = scalarBinary(fe.Add, s, s, acc, v)
			case fe.OpReduceProd:
				acc = scalarBinary(fe.Mul, s, s, acc, v)
			case fe.OpReduceMin:
				if scalarBinary(fe.Lt, s, s, v, acc) != 0 {
					acc = v
				}
			default:
				if scalarBinary(fe.Gt, s, s, v, acc) != 0 {
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
		if s == fe.TF32 {
			ops := make([]float32, len(args))
			for j, a := range args {
				ops[j] = math.Float32frombits(uint32(a[i]))
			}
			r, ok := fe.RefFloat32(e.Op, ops...)
			if !ok {
				fail("built-in %s on the CPU", e.Op)
			}
			out[i] = uint64(math.Float32bits(r))
			continue
		}
		if s.Bits() == 32 && s.IsInteger() {
			ops := make([]uint32, len(args))
			for j, a := range args {
				ops[j] = uint32(a[i])
			}
			r, ok := fe.RefInt(e.Op, s.Kind() == fe.KindInt, ops...)
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
