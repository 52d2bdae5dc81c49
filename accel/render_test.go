package accel_test

import (
	"context"
	"flag"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/internal/raytest"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/testdata/gokernel/render"
)

var renderDir = flag.String("render.dir", "", "a directory to write the Cornell box renders of TestRenderCornellBox to as PNGs")

// cornellBox is the scene render.Render traces: two meshes (a unit quad and
// a cube) placed by eight instances: five walls, the ceiling light and
// two boxes, each with its transform, mask and id (the instance's index,
// which indexes the materials); and the world-space normals of every
// instance's triangles, in the materials' order.
func cornellBox() (*raytest.Scene, []render.Material, []float32) {
	quad := []bvh.Triangle{
		{A: [3]float32{-1, 0, -1}, B: [3]float32{1, 0, -1}, C: [3]float32{1, 0, 1}},
		{A: [3]float32{-1, 0, -1}, B: [3]float32{1, 0, 1}, C: [3]float32{-1, 0, 1}},
	}
	var cube []bvh.Triangle
	for k := range 3 {
		for _, s := range []float32{-1, 1} {
			// The face of the cube at coordinate k = s.
			p := func(a, b float32) [3]float32 {
				var v [3]float32
				v[k], v[(k+1)%3], v[(k+2)%3] = s, a, b
				return v
			}
			cube = append(cube, bvh.Triangle{A: p(-1, -1), B: p(1, -1), C: p(1, 1)}, bvh.Triangle{A: p(-1, -1), B: p(1, 1), C: p(-1, 1)})
		}
	}
	box := func(sx, sy, sz, deg, tx, ty, tz float64) [12]float32 {
		c, s := math.Cos(deg*math.Pi/180), math.Sin(deg*math.Pi/180)
		return [12]float32{
			float32(c * sx), 0, float32(s * sz), float32(tx),
			0, float32(sy), 0, float32(ty),
			float32(-s * sx), 0, float32(c * sz), float32(tz),
		}
	}
	white, red, green := [3]float32{0.73, 0.73, 0.73}, [3]float32{0.65, 0.05, 0.05}, [3]float32{0.12, 0.45, 0.15}
	type inst struct {
		mesh      int
		transform [12]float32
		albedo    [3]float32
		emit      float32
	}
	insts := []inst{
		{0, [12]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}, white, 0},  // floor, y = 0
		{0, [12]float32{1, 0, 0, 0, 0, 1, 0, 2, 0, 0, 1, 0}, white, 0},  // ceiling, y = 2
		{0, [12]float32{1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, -1}, white, 0}, // back wall, z = -1
		{0, [12]float32{0, 1, 0, -1, 1, 0, 0, 1, 0, 0, 1, 0}, red, 0},   // left wall, x = -1
		{0, [12]float32{0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0}, green, 0},  // right wall, x = 1
		{1, box(0.3, 0.6, 0.3, 20, -0.35, 0.6, -0.3), white, 0},         // tall box
		{1, box(0.3, 0.3, 0.3, -18, 0.38, 0.3, 0.3), white, 0},          // short box
		{0, [12]float32{render.LightSize / 2, 0, 0, render.LightX + render.LightSize/2, 0, 1, 0, render.LightY, 0, 0, render.LightSize / 2, render.LightZ + render.LightSize/2}, white, render.LightEmit},
	}
	s := &raytest.Scene{Meshes: [][]bvh.Triangle{quad, cube}}
	var mats []render.Material
	var normals []float32
	for i, in := range insts {
		mask := uint8(render.MaskSolid)
		if in.emit > 0 {
			mask = render.MaskLight
		}
		s.Insts = append(s.Insts, raytest.Instance{Prim: in.mesh, Transform: in.transform, Mask: mask, Opaque: true, ID: uint32(i)})
		mats = append(mats, render.Material{R: in.albedo[0], G: in.albedo[1], B: in.albedo[2], Emit: in.emit, First: uint32(len(normals) / 3)})
		m := &in.transform
		world := func(p [3]float32) [3]float64 {
			var w [3]float64
			for r := range 3 {
				w[r] = float64(m[4*r])*float64(p[0]) + float64(m[4*r+1])*float64(p[1]) + float64(m[4*r+2])*float64(p[2]) + float64(m[4*r+3])
			}
			return w
		}
		for _, tr := range s.Meshes[in.mesh] {
			a, b, c := world(tr.A), world(tr.B), world(tr.C)
			e1 := [3]float64{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
			e2 := [3]float64{c[0] - a[0], c[1] - a[1], c[2] - a[2]}
			n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
			l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
			normals = append(normals, float32(n[0]/l), float32(n[1]/l), float32(n[2]/l))
		}
	}
	return s, mats, normals
}

const (
	renderW, renderH       = 128, 128
	renderSPP, renderDepth = 4, 3
)

// renderHost is the Cornell box rendered by kernel.Run over accel/bvh.
func renderHost(t *testing.T, s *raytest.Scene, mats []render.Material, normals []float32) []float32 {
	sc, err := s.BVH()
	require.NoError(t, err)
	acc, err := accel.Host(sc)
	require.NoError(t, err)
	out := make([]float32, 3*renderW*renderH)
	require.NoError(t, kernel.Run(context.Background(), kernel.Grid2(8, 8, renderW, renderH), func() {
		render.Render(acc, mats, normals, renderW, renderH, renderSPP, renderDepth, out)
	}))
	return out
}

