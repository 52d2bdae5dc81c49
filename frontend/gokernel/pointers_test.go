package gokernel_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/kernel"
	kernels "github.com/lucent-gpu/lucent/testdata/gokernel"
)

// Pointers into buffers, views from sub-slices and run-time indexed vector
// components (testdata/gokernel/pointers.go): each kernel runs on the
// Vulkan device and on the cpu backend, equal to the CPU runner.

func motesInput(n int) []kernels.Mote {
	r := rand.New(rand.NewPCG(15, 3))
	ms := make([]kernels.Mote, n)
	for i := range ms {
		ms[i] = kernels.Mote{Pos: kernel.F3(r.Float32(), r.Float32()*2-1.5, r.Float32()),
			Vel: kernel.F3(r.Float32()-0.5, r.Float32()*4-2, 0), Life: 1 + r.Float32()}
	}
	return ms
}

// stackProgs returns n postfix programs of 8 ops each.
func stackProgs(n int) []uint32 {
	r := rand.New(rand.NewPCG(15, 4))
	progs := make([]uint32, 0, 8*n)
	for range n {
		// d d op d op d d op: always well-formed.
		d := func() uint32 { return uint32(r.IntN(10)) }
		o := func() uint32 { return 10 + uint32(r.IntN(2)) }
		progs = append(progs, d(), d(), o(), d(), o(), d(), d(), o())
		// The last op leaves two values: fold them.
		progs[len(progs)-1] = o()
	}
	return progs
}

func TestCPUPointers(t *testing.T) {
	ms := motesInput(5)
	ages := make([]float32, len(ms))
	want := append([]kernels.Mote(nil), ms...)
	run(t, kernel.Grid1(64, uint32(len(ms))), func() { kernels.PointerStep(0.1, ms, ages) })
	for i := range want {
		m := &want[i]
		m.Vel.Y -= 9.8 * 0.1
		m.Pos = m.Pos.Add(m.Vel.Scale(0.1))
		for _, floor := range []float32{0, -1} {
			if m.Pos.Y < floor {
				m.Pos.Y, m.Vel.Y = floor, -m.Vel.Y
				m.Hits++
			}
		}
		m.Life -= 0.1
		require.Equal(t, *m, ms[i], "mote %d", i)
		require.Equal(t, m.Life, ages[i])
	}
	out := make([]uint32, 1)
	run(t, kernel.Grid1(64, 1), func() { kernels.StackEval([]uint32{2, 3, 10, 4, 11, 1, 1, 10}, out) })
	// 2 3 + 4 * 1 1 + leaves 20, 2 on the stack: the top is 2.
	require.Equal(t, []uint32{2}, out)

	x := []float32{1, 2, 3, 4, 5, 6}
	wout := make([]float32, 3)
	run(t, kernel.Grid1(64, 3), func() { kernels.Windows(x, wout, 3) })
	// Thread 1: window 2 3 4, inner 3, 100*1 + 1000*3 + 0, doubled.
	require.Equal(t, float32(2*(9+100+3000)), wout[1])
	require.Equal(t, float32(2*(6+100+2000))+21+6, wout[0])

	vs := []kernel.Float3{{X: 1, Y: -5, Z: 2}, {X: 0, Y: 1, Z: -3}, {X: 4, Y: 0, Z: 0}}
	vout, axes := make([]kernel.Float3, 3), make([]uint32, 3)
	run(t, kernel.Grid1(64, 3), func() { kernels.Axes(vs, vout, axes) })
	require.Equal(t, []uint32{1, 2, 0}, axes)
	require.Equal(t, []kernel.Float3{{X: 1, Y: 1, Z: 2}, {X: 1, Y: 1, Z: 0}, {X: 0, Y: 0, Z: 1}}, vout)
	require.Equal(t, []kernel.Float3{{X: 1, Y: 7, Z: 2}, {X: 0, Y: 1, Z: 7}, {X: 7, Y: 0, Z: 0}}, vs)
}

