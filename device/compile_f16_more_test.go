package device_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// halfMemResults is the number of f16 results halfMemKernel stores per thread.
const halfMemResults = 7

// halfMemKernel stores, for thread i of a 64-thread block (t its id in the
// block): a[block+63-t]·u read back from workgroup memory after a barrier,
// a[i] + i%4 read from a local f16 array at a dynamic index, a[i]·u2 + f16(w)
// (u, u2 f16 uniforms around an f32 one), the subgroup max, min and first
// lane's value of a[i], and the subgroup sum of f16(i%8), which is exact
// (out, halfMemResults each); and the subgroup size (sg).
func halfMemKernel() *ir.Function {
	f := ir.NewKernel("half_mem", 1, [3]uint32{64, 1, 1})
	h := ir.TF16
	a := f.AddParam("a", ir.Buffer(h), ir.VarArg)
	u := f.AddParam("u", h, ir.VarArg)
	w := f.AddParam("w", ir.TF32, ir.VarArg)
	u2 := f.AddParam("u2", h, ir.VarArg)
	out := f.AddParam("out", ir.Buffer(h), ir.VarArg)
	sg := f.AddParam("sg", ir.Buffer(ir.TU32), ir.VarArg)
	builtin := func(b ir.BuiltinVar) *ir.Var {
		return &ir.Var{Name: b.String(), Type: b.Type(), Kind: ir.VarBuiltin, Builtin: b}
	}
	x0 := func(v *ir.Var) ir.Expr { return &ir.Swizzle{X: &ir.Ref{Var: v}, Comps: []uint8{0}, T: ir.TU32} }
	i, t := x0(builtin(ir.DispatchID)), x0(builtin(ir.ThreadID))
	size := &ir.Ref{Var: builtin(ir.SubgroupSize)}
	bin := func(op ir.BinaryOp, p, q ir.Expr) ir.Expr {
		ty := p.Type()
		if op >= ir.Eq && op <= ir.Ge {
			ty = ir.TBool
		}
		return &ir.Binary{Op: op, X: p, Y: q, T: ty}
	}
	lit := func(n int64) ir.Expr { return ir.LitInt(ir.TU32, n) }
	at := func(v *ir.Var, k ir.Expr) ir.Expr { return &ir.Index{X: &ir.Ref{Var: v}, I: k, T: v.Type.Elem()} }
	sh := f.AddShared("sh", ir.Array(h, 64))
	loc := f.AddLocal("loc", ir.Array(h, 4))
	k := f.AddLocal("k", ir.TU32)
	sub := func(op ir.Op, x ir.Expr) ir.Expr { return &ir.Call{Op: op, Args: []ir.Expr{x}, T: h} }
	av := at(a, i)
	results := []ir.Expr{
		at(sh, bin(ir.Sub, lit(63), t)),
		at(loc, bin(ir.Rem, i, lit(4))),
		bin(ir.Add, bin(ir.Mul, av, &ir.Ref{Var: u2}), &ir.Cast{X: &ir.Ref{Var: w}, T: h}),
		sub(ir.OpSubgroupMax, av), sub(ir.OpSubgroupMin, av), sub(ir.OpSubgroupBroadcastFirst, av),
		sub(ir.OpSubgroupAdd, &ir.Cast{X: bin(ir.Rem, i, lit(8)), T: h}),
	}
	f.Body.Stmts = []ir.Stmt{
		&ir.Assign{Dst: at(sh, t), Src: bin(ir.Mul, av, &ir.Ref{Var: u})},
		&ir.ExprStmt{X: &ir.Call{Op: ir.OpBarrier, T: ir.TVoid}},
		&ir.For{Cond: bin(ir.Lt, &ir.Ref{Var: k}, lit(4)),
			Body:   &ir.Block{Stmts: []ir.Stmt{&ir.Assign{Dst: at(loc, &ir.Ref{Var: k}), Src: bin(ir.Add, av, &ir.Cast{X: &ir.Ref{Var: k}, T: h})}}},
			Update: &ir.Block{Stmts: []ir.Stmt{&ir.Assign{Dst: &ir.Ref{Var: k}, Src: bin(ir.Add, &ir.Ref{Var: k}, lit(1))}}}},
		&ir.Assign{Dst: at(sg, i), Src: size},
	}
	for j, r := range results {
		idx := bin(ir.Add, bin(ir.Mul, i, lit(halfMemResults)), lit(int64(j)))
		f.Body.Stmts = append(f.Body.Stmts, &ir.Assign{Dst: at(out, idx), Src: r})
	}
	return f
}

