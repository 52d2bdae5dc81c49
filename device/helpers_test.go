package device_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// DSL callables that take resources: each call gets a copy of the callable
// specialised for the kernel arguments it passes (ir.Specialize), on every
// backend.

// closestKernel is a BVH-like search as users write it: a helper that walks
// a node buffer (leaf ranges) over an item buffer, through a nested helper
// that takes the item buffer on. The kernel calls it twice, with two item
// buffers, and a writer helper that stores through a buffer parameter.
func closestKernel(t *testing.T) *ir.Function {
	t.Helper()
	dist := dsl.Callable("dist", func(k *dsl.K, items dsl.Buf[dsl.F32], j dsl.U32, x dsl.F32) dsl.F32 {
		return dsl.Abs(items.Read(j).Sub(x))
	})
	closest := dsl.Callable("closest", func(k *dsl.K, nodes dsl.Buf[dsl.U32], items dsl.Buf[dsl.F32], node dsl.U32, x dsl.F32) dsl.F32 {
		best := dsl.NewVar(k, dsl.F(1e30))
		lo, hi := nodes.Read(node.Mul(dsl.U(2))), nodes.Read(node.Mul(dsl.U(2)).Add(dsl.U(1)))
		dsl.Range(k, lo, dsl.Min(hi, items.Len()), func(j dsl.U32) {
			best.Set(dsl.Min(best.Get(), dist(k, items, j, x)))
		})
		return best.Get()
	})
	store := dsl.Callable("store", func(k *dsl.K, out dsl.Buf[dsl.F32], i dsl.U32, v dsl.F32) {
		out.Write(i, v)
	})
	f, err := dsl.Kernel1D(64, func(k *dsl.K, nodes dsl.Buf[dsl.U32], a, b dsl.Buf[dsl.F32], xs, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		x := xs.Read(i)
		node := i.Rem(dsl.U(4))
		store(k, out, i.Mul(dsl.U(2)), closest(k, nodes, a, node, x))
		store(k, out, i.Mul(dsl.U(2)).Add(dsl.U(1)), closest(k, nodes, b, node, x).Add(closest(k, nodes, a, dsl.U(0), x)))
	}, "nodes", "a", "b", "xs", "out")
	require.NoError(t, err)
	return f
}

func TestHelperTakesBuffers(t *testing.T) {
	f := closestKernel(t)
	// Three clones: closest for (nodes, a) and (nodes, b), dist for a and
	// for b, store for out; none takes a resource.
	var names []string
	for _, g := range f.Callees() {
		require.False(t, g.TakesResources(), g.Name)
		names = append(names, g.Name)
	}
	require.ElementsMatch(t, []string{"dist<a>", "closest<nodes,a>", "dist<b>", "closest<nodes,b>", "store<out>"}, names)

	const n = 200
	r := rand.New(rand.NewPCG(4, 15))
	nodes := []uint32{0, 16, 10, 40, 30, 64, 50, 64}
	a, b, xs := make([]float32, 64), make([]float32, 48), make([]float32, n)
	for i := range a {
		a[i] = r.Float32()*8 - 4
	}
	for i := range b {
		b[i] = r.Float32()*8 - 4
	}
	for i := range xs {
		xs[i] = r.Float32()*8 - 4
	}
	// The oracle: the interpreter runs the same IR.
	ib := func(elem *ir.Type, data any) *interp.Buffer {
		var w bytes.Buffer
		require.NoError(t, binary.Write(&w, binary.LittleEndian, data))
		return &interp.Buffer{Elem: elem, Data: w.Bytes()}
	}
	iout := interp.NewBuffer(ir.TF32, 2*n)
	require.NoError(t, interp.Run(f, [3]uint32{n, 1, 1}, ib(ir.TU32, nodes), ib(ir.TF32, a), ib(ir.TF32, b), ib(ir.TF32, xs), iout))

	d := openDevice(t)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	nb := newBuf(t, d, nodes)
	ab, bb, xb := newBuf(t, d, a), newBuf(t, d, b), newBuf(t, d, xs)
	ob, err := device.NewBuffer[float32](d, 2*n)
	require.NoError(t, err)
	defer ob.Close()
	got := make([]float32, 2*n)
	run(t, d, k.Dispatch([3]uint32{n}, nb, ab, bb, xb, ob), ob.Download(got))
	want := make([]float32, 2*n)
	require.NoError(t, binary.Read(bytes.NewReader(iout.Data), binary.LittleEndian, want))
	require.Equal(t, want, got)
	// Spot-check the oracle against plain Go.
	closest := func(items []float32, node int, x float32) float32 {
		best := float32(1e30)
		for j := int(nodes[2*node]); j < min(int(nodes[2*node+1]), len(items)); j++ {
			d := items[j] - x
			if d < 0 {
				d = -d
			}
			best = min(best, d)
		}
		return best
	}
	for i := range n {
		require.Equal(t, closest(a, i%4, xs[i]), got[2*i], "element %d", 2*i)
		require.Equal(t, closest(b, i%4, xs[i])+closest(a, 0, xs[i]), got[2*i+1], "element %d", 2*i+1)
	}

	// A view: the helper sees the view's elements and length.
	view := ab.View(8, 24)
	run(t, d, k.Dispatch([3]uint32{n}, nb, view, bb, xb, ob), ob.Download(got))
	for i := range n {
		require.Equal(t, closest(a[8:32], i%4, xs[i]), got[2*i], "view: element %d", 2*i)
	}
}