func TestDevicePointers(t *testing.T) {
	ks := corpus(t)
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			d := openBackend(t, backend)
			t.Run("PointerStep", func(t *testing.T) {
				g := compileOn(t, d, ks["PointerStep"])
				ms := motesInput(300)
				mb, ab := upload(g, ms), upload(g, make([]float32, len(ms)))
				g.submit(g.k.Dispatch([3]uint32{uint32(len(ms))}, float32(0.1), mb, ab))
				ages := make([]float32, len(ms))
				cpu(t, kernel.Grid1(64, uint32(len(ms))), func() { kernels.PointerStep(0.1, ms, ages) })
				got := download(g, mb)
				for i := range ms {
					require.Equal(t, ms[i].Hits, got[i].Hits, "mote %d", i)
					require.InDelta(t, ms[i].Pos.Y, got[i].Pos.Y, 1e-5, "mote %d", i)
					require.InDelta(t, ms[i].Vel.Y, got[i].Vel.Y, 1e-5, "mote %d", i)
					require.InDelta(t, ms[i].Pos.X, got[i].Pos.X, 1e-5, "mote %d", i)
					require.InDelta(t, ms[i].Life, got[i].Life, 1e-6, "mote %d", i)
				}
				requireClose(t, ages, download(g, ab), 1e-6)
			})
			t.Run("StackEval", func(t *testing.T) {
				g := compileOn(t, d, ks["StackEval"])
				const n = 200
				progs := stackProgs(n)
				ob := upload(g, make([]uint32, n))
				g.submit(g.k.Dispatch([3]uint32{n}, upload(g, progs), ob))
				want := make([]uint32, n)
				cpu(t, kernel.Grid1(64, n), func() { kernels.StackEval(progs, want) })
				require.Equal(t, want, download(g, ob))
			})
			t.Run("Windows", func(t *testing.T) {
				g := compileOn(t, d, ks["Windows"])
				const n, w = 150, 5
				x := randFloats(rand.New(rand.NewPCG(15, 5)), n+w, -1, 1)
				ob := upload(g, make([]float32, n))
				g.submit(g.k.Dispatch([3]uint32{n}, upload(g, x), ob, uint32(w)))
				want := make([]float32, n)
				cpu(t, kernel.Grid1(64, n), func() { kernels.Windows(x, want, w) })
				requireClose(t, want, download(g, ob), 1e-4)
			})
			t.Run("Axes", func(t *testing.T) {
				g := compileOn(t, d, ks["Axes"])
				const n = 200
				r := rand.New(rand.NewPCG(15, 6))
				vs := make([]kernel.Float3, n)
				for i := range vs {
					vs[i] = kernel.F3(r.Float32()*2-1, r.Float32()*2-1, r.Float32()*2-1)
				}
				vb, ob, ab := upload(g, vs), upload(g, make([]kernel.Float3, n)), upload(g, make([]uint32, n))
				g.submit(g.k.Dispatch([3]uint32{n}, vb, ob, ab))
				out, axes := make([]kernel.Float3, n), make([]uint32, n)
				cpu(t, kernel.Grid1(64, n), func() { kernels.Axes(vs, out, axes) })
				require.Equal(t, axes, download(g, ab))
				require.Equal(t, out, download(g, ob))
				require.Equal(t, vs, download(g, vb))
			})
		})
	}
}

// TestPointerForms: the other places a pointer local may be bound to (a
// local's field and component, an element of a local array, shared memory,
// another pointer), a pointer-receiver method through it, an atomic through
// it, and a view ranged over in the kernel, on both backends.
func TestPointerForms(t *testing.T) {
	src := `package p

import "github.com/lucent-gpu/lucent/kernel"

type acc struct{ n, m uint32 }

func (a *acc) add(k uint32) { a.n += k; a.m++ }

//lucent:kernel block=4
func K(x []uint32, out []uint32) {
	i := kernel.DispatchID().X
	sh := kernel.Shared[[4]uint32]()
	s := sh
	e := &s[i]
	*e = i + 1
	kernel.Barrier()
	var a acc
	pa := &a
	pa.add(sh[(i+1)%4])
	pn := &a.n
	*pn *= 10
	v := kernel.U3(1, 2, 3)
	py := &v.Y
	*py = 7
	var arr [3]uint32
	pe := &arr
	pe[i%3] = 5
	for _, w := range pe {
		a.m += w
	}
	c := &out[4]
	kernel.AtomicAdd(c, 1)
	sum := uint32(0)
	for _, w := range x[i : i+2] {
		sum += w
	}
	out[i] = a.n + a.m*1000 + v.Y*100000 + sum*1000000
}
`
	ks, errs := gokernel.Check("p.go", []byte(src))
	require.Empty(t, errs)
	x := []uint32{1, 2, 3, 4, 5}
	want := make([]uint32, 5)
	for i := range uint32(4) {
		n := ((i+1)%4 + 1) * 10
		m := uint32(1 + 5)
		want[i] = n + m*1000 + 7*100000 + (x[i]+x[i+1])*1000000
	}
	want[4] = 4
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			g := compileOn(t, openBackend(t, backend), ks[0])
			ob := upload(g, make([]uint32, 5))
			g.submit(g.k.Dispatch([3]uint32{4}, upload(g, x), ob))
			require.Equal(t, want, download(g, ob))
		})
	}
}