// TestF16UniformSharedSubgroup runs halfMemKernel on the device
// (testBackend) and checks every result exactly against Go: f16 uniforms
// packed beside an f32 one, f16 in workgroup memory and in a local array,
// and f16 subgroup max, min, broadcast and (exact) sum.
func TestF16UniformSharedSubgroup(t *testing.T) {
	d := openDevice(t)
	caps := d.Capabilities()
	if !caps.Float16 || !caps.Storage16 || !caps.Subgroups {
		testenv.Need(t, "f16 arithmetic and subgroups", errUnsupported("Float16/Storage16/Subgroups"))
	}
	f := halfMemKernel()
	require.NoError(t, f.Validate())
	k, err := device.Compile(d, f)
	if errors.Is(err, device.ErrUnsupported) {
		testenv.Need(t, "f16 uniforms (Vulkan feature storagePushConstant16)", err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	const n = 256
	a := make([]uint16, n)
	for e := range a {
		a[e] = ir.Float32ToHalf(float32((e*37)%201-100) * 0.37)
	}
	a[5], a[70], a[130] = 0x7c00, 0xfc00, 0x0001 // infinities, a denormal
	u, u2, w := uint16(0x3555), uint16(0x3e00), float32(0.1)
	out := upload(t, d, make([]f16, n*halfMemResults))
	sgb := upload(t, d, make([]uint32, n))
	run(t, d, k.Dispatch([3]uint32{n}, upload(t, d, f16s(a)), f16{u}, w, f16{u2}, out, sgb))
	got, sizes := download(t, d, out), download(t, d, sgb)
	hf := ir.HalfToFloat32
	mul := func(p, q uint16) uint16 { return ir.Float32ToHalf(hf(p) * hf(q)) }
	add := func(p, q uint16) uint16 { return ir.Float32ToHalf(hf(p) + hf(q)) }
	sz := int(sizes[0])
	require.True(t, sz > 0 && 64%sz == 0, "subgroup size %d", sz)
	for e := range n {
		require.Equal(t, uint32(sz), sizes[e], "thread %d subgroup size", e)
		base := e / sz * sz
		mx, mn := a[base], a[base]
		for _, v := range a[base : base+sz] {
			if hf(v) > hf(mx) {
				mx = v
			}
			if hf(v) < hf(mn) {
				mn = v
			}
		}
		sum := 0
		for q := base; q < base+sz; q++ {
			sum += q % 8
		}
		want := []uint16{
			mul(a[e/64*64+63-e%64], u),
			add(a[e], ir.Float32ToHalf(float32(e%4))),
			add(mul(a[e], u2), ir.Float32ToHalf(w)),
			mx, mn, a[base], ir.Float32ToHalf(float32(sum)),
		}
		for j, wv := range want {
			require.Equal(t, wv, got[e*halfMemResults+j].Bits, "thread %d (a=%#04x, subgroup size %d) result %d: got %#04x, want %#04x", e, a[e], sz, j, got[e*halfMemResults+j].Bits, wv)
		}
	}
	t.Logf("%d threads × %d f16 results checked, subgroup size %d", n, halfMemResults, sz)
}

// halfMathResults is the number of f16 results halfMathKernel stores per
// thread, in this order: sin(a), cos(a), exp(a), exp2(a), log(b), log2(b),
// pow(b, a), dot(v, v'), length(v), normalize(v) (3), with v = (a, b, c) and
// v' = (b, c, a).
const halfMathResults = 12

// halfMathKernel stores, for thread i, the halfMathResults f16 results on
// a[i], b[i], c[i].
func halfMathKernel() *ir.Function {
	f := ir.NewKernel("half_math", 1, [3]uint32{64, 1, 1})
	h := ir.TF16
	a := f.AddParam("a", ir.Buffer(h), ir.VarArg)
	b := f.AddParam("b", ir.Buffer(h), ir.VarArg)
	c := f.AddParam("c", ir.Buffer(h), ir.VarArg)
	out := f.AddParam("out", ir.Buffer(h), ir.VarArg)
	did := &ir.Var{Name: "dispatch_id", Type: ir.DispatchID.Type(), Kind: ir.VarBuiltin, Builtin: ir.DispatchID}
	i := &ir.Swizzle{X: &ir.Ref{Var: did}, Comps: []uint8{0}, T: ir.TU32}
	at := func(v *ir.Var, k ir.Expr) ir.Expr { return &ir.Index{X: &ir.Ref{Var: v}, I: k, T: v.Type.Elem()} }
	call := func(op ir.Op, t *ir.Type, args ...ir.Expr) ir.Expr { return &ir.Call{Op: op, Args: args, T: t} }
	av, bv, cv := at(a, i), at(b, i), at(c, i)
	v3 := ir.Vector(h, 3)
	v := &ir.Construct{T: v3, Args: []ir.Expr{av, bv, cv}}
	w := &ir.Construct{T: v3, Args: []ir.Expr{bv, cv, av}}
	nv := f.AddLocal("n", v3)
	comp := func(j uint8) ir.Expr { return &ir.Swizzle{X: &ir.Ref{Var: nv}, Comps: []uint8{j}, T: h} }
	results := []ir.Expr{
		call(ir.OpSin, h, av), call(ir.OpCos, h, av), call(ir.OpExp, h, av), call(ir.OpExp2, h, av),
		call(ir.OpLog, h, bv), call(ir.OpLog2, h, bv), call(ir.OpPow, h, bv, av),
		call(ir.OpDot, h, v, w), call(ir.OpLength, h, v), comp(0), comp(1), comp(2),
	}
	f.Body.Stmts = []ir.Stmt{&ir.Assign{Dst: &ir.Ref{Var: nv}, Src: call(ir.OpNormalize, v3, v)}}
	for j, r := range results {
		idx := &ir.Binary{Op: ir.Add, X: &ir.Binary{Op: ir.Mul, X: i, Y: ir.LitInt(ir.TU32, halfMathResults), T: ir.TU32}, Y: ir.LitInt(ir.TU32, int64(j)), T: ir.TU32}
		f.Body.Stmts = append(f.Body.Stmts, &ir.Assign{Dst: at(out, idx), Src: r})
	}
	return f
}

// halfULP is the f16 ULP at x: the gap between the two halves around |x|
// (2^-24 in the denormals).
func halfULP(x float64) float64 {
	_, e := math.Frexp(math.Abs(x)) // |x| = m·2^e, m in [0.5, 1)
	return math.Ldexp(1, max(e-1, -14)-10)
}

// TestF16Transcendentals runs halfMathKernel on the device (testBackend)
// and checks each result against float64 math on the f16 operands within
// the Vulkan spec's minimum precision for 16-bit operations: sin and cos
// absolute 2^-7 on [-π, π]; exp and exp2 1+2|x| ULP; log and log2 3 ULP
// outside [0.5, 2] and absolute 2^-7 inside; pow, dot, length and
// normalize inherited from their formulas (exp2(y·log2 x); products and
// sums each correctly rounded; sqrt(dot) and v·inversesqrt(dot), sqrt and
// inversesqrt 2 ULP), bounded here by the usual error propagation.
func TestF16Transcendentals(t *testing.T) {
	d := openDevice(t)
	caps := d.Capabilities()
	if !caps.Float16 || !caps.Storage16 {
		testenv.Need(t, "f16 arithmetic", errUnsupported("Float16/Storage16"))
	}
	f := halfMathKernel()
	require.NoError(t, f.Validate())
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	const n = 512
	a, b, c := make([]uint16, n), make([]uint16, n), make([]uint16, n)
	for e := range n {
		a[e] = ir.Float32ToHalf(float32(-math.Pi + 2*math.Pi*float64(e)/(n-1)))       // [-π, π]
		b[e] = ir.Float32ToHalf(float32(math.Exp2(-6 + 13*float64((e*131)%n)/(n-1)))) // [2^-6, 2^7]
		c[e] = ir.Float32ToHalf(float32(float64((e*71)%n)/(n-1)*40 - 20))             // [-20, 20]
	}
	a[0], a[n-1] = ir.Float32ToHalf(-3.140625), ir.Float32ToHalf(3.140625) // inside [-π, π] as halves
	out := upload(t, d, make([]f16, n*halfMathResults))
	run(t, d, k.Dispatch([3]uint32{n}, upload(t, d, f16s(a)), upload(t, d, f16s(b)), upload(t, d, f16s(c)), out))
	got := download(t, d, out)
	hf := func(x uint16) float64 { return float64(ir.HalfToFloat32(x)) }
	const u = 0x1p-11                         // f16 unit roundoff
	worst := make([]float64, halfMathResults) // the largest error seen, in units of its bound
	for e := range n {
		x, y, z := hf(a[e]), hf(b[e]), hf(c[e])
		logTol := func(r float64) float64 {
			if y >= 0.5 && y <= 2 {
				return 0x1p-7
			}
			return 3 * halfULP(r)
		}
		dd := x*x + y*y + z*z
		l := math.Sqrt(dd)
		lenTol := l*(1.5*u+2*u) + 2*halfULP(l) // dot's relative 3u halved by sqrt, sqrt's 2 ULP, the result's rounding
		pw := math.Pow(y, x)
		// pow: log2's error (absolute 2^-7 or 3 ULP of log2 y) times |x| in the exponent, then exp2's 1+2|t| ULP.
		lg := math.Log2(y)
		lgErr := 0x1p-7
		if y < 0.5 || y > 2 {
			lgErr = 3 * halfULP(lg)
		}
		tt := x * lg
		type check struct {
			want, tol float64
		}
		checks := []check{
			{math.Sin(x), 0x1p-7}, {math.Cos(x), 0x1p-7},
			{math.Exp(x), (1 + 2*math.Abs(x)) * halfULP(math.Exp(x))},
			{math.Exp2(x), (1 + 2*math.Abs(x)) * halfULP(math.Exp2(x))},
			{math.Log(y), logTol(math.Log(y))}, {lg, logTol(lg)},
			{pw, pw*(math.Ln2*math.Abs(x)*lgErr+math.Ln2*halfULP(tt)) + (1+2*math.Abs(tt))*halfULP(pw)},
			{x*y + y*z + z*x, 3*u*(math.Abs(x*y)+math.Abs(y*z)+math.Abs(z*x)) + halfULP(x*y+y*z+z*x)},
			{l, lenTol},
		}
		for _, q := range []float64{x, y, z} {
			nq := q / l
			checks = append(checks, check{nq, math.Abs(nq)*(1.5*u+2*u+u) + 2*halfULP(nq)}) // inversesqrt(dot)'s error, the product's rounding
		}
		for j, ch := range checks {
			if math.Abs(ch.want) > 65504 { // past the f16 range: pow only
				continue
			}
			g := hf(got[e*halfMathResults+j].Bits)
			err := math.Abs(g - ch.want)
			require.LessOrEqual(t, err, ch.tol, "thread %d (a=%v b=%v c=%v) result %d: got %v, want %v ± %v", e, x, y, z, j, g, ch.want, ch.tol)
			worst[j] = max(worst[j], err/ch.tol)
		}
	}
	t.Logf("largest error per result, as a fraction of its bound: %.2f", worst)
}