func newBuf[T any](t *testing.T, d *device.Device, data []T) *device.Buffer[T] {
	t.Helper()
	b, err := device.NewBuffer[T](d, len(data))
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	run(t, d, b.Upload(data))
	return b
}

// TestHelperTakesTextures: a texture reader helper (clamped reads, through
// a nested helper), called on an RGBA32F and an RGBA8 texture (the Tex2D of
// a Tex2DRGBA8: the clone takes the argument's format), and a writer helper.
func TestHelperTakesTextures(t *testing.T) {
	at := dsl.Callable("at", func(k *dsl.K, src dsl.Tex2D, x, y dsl.U32) dsl.F32x4 {
		return src.Read(dsl.V2(x, y))
	})
	clamped := dsl.Callable("clamped", func(k *dsl.K, src dsl.Tex2D, x, y dsl.I32) dsl.F32 {
		size := src.Size()
		cx := dsl.Convert[uint32](dsl.Clamp(x, dsl.I(0), dsl.Convert[int32](size.X()).Sub(dsl.I(1))))
		cy := dsl.Convert[uint32](dsl.Clamp(y, dsl.I(0), dsl.Convert[int32](size.Y()).Sub(dsl.I(1))))
		return at(k, src, cx, cy).X()
	})
	put := dsl.Callable("put", func(k *dsl.K, dst dsl.Tex2D, x, y dsl.U32, v dsl.F32) {
		dst.Write(dsl.V2(x, y), dsl.V4(v, dsl.F(0), dsl.F(0), dsl.F(1)))
	})
	f, err := dsl.Kernel2D(8, 8, func(k *dsl.K, a dsl.Tex2D, b dsl.Tex2DRGBA8, dst dsl.Tex2D) {
		id := k.DispatchID()
		x, y := dsl.Convert[int32](id.X()), dsl.Convert[int32](id.Y())
		s := clamped(k, a, x.Sub(dsl.I(1)), y).Add(clamped(k, a, x.Add(dsl.I(1)), y)).Add(clamped(k, b.Tex2D, x, y.Add(dsl.I(1))))
		put(k, dst, id.X(), id.Y(), s)
	}, "a", "b", "dst")
	require.NoError(t, err)
	var names []string
	for _, g := range f.Callees() {
		names = append(names, g.Name)
	}
	require.ElementsMatch(t, []string{"at<a>", "clamped<a>", "at<b>", "clamped<b>", "put<dst>"}, names)

	const w, h = 11, 7
	r := rand.New(rand.NewPCG(2, 9))
	pa, pb := make([][4]float32, w*h), make([][4]uint8, w*h)
	for i := range pa {
		pa[i] = [4]float32{r.Float32(), r.Float32(), 0, 1}
		pb[i] = [4]uint8{uint8(r.IntN(256)), 0, 0, 255}
	}
	d := openDevice(t)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	ia, err := device.NewImage[[4]float32](d, device.RGBA32Float, w, h, 1)
	require.NoError(t, err)
	defer ia.Close()
	ib, err := device.NewImage[[4]uint8](d, device.RGBA8Unorm, w, h, 1)
	require.NoError(t, err)
	defer ib.Close()
	id, err := device.NewImage[[4]float32](d, device.RGBA32Float, w, h, 1)
	require.NoError(t, err)
	defer id.Close()
	got := make([][4]float32, w*h)
	run(t, d, ia.Upload(pa), ib.Upload(pb), k.Dispatch([3]uint32{w, h}, ia, ib, id), id.Download(got))
	for y := range h {
		for x := range w {
			ax := func(x int) float32 { return pa[y*w+min(max(x, 0), w-1)][0] }
			bv := float32(pb[min(y+1, h-1)*w+x][0]) / 255
			want := ax(x-1) + ax(x+1) + bv
			require.InDelta(t, want, got[y*w+x][0], 1e-5, "texel (%d, %d)", x, y)
			require.Equal(t, float32(1), got[y*w+x][3])
		}
	}
}

