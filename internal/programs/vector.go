package programs

import (
	"math"
	"reflect"

	fe "github.com/lucent-gpu/lucent/frontend"
)

// VecIn is the input record of VectorOps.
type VecIn struct {
	A, B fe.Float4
	M    fe.Float4x4
}

// VecOut is the output record of VectorOps.
type VecOut struct {
	Dot, Len, Dist       float32
	Cross                fe.Float3
	Norm                 fe.Float4
	Refl                 fe.Float3
	T, Inv, Outer, MM    fe.Float4x4
	Det                  float32
	MV, VM               fe.Float4
	Sum, Prod, Min, Max  float32
	AnyGt, AllGt, IntSum uint32
	Mix                  fe.Float4
}

// VectorOps applies the vector and matrix built-ins to each VecIn record.
// It is built with the AST directly (the DSL has no matrix values yet),
// which also exercises that API.
func VectorOps() (*fe.Function, error) {
	inT, err := fe.TypeOf(reflect.TypeFor[VecIn]())
	if err != nil {
		return nil, err
	}
	outT, err := fe.TypeOf(reflect.TypeFor[VecOut]())
	if err != nil {
		return nil, err
	}
	f := fe.NewKernel("vector_ops", 1, [3]uint32{32, 1, 1})
	in := f.AddParam("in", fe.Buffer(inT), fe.VarArg)
	out := f.AddParam("out", fe.Buffer(outT), fe.VarArg)
	did := &fe.Ref{Var: &fe.Var{Name: "dispatch_id", Type: fe.DispatchID.Type(), Kind: fe.VarBuiltin, Builtin: fe.DispatchID}}
	i := &fe.Swizzle{X: did, Comps: []uint8{0}, T: fe.TU32}
	rec := &fe.Index{X: &fe.Ref{Var: in}, I: i, T: inT}
	field := func(x fe.Expr, n int) fe.Expr {
		return &fe.Member{X: x, Field: n, T: x.Type().Fields()[n].Type}
	}
	a, b, m := field(rec, 0), field(rec, 1), field(rec, 2)
	v3 := fe.Vector(fe.TF32, 3)
	a3 := &fe.Swizzle{X: a, Comps: []uint8{0, 1, 2}, T: v3}
	b3 := &fe.Swizzle{X: b, Comps: []uint8{0, 1, 2}, T: v3}
	call := func(op fe.Op, args ...fe.Expr) fe.Expr {
		t, err2 := fe.CallType(op, args)
		if err2 != nil && err == nil {
			err = err2
		}
		return &fe.Call{Op: op, Args: args, T: t}
	}
	bin := func(op fe.BinaryOp, x, y fe.Expr) fe.Expr {
		t, err2 := fe.BinaryType(op, x.Type(), y.Type())
		if err2 != nil && err == nil {
			err = err2
		}
		return &fe.Binary{Op: op, X: x, Y: y, T: t}
	}
	gt := bin(fe.Gt, a, b)
	ivec := fe.Vector(fe.TI32, 4)
	values := []fe.Expr{
		call(fe.OpDot, a, b), call(fe.OpLength, a), call(fe.OpDistance, a, b),
		call(fe.OpCross, a3, b3), call(fe.OpNormalize, a), call(fe.OpReflect, a3, call(fe.OpNormalize, b3)),
		call(fe.OpTranspose, m), call(fe.OpInverse, m), call(fe.OpOuterProduct, a, b), bin(fe.Mul, m, call(fe.OpTranspose, m)),
		call(fe.OpDeterminant, m),
		bin(fe.Mul, m, a), bin(fe.Mul, a, m),
		call(fe.OpReduceSum, a), call(fe.OpReduceProd, a), call(fe.OpReduceMin, a), call(fe.OpReduceMax, a),
		&fe.Cast{X: call(fe.OpAny, gt), T: fe.TU32}, &fe.Cast{X: call(fe.OpAll, gt), T: fe.TU32},
		&fe.Cast{X: call(fe.OpReduceSum, &fe.Cast{X: a, T: ivec}), T: fe.TU32},
		call(fe.OpLerp, a, b, &fe.Construct{T: a.Type(), Args: []fe.Expr{fe.LitFloat(fe.TF32, 0.25)}}),
	}
	dst := &fe.Index{X: &fe.Ref{Var: out}, I: i, T: outT}
	for n, v := range values {
		f.Body.Stmts = append(f.Body.Stmts, &fe.Assign{Dst: field(dst, n), Src: v})
	}
	if err != nil {
		return nil, err
	}
	return f, f.Validate()
}

