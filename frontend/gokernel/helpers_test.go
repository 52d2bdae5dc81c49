package gokernel_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/kernel"
	kernels "github.com/lucent-gpu/lucent/testdata/gokernel"
)

// Helpers that take resources (testdata/gokernel/helpers.go): each runs on
// the CPU runner against plain Go, and on the Vulkan device and the cpu
// backend against the CPU runner.

func closestHitsInput(n int) ([]kernels.Node, []kernels.Sphere, []kernels.Sphere, []kernels.Ray) {
	r := rand.New(rand.NewPCG(15, 1))
	spheres := func(m int) []kernels.Sphere {
		s := make([]kernels.Sphere, m)
		for i := range s {
			// Sorted along x, so that each node holds an interval.
			s[i] = kernels.Sphere{Center: kernel.F3(float32(i)*0.5-8, r.Float32()*4-2, 5+r.Float32()*5), Radius: 0.3 + r.Float32()*0.5}
		}
		return s
	}
	var nodes []kernels.Node
	for first := uint32(0); first < 32; first += 8 {
		lo, hi := float32(first)*0.5-8-1, float32(first+7)*0.5-8+1
		nodes = append(nodes, kernels.Node{MinX: lo, MaxX: hi, First: first, Count: 8})
	}
	rays := make([]kernels.Ray, n)
	for i := range rays {
		d := kernel.F3(r.Float32()*0.2-0.1, r.Float32()*0.2-0.1, 1).Normalize()
		rays[i] = kernels.Ray{Origin: kernel.F3(r.Float32()*16-8, r.Float32()*2-1, 0), Dir: d}
	}
	return nodes, spheres(32), spheres(20), rays // b is shorter than the nodes cover
}

// closestHitsRef is ClosestHits written out in plain Go.
func closestHitsRef(nodes []kernels.Node, a, b []kernels.Sphere, rays []kernels.Ray) []kernels.Hit {
	closest := func(spheres []kernels.Sphere, r kernels.Ray) kernels.Hit {
		best := kernels.Hit{T: 1e30, Index: math.MaxUint32}
		x0, x1 := r.Origin.X, r.Origin.X+r.Dir.X*100
		for _, nd := range nodes {
			if nd.MaxX < min(x0, x1) || nd.MinX > max(x0, x1) {
				continue
			}
			for j := nd.First; j < nd.First+nd.Count && j < uint32(len(spheres)); j++ {
				s := spheres[j]
				oc := r.Origin.Sub(s.Center)
				bb := oc.Dot(r.Dir)
				disc := bb*bb - (oc.Dot(oc) - s.Radius*s.Radius)
				if disc >= 0 {
					if t := -bb - float32(math.Sqrt(float64(disc))); t > 0 && t < best.T {
						best = kernels.Hit{T: t, Index: j}
					}
				}
			}
		}
		return best
	}
	n := len(rays)
	out := make([]kernels.Hit, 2*n+1)
	for i, r := range rays {
		out[i], out[n+i] = closest(a, r), closest(b, r)
	}
	for _, h := range out[:2*n] {
		if h.Index != math.MaxUint32 {
			out[2*n].Index++
		}
	}
	return out
}

func requireHitsClose(t *testing.T, want, got []kernels.Hit) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i].Index, got[i].Index, "hit %d", i)
		require.InDelta(t, want[i].T, got[i].T, 1e-3, "hit %d", i)
	}
}

func texLifeInput(t *testing.T, w, h uint32) kernel.Texture2D[kernel.Float4] {
	src, err := kernel.NewTexture2D[kernel.Float4](w, h)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(7, 7))
	for i := range src.Texels() {
		src.Texels()[i] = kernel.Float4{X: float32(r.IntN(2)), W: 1}
	}
	return src
}

func texLifeRef(src kernel.Texture2D[kernel.Float4]) []kernel.Float4 {
	size := src.Size()
	w, h := int(size.X), int(size.Y)
	at := func(x, y int) float32 { return src.Texels()[min(max(y, 0), h-1)*w+min(max(x, 0), w-1)].X }
	out := make([]kernel.Float4, w*h)
	for y := range h {
		for x := range w {
			n := float32(0)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if dx != 0 || dy != 0 {
						n += at(x+dx, y+dy)
					}
				}
			}
			v := float32(0)
			if n == 3 || n == 2 && at(x, y) == 1 {
				v = 1
			}
			out[y*w+x] = kernel.Float4{X: v, W: 1}
		}
	}
	return out
}