// renderDevice is the same kernel compiled for d, over an accel of the
// same instances built on d.
func renderDevice(t *testing.T, d *device.Device, s *raytest.Scene, mats []render.Material, normals []float32) []float32 {
	testenv.NeedGoCommand(t)
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/render")
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	k, err := device.Compile(d, ks[0].Func, device.WithKernelName("Render"))
	require.NoError(t, err)
	closeAll(t, k)
	o, err := s.Make(d, accel.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, o.Close()) })
	st, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	closeAll(t, st)
	mb, nb := from(t, d, mats), from(t, d, normals)
	ob := buffer[float32](t, d, 3*renderW*renderH)
	out := make([]float32, ob.Len())
	cmds := append(o.Build(), k.Dispatch([3]uint32{renderW, renderH}, o.Accel, mb, nb, uint32(renderW), uint32(renderH), uint32(renderSPP), uint32(renderDepth), ob), ob.Download(out))
	require.NoError(t, st.Submit(cmds...))
	require.NoError(t, st.Synchronize(context.Background()))
	return out
}

// display maps linear radiance to [0, 1]: clamped, gamma 2.2.
func display(v float32) float64 { return math.Pow(min(max(float64(v), 0), 1), 1/2.2) }

// psnr is the peak signal-to-noise ratio of b against a in dB, over the
// displayed values (peak 1).
func psnr(a, b []float32) float64 {
	var se float64
	for i := range a {
		d := display(a[i]) - display(b[i])
		se += d * d
	}
	mse := se / float64(len(a))
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(1/mse)
}

// checkImage fails unless img looks like a lit Cornell box: a mean
// luminance and a spread in range, the light's pixels at its emission, the
// left wall red and the right wall green.
func checkImage(t *testing.T, what string, img []float32) {
	t.Helper()
	lum := func(i int) float64 {
		return 0.2126*display(img[3*i]) + 0.7152*display(img[3*i+1]) + 0.0722*display(img[3*i+2])
	}
	n := renderW * renderH
	var sum, sq float64
	for i := range n {
		sum += lum(i)
	}
	mean := sum / float64(n)
	for i := range n {
		sq += (lum(i) - mean) * (lum(i) - mean)
	}
	sd := math.Sqrt(sq / float64(n))
	require.InDelta(t, 0.45, mean, 0.25, "%s: mean displayed luminance", what)
	require.Greater(t, sd, 0.08, "%s: spread of the displayed luminance", what)
	// The light seen from the eye: the pixel at its middle.
	light := 3 * (20*renderW + renderW/2)
	require.Equal(t, float32(render.LightEmit), img[light], "%s: the light's pixel", what)
	px := func(x, y int) []float32 { i := 3 * (y*renderW + x); return img[i : i+3] }
	left, right := px(6, renderH/2), px(renderW-7, renderH/2)
	require.Greater(t, left[0], 2*left[1], "%s: the left wall is red: %v", what, left)
	require.Greater(t, right[1], 2*right[0], "%s: the right wall is green: %v", what, right)
}

func savePNG(t *testing.T, name string, img []float32) {
	if *renderDir == "" {
		return
	}
	m := image.NewNRGBA(image.Rect(0, 0, renderW, renderH))
	for i := range renderW * renderH {
		c := func(v float32) uint8 { return uint8(math.Round(255 * display(v))) }
		m.SetNRGBA(i%renderW, i/renderW, color.NRGBA{c(img[3*i]), c(img[3*i+1]), c(img[3*i+2]), 255})
	}
	path := filepath.Join(*renderDir, name+".png")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, png.Encode(f, m))
	require.NoError(t, f.Close())
	t.Logf("wrote %s", path)
}

// TestRenderCornellBox renders a path-traced Cornell box of instanced
// triangle meshes with the Go-subset kernel render.Render on a device and
// under kernel.Run, and requires the two images to agree by PSNR ≥ 40 dB.
// The device is the Vulkan device (natively on a device with ray queries,
// the software path elsewhere or under LUCENT_ACCEL=software), or the cpu
// backend under LUCENT_TEST_BACKEND=cpu.
func TestRenderCornellBox(t *testing.T) {
	s, mats, normals := cornellBox()
	start := time.Now()
	want := renderHost(t, s, mats, normals)
	t.Logf("kernel.Run: %v", time.Since(start))
	checkImage(t, "kernel.Run", want)
	savePNG(t, "host", want)

	var d *device.Device
	if os.Getenv("LUCENT_TEST_BACKEND") == "cpu" {
		d = openCPU(t, true)
	} else {
		d = nativeDevice(t)
	}
	start = time.Now()
	got := renderDevice(t, d, s, mats, normals)
	t.Logf("%s (ray tracing %v): %v", d.Backend(), d.Capabilities().RayTracing, time.Since(start))
	savePNG(t, d.Backend(), got)
	checkImage(t, d.Backend(), got)
	p := psnr(want, got)
	t.Logf("PSNR %.1f dB", p)
	require.GreaterOrEqual(t, p, 40.0, "PSNR of the %s render against kernel.Run's", d.Backend())
}
