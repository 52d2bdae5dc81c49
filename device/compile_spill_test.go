package device_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// spillKernel takes more arguments than kernel ABI v1's 128 push-constant
// bytes hold, of every kind that lives there: out, nBig buffers by address,
// an accel, nVec vec4 uniforms, a u32 and a bool, and it prints. Thread i
// computes
//
//	out[i] = ±(Σ_j (j+1)·big_j[i] + Σ_k u_k[k%4] + s + 1000·kind)
//
// where kind is the hit kind of a ray along +z through x = y = 0.5 (mask
// 0xff for even threads, 0 for odd ones: a miss), the sign + where flip is
// false; thread 0 prints the last vec4, s and the kind.
func spillKernel(nBig, nVec int) *ir.Function {
	f := ir.NewKernel(fmt.Sprintf("spill%d", nBig), 1, [3]uint32{64, 1, 1})
	out := f.AddParam("out", ir.Buffer(ir.TF32), ir.VarArg)
	did := &ir.Var{Name: "dispatch_id", Type: ir.DispatchID.Type(), Kind: ir.VarBuiltin, Builtin: ir.DispatchID}
	i := &ir.Swizzle{X: &ir.Ref{Var: did}, Comps: []uint8{0}, T: ir.TU32}
	add := func(x, y ir.Expr) ir.Expr { return &ir.Binary{Op: ir.Add, X: x, Y: y, T: x.Type()} }
	mul := func(x, y ir.Expr) ir.Expr { return &ir.Binary{Op: ir.Mul, X: x, Y: y, T: x.Type()} }
	var sum ir.Expr = ir.LitInt(ir.TU32, 0)
	for j := range nBig {
		b := f.AddParam(fmt.Sprintf("big%d", j), ir.BufferAddress(ir.TU32), ir.VarArg)
		sum = add(sum, mul(&ir.Index{X: &ir.Ref{Var: b}, I: i, T: ir.TU32}, ir.LitInt(ir.TU32, int64(j+1))))
	}
	scene := f.AddParam("scene", ir.Accel, ir.VarArg)
	v4, v3 := ir.Vector(ir.TF32, 4), ir.Vector(ir.TF32, 3)
	var fsum ir.Expr = &ir.Cast{X: sum, T: ir.TF32}
	var last *ir.Var
	for k := range nVec {
		last = f.AddParam(fmt.Sprintf("u%d", k), v4, ir.VarArg)
		fsum = add(fsum, &ir.Swizzle{X: &ir.Ref{Var: last}, Comps: []uint8{uint8(k % 4)}, T: ir.TF32})
	}
	s := f.AddParam("s", ir.TU32, ir.VarArg)
	flip := f.AddParam("flip", ir.TBool, ir.VarArg)
	even := &ir.Binary{Op: ir.Eq, X: &ir.Binary{Op: ir.Rem, X: i, Y: ir.LitInt(ir.TU32, 2), T: ir.TU32}, Y: ir.LitInt(ir.TU32, 0), T: ir.TBool}
	mask := &ir.Call{Op: ir.OpSelect, Args: []ir.Expr{even, ir.LitInt(ir.TU32, 0xff), ir.LitInt(ir.TU32, 0)}, T: ir.TU32}
	half := ir.LitFloat(ir.TF32, 0.5)
	hit := &ir.Call{Op: ir.OpRayClosest, T: ir.RayHit, Args: []ir.Expr{&ir.Ref{Var: scene},
		&ir.Construct{T: v3, Args: []ir.Expr{half, half, ir.LitFloat(ir.TF32, -1)}}, ir.LitFloat(ir.TF32, 0),
		&ir.Construct{T: v3, Args: []ir.Expr{ir.LitFloat(ir.TF32, 0), ir.LitFloat(ir.TF32, 0), ir.LitFloat(ir.TF32, 1)}}, ir.LitFloat(ir.TF32, 100), mask}}
	kind := f.AddLocal("kind", ir.TU32)
	val := add(add(fsum, &ir.Cast{X: &ir.Ref{Var: s}, T: ir.TF32}), mul(&ir.Cast{X: &ir.Ref{Var: kind}, T: ir.TF32}, ir.LitFloat(ir.TF32, 1000)))
	neg := &ir.Unary{Op: ir.Neg, X: val, T: ir.TF32}
	f.Body.Stmts = []ir.Stmt{
		&ir.Assign{Dst: &ir.Ref{Var: kind}, Src: &ir.Member{X: hit, Field: 4, T: ir.TU32}},
		&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: out}, I: i, T: ir.TF32},
			Src: &ir.Call{Op: ir.OpSelect, Args: []ir.Expr{&ir.Ref{Var: flip}, neg, val}, T: ir.TF32}},
		&ir.If{Cond: &ir.Binary{Op: ir.Eq, X: i, Y: ir.LitInt(ir.TU32, 0), T: ir.TBool}, Then: &ir.Block{Stmts: []ir.Stmt{
			&ir.Print{Format: "last=%v s=%d kind=%d", Args: []ir.Expr{&ir.Ref{Var: last}, &ir.Ref{Var: s}, &ir.Ref{Var: kind}}},
		}}},
	}
	return f
}

