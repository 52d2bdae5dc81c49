package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

func init() {
	register("demo", "render a ray-marched scene with a kernel written in the Go DSL and write a PNG", runDemo)
}

// runDemo renders the demo scene on the default device (device.Open(ctx, ""):
// Vulkan where it finds an adapter, else the cpu backend; LUCENT_BACKEND
// overrides), band by band so it can show progress, and writes a PNG.
func runDemo(args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	out := fs.String("out", "lucent-demo.png", "PNG file to write")
	width := fs.Int("width", 640, "image width in pixels")
	height := fs.Int("height", 480, "image height in pixels")
	samples := fs.Int("samples", 3, "samples per pixel along each axis (n×n supersampling)")
	bands := fs.Int("bands", 12, "horizontal bands rendered one after another, for progress")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *width <= 0 || *height <= 0:
		return fmt.Errorf("-width %d -height %d: the image needs at least one pixel each way", *width, *height)
	case int64(*width)*int64(*height) > math.MaxUint32:
		// The kernel indexes the pixels with a uint32.
		return fmt.Errorf("-width %d -height %d: %d pixels, more than the %d the kernel indexes", *width, *height, int64(*width)*int64(*height), uint32(math.MaxUint32))
	case *samples <= 0 || *samples > 8:
		return fmt.Errorf("-samples %d: want 1 to 8", *samples)
	case *bands <= 0:
		return fmt.Errorf("-bands %d: want at least 1", *bands)
	}
	// The file is opened first, so that a path it cannot write fails before
	// the render, and truncated only once there is an image to write, so
	// that a failed render leaves an earlier one as it was.
	_, statErr := os.Stat(*out)
	file, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		return err
	}
	written := false
	defer func() {
		file.Close()
		if !written && os.IsNotExist(statErr) {
			os.Remove(*out)
		}
	}()
	ctx := context.Background()
	dev, err := device.Open(ctx, "") // the default backend: vulkan, else cpu
	if err != nil {
		return err
	}
	defer dev.Close()
	caps := dev.Capabilities()
	fmt.Printf("backend: %s\ndevice: %s (%s, %s)\n", dev.Backend(), caps.Adapter.Name, caps.Adapter.Type, caps.Adapter.Driver)

	t0 := time.Now()
	f, err := demoKernel()
	if err != nil {
		return err
	}
	trace := time.Since(t0)
	k, err := device.Compile(dev, f, device.WithKernelName("demo"))
	if err != nil {
		return err
	}
	defer k.Close()
	fmt.Printf("kernel: traced in %v, compiled in %v, pipeline in %v\n",
		trace.Round(time.Microsecond), k.CodegenTime.Round(time.Microsecond), k.PipelineTime.Round(time.Millisecond))

	w, h := uint32(*width), uint32(*height)
	pix, err := device.NewBuffer[uint32](dev, int(w)*int(h))
	if err != nil {
		return err
	}
	defer pix.Close()
	s, err := dev.NewStream(device.StreamCompute)
	if err != nil {
		return err
	}
	defer s.Close()
	t1 := time.Now()
	band := (h + uint32(*bands) - 1) / uint32(*bands)
	for y0 := uint32(0); y0 < h; y0 += band {
		rows := min(band, h-y0)
		if err := s.Submit(k.Dispatch([3]uint32{w, rows}, w, h, y0, uint32(*samples), pix)); err != nil {
			return err
		}
		if err := s.Synchronize(ctx); err != nil {
			return err
		}
		fmt.Printf("\rrendering %3d%%", (y0+rows)*100/h)
	}
	data := make([]uint32, int(w)*int(h))
	if err := s.Submit(pix.Download(data)); err != nil {
		return err
	}
	if err := s.Synchronize(ctx); err != nil {
		return err
	}
	render := time.Since(t1)
	fmt.Printf("\rrendered %dx%d at %d×%d samples per pixel in %v\n", w, h, *samples, *samples, render.Round(time.Millisecond))

	img := image.NewRGBA(image.Rect(0, 0, int(w), int(h)))
	for i, p := range data {
		img.SetRGBA(i%int(w), i/int(w), color.RGBA{uint8(p), uint8(p >> 8), uint8(p >> 16), 255})
	}
	written = true
	if err := file.Truncate(0); err != nil {
		return err
	}
	if err := png.Encode(file, img); err != nil {
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	fmt.Printf("wrote %s\n", *out)
	return nil
}

func v3(x, y, z float32) dsl.F32x3 { return dsl.V3(dsl.F(x), dsl.F(y), dsl.F(z)) }