func bindlessLoadInput() [][]float32 {
	return [][]float32{{1, 2, 3, 4, 5, 6, 7}, {10, 20, 30}, {100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}}
}

func TestCPUHelpersTakeResources(t *testing.T) {
	t.Run("ClosestHits", func(t *testing.T) {
		nodes, a, b, rays := closestHitsInput(150)
		out := make([]kernels.Hit, 2*len(rays)+1)
		run(t, kernel.Grid1(64, uint32(len(rays))), func() { kernels.ClosestHits(nodes, a, b, rays, out) })
		want := closestHitsRef(nodes, a, b, rays)
		requireHitsClose(t, want, out)
		require.NotZero(t, want[2*len(rays)].Index, "some rays hit")
	})
	t.Run("TextureLife", func(t *testing.T) {
		const w, h = 13, 9
		src := texLifeInput(t, w, h)
		dst, err := kernel.NewTexture2D[kernel.Float4](w, h)
		require.NoError(t, err)
		run(t, kernel.Grid2(8, 8, w, h), func() { kernels.TextureLife(src, dst) })
		require.Equal(t, texLifeRef(src), dst.Texels())
	})
	t.Run("BindlessLoad", func(t *testing.T) {
		slots := bindlessLoadInput()
		arr := kernel.NewBindless(len(slots))
		for i, s := range slots {
			require.NoError(t, kernel.SetBindlessBuffer(arr, i, s))
		}
		out := make([]float32, 12)
		run(t, kernel.Grid1(64, 12), func() { kernels.BindlessLoad(arr, uint32(len(slots)), out) })
		for i := range out {
			want := float32(0)
			for s, buf := range slots {
				if i < len(buf) {
					want += buf[i] * float32(s+1)
				}
			}
			require.Equal(t, want, out[i], "out[%d]", i)
		}
	})
}

// openBackend opens backend's default device with the validation layer on.
func openBackend(t *testing.T, backend string) *device.Device {
	t.Helper()
	d, err := device.Open(context.Background(), backend,
		device.WithValidationLayer(true),
		device.WithDebug(func(m device.DebugMessage) {
			if m.Severity == device.SeverityError {
				t.Errorf("validation: %s: %s", m.ID, m.Text)
			}
		}))
	testenv.Need(t, backend+" device", err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d
}

func TestDeviceHelpersTakeResources(t *testing.T) {
	ks := corpus(t)
	// The helpers became one clone per kernel argument tuple.
	var names []string
	for _, g := range ks["ClosestHits"].Func.Callees() {
		names = append(names, g.Name)
	}
	sort.Strings(names)
	require.Equal(t, []string{"closestHit<nodes,a>", "closestHit<nodes,b>", "hitSphere<a>", "hitSphere<b>", "record<out>"}, names)

	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			d := openBackend(t, backend)
			t.Run("ClosestHits", func(t *testing.T) {
				g := compileOn(t, d, ks["ClosestHits"])
				nodes, a, b, rays := closestHitsInput(150)
				ob := upload(g, make([]kernels.Hit, 2*len(rays)+1))
				g.submit(g.k.Dispatch([3]uint32{uint32(len(rays))}, upload(g, nodes), upload(g, a), upload(g, b), upload(g, rays), ob))
				want := make([]kernels.Hit, 2*len(rays)+1)
				cpu(t, kernel.Grid1(64, uint32(len(rays))), func() { kernels.ClosestHits(nodes, a, b, rays, want) })
				requireHitsClose(t, want, download(g, ob))

				// Views: the helpers see a sub-range of a and its length.
				ab := upload(g, a)
				ob2 := upload(g, make([]kernels.Hit, 2*len(rays)+1))
				g.submit(g.k.Dispatch([3]uint32{uint32(len(rays))}, upload(g, nodes), ab.View(4, 12), upload(g, b), upload(g, rays), ob2))
				clear(want)
				cpu(t, kernel.Grid1(64, uint32(len(rays))), func() { kernels.ClosestHits(nodes, a[4:16], b, rays, want) })
				requireHitsClose(t, want, download(g, ob2))
			})
			t.Run("TextureLife", func(t *testing.T) {
				g := compileOn(t, d, ks["TextureLife"])
				const w, h = 13, 9
				src := texLifeInput(t, w, h)
				si, err := device.NewImage[kernel.Float4](d, device.RGBA32Float, w, h, 1)
				require.NoError(t, err)
				defer si.Close()
				di, err := device.NewImage[kernel.Float4](d, device.RGBA32Float, w, h, 1)
				require.NoError(t, err)
				defer di.Close()
				got := make([]kernel.Float4, w*h)
				g.submit(si.Upload(src.Texels()), g.k.Dispatch([3]uint32{w, h}, si, di), di.Download(got))
				dst, err := kernel.NewTexture2D[kernel.Float4](w, h)
				require.NoError(t, err)
				cpu(t, kernel.Grid2(8, 8, w, h), func() { kernels.TextureLife(src, dst) })
				require.Equal(t, dst.Texels(), got)
			})
			t.Run("BindlessLoad", func(t *testing.T) {
				g := compileOn(t, d, ks["BindlessLoad"])
				slots := bindlessLoadInput()
				arr, err := d.NewBindlessArray(len(slots))
				require.NoError(t, err)
				defer arr.Close()
				cpuArr := kernel.NewBindless(len(slots))
				for i, s := range slots {
					require.NoError(t, arr.EmplaceBuffer(i, upload(g, s)))
					require.NoError(t, kernel.SetBindlessBuffer(cpuArr, i, s))
				}
				ob := upload(g, make([]float32, 12))
				g.submit(arr.Update(), g.k.Dispatch([3]uint32{12}, arr, uint32(len(slots)), ob))
				want := make([]float32, 12)
				cpu(t, kernel.Grid1(64, 12), func() { kernels.BindlessLoad(cpuArr, uint32(len(slots)), want) })
				require.Equal(t, want, download(g, ob))
			})
		})
	}
}