// TestSpillWithPrintAccelChecked: kernels whose arguments pass the push
// budget while they also print, trace an accel and (compiled checked) keep
// the print ring, run as their arguments say, plain and checked; with one
// buffer by address the accel stays in the push constants and the vec4s
// spill, with six the last buffer and the accel spill too. The checked
// kernel still reports an index out of range of a buffer by address,
// spilled or not, with its length.
func TestSpillWithPrintAccelChecked(t *testing.T) {
	d, log := openPrinting(t)
	boxes, err := device.NewBufferFrom(d, []accel.AABB{{Min: [3]float32{0, 0, 0}, Max: [3]float32{1, 1, 1}}})
	require.NoError(t, err)
	defer boxes.Close()
	proc, err := accel.NewProcedural(d, boxes.All(), accel.Options{})
	require.NoError(t, err)
	defer proc.Close()
	scene, err := accel.NewAccel(d, accel.Options{})
	require.NoError(t, err)
	defer scene.Close()
	_, err = scene.Add(accel.Instance{Primitive: proc, Mask: 0xff, Opaque: true, ID: 3})
	require.NoError(t, err)
	run(t, d, proc.Build(), scene.Build())

	const n, nVec = 100, 8
	for _, nBig := range []int{1, 6} {
		f := spillKernel(nBig, nVec)
		require.NoError(t, f.Validate(), "the kernel language has no push-constant budget")
		bigs := make([]*device.Buffer[uint32], nBig)
		data := make([][]uint32, nBig)
		for j := range bigs {
			data[j] = make([]uint32, n)
			for e := range data[j] {
				data[j][e] = uint32(e*(j+3)+j) % 89
			}
			bigs[j] = upload(t, d, data[j])
		}
		out := upload(t, d, make([]float32, n))
		args := func(r int, last device.BufferView[uint32]) []any {
			a := []any{out}
			for j := range bigs {
				a = append(a, bigs[j].All())
			}
			a[len(a)-1] = last
			a = append(a, scene)
			for k := range nVec {
				a = append(a, [4]float32{float32(k + r), float32(10 * k), float32(100*k + r), float32(1000 * k)})
			}
			return append(a, uint32(7+r), r%2 == 1)
		}
		want := func(r, e int) float32 {
			v := float32(0)
			for j := range nBig {
				v += float32(uint32(j+1) * data[j][e])
			}
			for k := range nVec {
				v += [4]float32{float32(k + r), float32(10 * k), float32(100*k + r), float32(1000 * k)}[k%4]
			}
			v += float32(7 + r)
			if e%2 == 0 {
				v += 2000 // a procedural hit
			}
			if r%2 == 1 {
				v = -v
			}
			return v
		}
		for _, opts := range [][]device.CompileOption{nil, {device.WithChecked()}} {
			what := fmt.Sprintf("%d buffers by address, checked %t", nBig, opts != nil)
			k, err := device.Compile(d, f, opts...)
			require.NoError(t, err, what)
			t.Cleanup(func() { k.Close() })
			for r := range 2 {
				run(t, d, k.Dispatch([3]uint32{n}, args(r, bigs[nBig-1].All())...))
				got := download(t, d, out)
				for e := range n {
					require.Equal(t, want(r, e), got[e], "%s: run %d, element %d", what, r, e)
				}
				prints := log.take()
				require.Len(t, prints, 1, what)
				require.Equal(t, fmt.Sprintf("last={%v %v %v %v} s=%d kind=2", float32(nVec-1+r), float32(10*(nVec-1)), float32(100*(nVec-1)+r), float32(1000*(nVec-1)), 7+r), prints[0].Text, what)
			}
			if opts != nil {
				short := bigs[nBig-1].View(0, n-1)
				err := syncErr(t, d, k.Dispatch([3]uint32{n}, args(0, short)...))
				faultOf(t, err, device.FaultBufferIndex, "", fmt.Sprintf("argument %d (big%d): index %d out of range [0, %d)", nBig, nBig-1, n-1, n-1), fmt.Sprintf("thread [%d 0 0]", n-1))
				log.take() // thread 0 printed before the fault
			}
		}
	}
}