// The scene: three spheres and a torus over a checkered floor, lit by a sun
// with soft shadows, ambient occlusion, sky light and fog.
var (
	sphere = dsl.Callable("sphere", func(k *dsl.K, p, c dsl.F32x3, r dsl.F32) dsl.F32 {
		return p.Sub(c).Length().Sub(r)
	})
	torus = dsl.Callable("torus", func(k *dsl.K, p dsl.F32x3, r1, r2 dsl.F32) dsl.F32 {
		q := dsl.V2(dsl.V2(p.X(), p.Z()).Length().Sub(r1), p.Y())
		return q.Length().Sub(r2)
	})
	// scene returns the distance to the nearest surface.
	scene = dsl.Callable("scene", func(k *dsl.K, p dsl.F32x3) dsl.F32 {
		d := dsl.Min(sphere(k, p, v3(0, 0, 0), dsl.F(1)), sphere(k, p, v3(1.9, -0.35, 0.7), dsl.F(0.65)))
		d = dsl.Min(d, sphere(k, p, v3(-1.8, -0.4, 1.0), dsl.F(0.6)))
		d = dsl.Min(d, torus(k, p.Sub(v3(1.15, -0.85, -1.5)), dsl.F(0.55), dsl.F(0.15)))
		return dsl.Min(d, p.Y().Add(dsl.F(1)))
	})
	// material is the nearest surface's id: 0 floor, 1 big sphere, 2 small
	// spheres, 3 torus.
	material = dsl.Callable("material", func(k *dsl.K, p dsl.F32x3) dsl.U32 {
		m, best := dsl.NewVar(k, dsl.U(0)), dsl.NewVar(k, p.Y().Add(dsl.F(1)))
		pick := func(id uint32, d dsl.F32) {
			k.If(d.Lt(best.Get()), func() { m.Set(dsl.U(id)); best.Set(d) })
		}
		pick(1, sphere(k, p, v3(0, 0, 0), dsl.F(1)))
		pick(2, dsl.Min(sphere(k, p, v3(1.9, -0.35, 0.7), dsl.F(0.65)), sphere(k, p, v3(-1.8, -0.4, 1.0), dsl.F(0.6))))
		pick(3, torus(k, p.Sub(v3(1.15, -0.85, -1.5)), dsl.F(0.55), dsl.F(0.15)))
		return m.Get()
	})
	normal = dsl.Callable("normal", func(k *dsl.K, p dsl.F32x3) dsl.F32x3 {
		const e = 0.0007
		a, b, c, d := v3(e, -e, -e), v3(-e, -e, e), v3(-e, e, -e), v3(e, e, e)
		n := a.Scale(scene(k, p.Add(a))).Add(b.Scale(scene(k, p.Add(b)))).
			Add(c.Scale(scene(k, p.Add(c)))).Add(d.Scale(scene(k, p.Add(d))))
		return n.Normalize()
	})
	// march returns the distance along rd to the first hit, or -1.
	march = dsl.Callable("march", func(k *dsl.K, ro, rd dsl.F32x3) dsl.F32 {
		t := dsl.NewVar(k, dsl.F(0.01))
		hit := dsl.NewVar(k, dsl.F(-1))
		dsl.Range(k, dsl.U(0), dsl.U(160), func(i dsl.U32) {
			tt := t.Get()
			d := scene(k, ro.Add(rd.Scale(tt)))
			k.If(d.Lt(dsl.F(0.0004).Mul(tt)), func() { hit.Set(tt); k.Break() })
			k.If(tt.Gt(dsl.F(40)), k.Break)
			t.Set(tt.Add(d))
		})
		return hit.Get()
	})
	shadow = dsl.Callable("shadow", func(k *dsl.K, ro, rd dsl.F32x3) dsl.F32 {
		res := dsl.NewVar(k, dsl.F(1))
		t := dsl.NewVar(k, dsl.F(0.02))
		dsl.Range(k, dsl.U(0), dsl.U(48), func(i dsl.U32) {
			tt := t.Get()
			h := scene(k, ro.Add(rd.Scale(tt)))
			res.Set(dsl.Min(res.Get(), dsl.F(10).Mul(h).Div(tt)))
			k.If(res.Get().Lt(dsl.F(0.001)).Or(tt.Gt(dsl.F(12))), k.Break)
			t.Set(tt.Add(dsl.Clamp(h, dsl.F(0.01), dsl.F(0.4))))
		})
		return dsl.Saturate(res.Get())
	})
	occlusion = dsl.Callable("occlusion", func(k *dsl.K, p, n dsl.F32x3) dsl.F32 {
		occ := dsl.NewVar(k, dsl.F(0))
		for i := 1; i <= 5; i++ {
			h := float32(i) * 0.06
			d := scene(k, p.Add(n.Scale(dsl.F(h))))
			occ.Set(occ.Get().Add(dsl.F(h).Sub(d).Mul(dsl.F(1 / float32(i)))))
		}
		return dsl.Saturate(dsl.F(1).Sub(dsl.F(2.5).Mul(occ.Get())))
	})
	// shade returns the color seen along the ray.
	shade = dsl.Callable("shade", func(k *dsl.K, ro, rd dsl.F32x3) dsl.F32x3 {
		sky := v3(0.55, 0.7, 0.95).Sub(v3(0.3, 0.25, 0.1).Scale(dsl.Max(rd.Y(), dsl.F(0))))
		col := dsl.NewVar(k, sky)
		t := march(k, ro, rd)
		k.If(t.Gt(dsl.F(0)), func() {
			p := ro.Add(rd.Scale(t))
			n := normal(k, p)
			albedo := dsl.NewVar(k, v3(0.85, 0.2, 0.15))
			k.Switch(material(k, p)).
				Case(func() {
					c := dsl.Convert[int32](dsl.Floor(p.X().Mul(dsl.F(1.5)))).Add(dsl.Convert[int32](dsl.Floor(p.Z().Mul(dsl.F(1.5)))))
					albedo.Set(dsl.Select(c.And(dsl.I(1)).Eq(dsl.I(0)), v3(0.85, 0.85, 0.8), v3(0.25, 0.3, 0.35)))
				}, 0).
				Case(func() { albedo.Set(v3(0.2, 0.45, 0.9)) }, 1).
				Case(func() { albedo.Set(v3(0.95, 0.8, 0.25)) }, 3)
			sun := v3(-0.5, 0.75, -0.45).Normalize()
			dif := dsl.Saturate(n.Dot(sun)).Mul(shadow(k, p.Add(n.Scale(dsl.F(0.002))), sun))
			ao := occlusion(k, p, n)
			amb := dsl.F(0.5).Add(dsl.F(0.5).Mul(n.Y())).Mul(ao)
			hv := sun.Sub(rd).Normalize()
			spe := dsl.Pow(dsl.Saturate(n.Dot(hv)), dsl.F(48)).Mul(dif)
			light := v3(1.3, 1.15, 0.95).Scale(dif).Add(v3(0.3, 0.38, 0.5).Scale(amb))
			c := albedo.Get().Mul(light).Add(v3(1, 0.95, 0.85).Scale(spe.Mul(dsl.F(0.6))))
			fog := dsl.Exp(dsl.F(-0.0002).Mul(t).Mul(t).Mul(t))
			col.Set(dsl.Lerp(sky, c, dsl.Splat3(fog)))
		})
		return col.Get()
	})
)