// TestHelperTakesBindless: a bindless loader helper over two bindless
// arrays.
func TestHelperTakesBindless(t *testing.T) {
	load := dsl.Callable("load", func(k *dsl.K, arr dsl.BindlessArray, slot, i dsl.U32) dsl.F32 {
		v := dsl.NewVar(k, dsl.F(0))
		k.If(i.Lt(dsl.BufferLen[dsl.F32](arr, slot)), func() { v.Set(dsl.ReadBuffer[dsl.F32](arr, slot, i)) })
		return v.Get()
	})
	f, err := dsl.Kernel1D(64, func(k *dsl.K, p, q dsl.BindlessArray, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		out.Write(i, load(k, p, dsl.U(0), i).Add(load(k, p, dsl.U(1), i)).Add(load(k, q, dsl.U(0), i).Mul(dsl.F(100))))
	}, "p", "q", "out")
	require.NoError(t, err)
	require.Len(t, f.Callees(), 2) // load<p>, load<q>

	d := openDevice(t)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	s0, s1, s2 := []float32{1, 2, 3, 4, 5}, []float32{10, 20, 30}, []float32{7, 8, 9, 10, 11, 12, 13, 14}
	p, err := d.NewBindlessArray(2)
	require.NoError(t, err)
	defer p.Close()
	q, err := d.NewBindlessArray(1)
	require.NoError(t, err)
	defer q.Close()
	require.NoError(t, p.EmplaceBuffer(0, newBuf(t, d, s0)))
	require.NoError(t, p.EmplaceBuffer(1, newBuf(t, d, s1)))
	require.NoError(t, q.EmplaceBuffer(0, newBuf(t, d, s2)))
	const n = 10
	ob, err := device.NewBuffer[float32](d, n)
	require.NoError(t, err)
	defer ob.Close()
	got := make([]float32, n)
	run(t, d, p.Update(), q.Update(), k.Dispatch([3]uint32{n}, p, q, ob), ob.Download(got))
	at := func(s []float32, i int) float32 {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	for i := range n {
		require.Equal(t, at(s0, i)+at(s1, i)+at(s2, i)*100, got[i], "element %d", i)
	}
}