// TestHelperResourceForms: a method, a helper with several results and a
// generic helper (two instantiations) take buffers; compiled from one file
// (Check), the kernel runs on the interpreter and on each backend.
func TestHelperResourceForms(t *testing.T) {
	src := `package p

type acc struct{ n uint32 }

func (a *acc) add(b []float32, i uint32) { a.n += uint32(b[i]) }

func minMax(b []float32, n uint32) (lo, hi float32) {
	lo, hi = b[0], b[0]
	for i := uint32(1); i < n; i++ {
		lo, hi = min(lo, b[i]), max(hi, b[i])
	}
	return
}

func sumOf[T float32 | int32](b []T, n uint32) T {
	var s T
	for i := range n {
		s += b[i]
	}
	return s
}

//lucent:kernel block=64
func K(x []float32, y []int32, out []float32) {
	lo, hi := minMax(x, 4)
	var a acc
	a.add(x, 1)
	out[0] = lo + hi + sumOf(x, 3) + float32(sumOf(y, 2)) + float32(a.n)
}
`
	ks, errs := gokernel.Check("p.go", []byte(src))
	require.Empty(t, errs)
	f := ks[0].Func
	var names []string
	for _, g := range f.Callees() {
		names = append(names, g.Name)
	}
	sort.Strings(names)
	require.Equal(t, []string{"acc.add<x>", "minMax<x>", "sumOf[float32]<x>", "sumOf[int32]<y>"}, names)
	x, y := []float32{3, 1, 4, 1, 5}, []int32{2, 7, 100}
	const want = 1 + 4 + (3 + 1 + 4) + (2 + 7) + 1

	out := interp.NewBuffer(ir.TF32, 1)
	require.NoError(t, interp.Run(f, [3]uint32{1, 1, 1}, ibuf(ir.TF32, x), ibuf(ir.TI32, y), out))
	require.Equal(t, float32(want), math.Float32frombits(binary.LittleEndian.Uint32(out.Data)))
	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			g := compileOn(t, openBackend(t, backend), ks[0])
			ob := upload(g, []float32{0})
			g.submit(g.k.Dispatch([3]uint32{1}, upload(g, x), upload(g, y), ob))
			require.Equal(t, []float32{want}, download(g, ob))
		})
	}
}

func ibuf[T any](elem *ir.Type, data []T) *interp.Buffer {
	var w bytes.Buffer
	if err := binary.Write(&w, binary.LittleEndian, data); err != nil {
		panic(err)
	}
	return &interp.Buffer{Elem: elem, Data: w.Bytes()}
}