// VectorOpsRef is VectorOps on the CPU, in float64.
func VectorOpsRef(in []VecIn) []VecOut {
	out := make([]VecOut, len(in))
	for i, r := range in {
		a, b := r.A, r.B
		o := &out[i]
		var dot, la, dd float64
		for c := range 4 {
			dot += float64(a[c]) * float64(b[c])
			la += float64(a[c]) * float64(a[c])
			dd += float64(a[c]-b[c]) * float64(a[c]-b[c])
		}
		o.Dot, o.Len, o.Dist = float32(dot), float32(math.Sqrt(la)), float32(math.Sqrt(dd))
		o.Cross = fe.Float3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
		for c := range 4 {
			o.Norm[c] = float32(float64(a[c]) / math.Sqrt(la))
		}
		lb := math.Sqrt(float64(b[0]*b[0] + b[1]*b[1] + b[2]*b[2]))
		var nd float64
		for c := range 3 {
			nd += float64(a[c]) * float64(b[c]) / lb
		}
		for c := range 3 {
			o.Refl[c] = float32(float64(a[c]) - 2*nd*float64(b[c])/lb)
		}
		m := r.M // m[col][row]
		for c := range 4 {
			for rr := range 4 {
				o.T[c][rr] = m[rr][c]
				o.Outer[c][rr] = a[rr] * b[c]
				var s float64
				for k := range 4 {
					s += float64(m[k][rr]) * float64(m[k][c]) // (M·Mᵀ)[rr][c]
				}
				o.MM[c][rr] = float32(s)
			}
		}
		det, inv := det4inv(m)
		o.Det, o.Inv = float32(det), inv
		for rr := range 4 {
			var mv, vm float64
			for k := range 4 {
				mv += float64(m[k][rr]) * float64(a[k])
				vm += float64(a[k]) * float64(m[rr][k])
			}
			o.MV[rr], o.VM[rr] = float32(mv), float32(vm)
		}
		o.Sum, o.Prod = a[0]+a[1]+a[2]+a[3], a[0]*a[1]*a[2]*a[3]
		o.Min, o.Max = min(a[0], a[1], a[2], a[3]), max(a[0], a[1], a[2], a[3])
		anyGt, allGt := false, true
		var isum int32
		for c := range 4 {
			anyGt = anyGt || a[c] > b[c]
			allGt = allGt && a[c] > b[c]
			isum += int32(a[c])
			o.Mix[c] = a[c]*0.75 + b[c]*0.25
		}
		if anyGt {
			o.AnyGt = 1
		}
		if allGt {
			o.AllGt = 1
		}
		o.IntSum = uint32(isum)
	}
	return out
}

// det4inv is the determinant and inverse of a column-major 4×4 matrix by
// cofactors, in float64.
func det4inv(m fe.Float4x4) (float64, fe.Float4x4) {
	var a [4][4]float64 // a[row][col]
	for c := range 4 {
		for r := range 4 {
			a[r][c] = float64(m[c][r])
		}
	}
	minor := func(r, c int) float64 {
		var s [3][3]float64
		for i, ii := 0, 0; i < 4; i++ {
			if i == r {
				continue
			}
			for j, jj := 0, 0; j < 4; j++ {
				if j == c {
					continue
				}
				s[ii][jj] = a[i][j]
				jj++
			}
			ii++
		}
		return s[0][0]*(s[1][1]*s[2][2]-s[1][2]*s[2][1]) - s[0][1]*(s[1][0]*s[2][2]-s[1][2]*s[2][0]) + s[0][2]*(s[1][0]*s[2][1]-s[1][1]*s[2][0])
	}
	var det float64
	for c := range 4 {
		det += math.Pow(-1, float64(c)) * a[0][c] * minor(0, c)
	}
	var inv fe.Float4x4
	for r := range 4 {
		for c := range 4 {
			// inverse[r][c] = cofactor(c, r) / det; stored column-major: inv[c][r]
			inv[c][r] = float32(math.Pow(-1, float64(r+c)) * minor(c, r) / det)
		}
	}
	return det, inv
}

// Transform applies the uniform matrix m (and its inverse transpose) to
// points: out[2i] = m·p, out[2i+1] = (m⁻¹)ᵀ·p.
func Transform() (*fe.Function, error) {
	return fe.Kernel1D(32, func(k *fe.K, m fe.Mat4, pts, out fe.Buf[fe.F32x4]) {
		i := k.DispatchID().X()
		p := pts.Read(i)
		out.Write(i.Mul(fe.U(2)), m.Apply(p))
		out.Write(i.Mul(fe.U(2)).Add(fe.U(1)), m.Inverse().Transpose().Apply(p))
	})
}

// TransformRef is Transform on the CPU, in float64.
func TransformRef(m fe.Float4x4, pts []fe.Float4) []fe.Float4 {
	_, inv := det4inv(m)
	out := make([]fe.Float4, 2*len(pts))
	for i, p := range pts {
		for r := range 4 {
			var a, b float64
			for c := range 4 {
				a += float64(m[c][r]) * float64(p[c])
				b += float64(inv[r][c]) * float64(p[c]) // (m⁻¹)ᵀ[r][c] = m⁻¹[c][r], stored inv[r][c]
			}
			out[2*i][r], out[2*i+1][r] = float32(a), float32(b)
		}
	}
	return out
}