// demoKernel renders rows [y0, y0+rows) of a w×h image into pix (RGBA8
// packed in a uint32), averaging n×n samples per pixel.
func demoKernel() (*ir.Function, error) {
	return dsl.Kernel2D(8, 8, func(k *dsl.K, w, h, y0, n dsl.U32, pix dsl.Buf[dsl.U32]) {
		x, y := k.DispatchID().X(), k.DispatchID().Y().Add(y0)
		fw, fh, fn := dsl.Convert[float32](w), dsl.Convert[float32](h), dsl.Convert[float32](n)
		ro := v3(0.4, 0.9, -4.6)
		ta := v3(0, -0.2, 0.6)
		fwd := ta.Sub(ro).Normalize()
		right := fwd.Cross(v3(0, 1, 0)).Normalize().Neg()
		up := right.Cross(fwd).Neg()
		sum := dsl.NewVar(k, v3(0, 0, 0))
		dsl.Range(k, dsl.U(0), n.Mul(n), func(s dsl.U32) {
			sx := dsl.Convert[float32](s.Rem(n)).Add(dsl.F(0.5)).Div(fn)
			sy := dsl.Convert[float32](s.Div(n)).Add(dsl.F(0.5)).Div(fn)
			u := dsl.F(2).Mul(dsl.Convert[float32](x).Add(sx)).Sub(fw).Div(fh)
			v := fh.Sub(dsl.F(2).Mul(dsl.Convert[float32](y).Add(sy))).Div(fh)
			rd := right.Scale(u).Add(up.Scale(v)).Add(fwd.Scale(dsl.F(1.8))).Normalize()
			sum.Set(sum.Get().Add(shade(k, ro, rd)))
		})
		c := sum.Get().Scale(dsl.F(1).Div(fn.Mul(fn)))
		c = dsl.Pow(dsl.Max(c, v3(0, 0, 0)), v3(1/2.2, 1/2.2, 1/2.2))
		c = dsl.Saturate(c).Scale(dsl.F(255)).Add(v3(0.5, 0.5, 0.5))
		r, g, b := dsl.Convert[uint32](c.X()), dsl.Convert[uint32](c.Y()), dsl.Convert[uint32](c.Z())
		pix.Write(y.Mul(w).Add(x), r.Or(g.Shl(dsl.U(8))).Or(b.Shl(dsl.U(16))).Or(dsl.U(0xff000000)))
	})
}
