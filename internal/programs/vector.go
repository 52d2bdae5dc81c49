package programs

import (
	"math"
	"reflect"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// VecIn is the input record of VectorOps.
type VecIn struct {
	A, B ir.Float4
	M    ir.Float4x4
}

// VecOut is the output record of VectorOps.
type VecOut struct {
	Dot, Len, Dist       float32
	Cross                ir.Float3
	Norm                 ir.Float4
	Refl                 ir.Float3
	T, Inv, Outer, MM    ir.Float4x4
	Det                  float32
	MV, VM               ir.Float4
	Sum, Prod, Min, Max  float32
	AnyGt, AllGt, IntSum uint32
	Mix                  ir.Float4
}

// VectorOps applies the vector and matrix built-ins to each VecIn record.
// It is built with the AST directly (the DSL has no matrix values yet),
// which also exercises that API.
func VectorOps() (*ir.Function, error) {
	inT, err := ir.TypeOf(reflect.TypeFor[VecIn]())
	if err != nil {
		return nil, err
	}
	outT, err := ir.TypeOf(reflect.TypeFor[VecOut]())
	if err != nil {
		return nil, err
	}
	f := ir.NewKernel("vector_ops", 1, [3]uint32{32, 1, 1})
	in := f.AddParam("in", ir.Buffer(inT), ir.VarArg)
	out := f.AddParam("out", ir.Buffer(outT), ir.VarArg)
	did := &ir.Ref{Var: &ir.Var{Name: "dispatch_id", Type: ir.DispatchID.Type(), Kind: ir.VarBuiltin, Builtin: ir.DispatchID}}
	i := &ir.Swizzle{X: did, Comps: []uint8{0}, T: ir.TU32}
	rec := &ir.Index{X: &ir.Ref{Var: in}, I: i, T: inT}
	field := func(x ir.Expr, n int) ir.Expr {
		return &ir.Member{X: x, Field: n, T: x.Type().Fields()[n].Type}
	}
	a, b, m := field(rec, 0), field(rec, 1), field(rec, 2)
	v3 := ir.Vector(ir.TF32, 3)
	a3 := &ir.Swizzle{X: a, Comps: []uint8{0, 1, 2}, T: v3}
	b3 := &ir.Swizzle{X: b, Comps: []uint8{0, 1, 2}, T: v3}
	call := func(op ir.Op, args ...ir.Expr) ir.Expr {
		t, err2 := ir.CallType(op, args)
		if err2 != nil && err == nil {
			err = err2
		}
		return &ir.Call{Op: op, Args: args, T: t}
	}
	bin := func(op ir.BinaryOp, x, y ir.Expr) ir.Expr {
		t, err2 := ir.BinaryType(op, x.Type(), y.Type())
		if err2 != nil && err == nil {
			err = err2
		}
		return &ir.Binary{Op: op, X: x, Y: y, T: t}
	}
	gt := bin(ir.Gt, a, b)
	ivec := ir.Vector(ir.TI32, 4)
	values := []ir.Expr{
		call(ir.OpDot, a, b), call(ir.OpLength, a), call(ir.OpDistance, a, b),
		call(ir.OpCross, a3, b3), call(ir.OpNormalize, a), call(ir.OpReflect, a3, call(ir.OpNormalize, b3)),
		call(ir.OpTranspose, m), call(ir.OpInverse, m), call(ir.OpOuterProduct, a, b), bin(ir.Mul, m, call(ir.OpTranspose, m)),
		call(ir.OpDeterminant, m),
		bin(ir.Mul, m, a), bin(ir.Mul, a, m),
		call(ir.OpReduceSum, a), call(ir.OpReduceProd, a), call(ir.OpReduceMin, a), call(ir.OpReduceMax, a),
		&ir.Cast{X: call(ir.OpAny, gt), T: ir.TU32}, &ir.Cast{X: call(ir.OpAll, gt), T: ir.TU32},
		&ir.Cast{X: call(ir.OpReduceSum, &ir.Cast{X: a, T: ivec}), T: ir.TU32},
		call(ir.OpLerp, a, b, &ir.Construct{T: a.Type(), Args: []ir.Expr{ir.LitFloat(ir.TF32, 0.25)}}),
	}
	dst := &ir.Index{X: &ir.Ref{Var: out}, I: i, T: outT}
	for n, v := range values {
		f.Body.Stmts = append(f.Body.Stmts, &ir.Assign{Dst: field(dst, n), Src: v})
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
		o.Cross = ir.Float3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
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
func det4inv(m ir.Float4x4) (float64, ir.Float4x4) {
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
	var inv ir.Float4x4
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
func Transform() (*ir.Function, error) {
	return dsl.Kernel1D(32, func(k *dsl.K, m dsl.Mat4, pts, out dsl.Buf[dsl.F32x4]) {
		i := k.DispatchID().X()
		p := pts.Read(i)
		out.Write(i.Mul(dsl.U(2)), m.Apply(p))
		out.Write(i.Mul(dsl.U(2)).Add(dsl.U(1)), m.Inverse().Transpose().Apply(p))
	})
}

// TransformRef is Transform on the CPU, in float64.
func TransformRef(m ir.Float4x4, pts []ir.Float4) []ir.Float4 {
	_, inv := det4inv(m)
	out := make([]ir.Float4, 2*len(pts))
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