// TestClampedBounds: without the checked mode a view's bounds past its
// buffer, or lo past hi, are clamped (hi to len(x), lo to hi: an empty
// view at hi), and a run-time component index past the vector (a negative
// one included: the index is taken as unsigned) reads the last component,
// the same on the Vulkan device and the cpu backend.
func TestClampedBounds(t *testing.T) {
	src := `package p

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=8
func K(x []uint32, lo, hi []uint32, axes []int32, out []uint32, comp []float32) {
	i := kernel.DispatchID().X
	v := x[lo[i]:hi[i]]
	s := uint32(0)
	for _, w := range v {
		s += w
	}
	out[i] = uint32(len(v))*1000 + s
	if len(v) > 0 {
		out[i] += v[0] * 100000
	}
	f := kernel.F3(10, 20, 30)
	comp[i] = f.At(int(axes[i]))
}
`
	ks, errs := gokernel.Check("p.go", []byte(src))
	require.Empty(t, errs)
	x := []uint32{1, 2, 3, 4, 5, 6}
	lo := []uint32{1, 4, 5, 9, 0, 2, 7, 3}
	hi := []uint32{3, 2, 9, 9, 6, 2, 1, 100}
	axes := []int32{0, 1, 2, 3, -1, 7, 1 << 30, -1 << 31}
	// The view is [min(lo, h), h) with h = min(hi, 6).
	var want []uint32
	for i := range lo {
		h := min(hi[i], 6)
		l := min(lo[i], h)
		s := uint32(0)
		for _, w := range x[l:h] {
			s += w
		}
		w := (h-l)*1000 + s
		if h > l {
			w += x[l] * 100000
		}
		want = append(want, w)
	}
	wantComp := []float32{10, 20, 30, 30, 30, 30, 30, 30}
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			g := compileOn(t, openBackend(t, backend), ks[0])
			ob, cb := upload(g, make([]uint32, 8)), upload(g, make([]float32, 8))
			g.submit(g.k.Dispatch([3]uint32{8}, upload(g, x), upload(g, lo), upload(g, hi), upload(g, axes), ob, cb))
			require.Equal(t, want, download(g, ob))
			require.Equal(t, wantComp, download(g, cb))
		})
	}
}

// TestPointerToPartOfLocal: a helper or a pointer-receiver method given a
// field or an element of a local (&b.V, &a[j], b.W[j].bump(), a pointer
// local bound to a field) changes that place, on both backends; SPIR-V
// passes only whole variables to a function, so codegen passes a copy and
// stores it back after the call.
func TestPointerToPartOfLocal(t *testing.T) {
	src := `package p

import "github.com/lucent-gpu/lucent/kernel"

type v2 struct{ X, Y int32 }

func (v *v2) bump() { v.X += 10 }

func inc(p *int32) { *p++ }

type box struct {
	A [3]int32
	V v2
	W [2]v2
}

//lucent:kernel block=4
func K(out []int32) {
	i := kernel.DispatchID().X
	var b box
	inc(&b.V.Y)
	inc(&b.A[i%3])
	b.W[i%2].bump()
	b.V.bump()
	p := &b.W[1]
	p.bump()
	var a [4]int32
	inc(&a[i])
	out[i] = b.V.X + b.V.Y*100 + b.A[i%3]*1000 + b.W[0].X*10000 + b.W[1].X*100000 + a[i]*10000000
}
`
	ks, errs := gokernel.Check("p.go", []byte(src))
	require.Empty(t, errs)
	want := make([]int32, 4)
	for i := range 4 {
		w0, w1 := int32(0), int32(10)
		if i%2 == 0 {
			w0 += 10
		} else {
			w1 += 10
		}
		want[i] = 10 + 100 + 1000 + w0*10000 + w1*100000 + 10000000
	}
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			g := compileOn(t, openBackend(t, backend), ks[0])
			ob := upload(g, make([]int32, 4))
			g.submit(g.k.Dispatch([3]uint32{4}, ob))
			require.Equal(t, want, download(g, ob))
		})
	}
}

// TestPointerArgumentTakenOnce: a pointer argument to an element (&x[k],
// &m[next(&j)]) is the element its index named at the call, as Go takes the
// address there, even where the helper changes the index (setIdx(&x[k], &k))
// or the index calls a helper; on both backends.
func TestPointerArgumentTakenOnce(t *testing.T) {
	src := `package p

import "github.com/lucent-gpu/lucent/kernel"

func setIdx(a *int32, k *uint32) { *a = 7; *k = 3 }

func next(k *uint32) uint32 { *k++; return *k }

func add(a *int32, v int32) { *a += v }

//lucent:kernel block=4
func K(out []int32) {
	i := kernel.DispatchID().X
	var m [4]int32
	k := uint32(1)
	setIdx(&m[k], &k)
	j := uint32(0)
	add(&m[next(&j)%4], 5)
	o := i * 8
	b := o + 1
	setIdx(&out[b+6], &b)
	out[o] = m[0] + m[1]*10 + m[2]*100 + m[3]*1000
	out[o+1] = int32(k*10 + j)
}
`
	ks, errs := gokernel.Check("p.go", []byte(src))
	require.Empty(t, errs)
	want := make([]int32, 32)
	for i := range 4 {
		want[8*i] = (7 + 5) * 10 // m[1] = 7, then m[1] += 5
		want[8*i+1] = 3*10 + 1
		want[8*i+7] = 7
	}
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			g := compileOn(t, openBackend(t, backend), ks[0])
			ob := upload(g, make([]int32, 32))
			g.submit(g.k.Dispatch([3]uint32{4}, ob))
			require.Equal(t, want, download(g, ob))
		})
	}
}
