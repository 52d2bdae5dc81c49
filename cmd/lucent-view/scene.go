package main

import (
	"math"

	fe "github.com/lucent-gpu/lucent/frontend"
)

// The live scene: spheres orbiting a pillar over a checkered floor, lit by a
// moving sun with hard shadows and fog. It is cheap enough to march every
// frame on a CPU device (48 steps, one shadow ray), unlike cmd/lucent's demo,
// which super-samples and traces soft shadows and occlusion for a still.

// Camera is where the viewer looks from.
type Camera struct {
	Pos        [3]float32
	Yaw, Pitch float32 // radians; yaw 0 looks along +z
}

// DefaultCamera frames the scene.
var DefaultCamera = Camera{Pos: [3]float32{0, 0.6, -5}, Pitch: -0.08}

// Forward returns the unit view direction.
func (c Camera) Forward() [3]float32 {
	cp, sp := math.Cos(float64(c.Pitch)), math.Sin(float64(c.Pitch))
	cy, sy := math.Cos(float64(c.Yaw)), math.Sin(float64(c.Yaw))
	return [3]float32{float32(sy * cp), float32(sp), float32(cy * cp)}
}

// Move moves the camera forward and sideways (in its own frame, on the floor plane) and up.
func (c *Camera) Move(forward, right, up float32) {
	sy, cy := float32(math.Sin(float64(c.Yaw))), float32(math.Cos(float64(c.Yaw)))
	c.Pos[0] += forward*sy + right*cy
	c.Pos[2] += forward*cy - right*sy
	c.Pos[1] += up
}

// Turn turns the camera, keeping the pitch short of straight up or down.
func (c *Camera) Turn(yaw, pitch float32) {
	c.Yaw += yaw
	c.Pitch = max(-1.5, min(1.5, c.Pitch+pitch))
}

func vec(x, y, z float32) fe.F32x3 { return fe.V3(fe.F(x), fe.F(y), fe.F(z)) }

var (
	// orbit is where sphere i of 3 is at time t.
	orbit = fe.Callable("orbit", func(k *fe.K, t fe.F32, i fe.F32) fe.F32x3 {
		a := t.Mul(fe.F(0.7)).Add(i.Mul(fe.F(2.0944)))
		return fe.V3(fe.Cos(a).Mul(fe.F(1.8)), fe.F(-0.35).Add(fe.Sin(t.Mul(fe.F(1.3)).Add(i)).Mul(fe.F(0.3))), fe.Sin(a).Mul(fe.F(1.8)))
	})
	// dist is the distance to the nearest surface; material gets its id
	// (0 floor, 1 pillar, 2 spheres).
	dist = fe.Callable("dist", func(k *fe.K, p fe.F32x3, t fe.F32) fe.F32x2 {
		floor := p.Y().Add(fe.F(1))
		q := fe.V2(p.X(), p.Z()).Length().Sub(fe.F(0.45))
		pillar := fe.Max(q, fe.Abs(p.Y()).Sub(fe.F(1)))
		best := fe.NewVar(k, fe.V2(floor, fe.F(0)))
		k.If(pillar.Lt(best.Get().X()), func() { best.Set(fe.V2(pillar, fe.F(1))) })
		fe.Range(k, fe.U(0), fe.U(3), func(i fe.U32) {
			c := orbit(k, t, fe.Convert[float32](i))
			s := p.Sub(c).Length().Sub(fe.F(0.5))
			k.If(s.Lt(best.Get().X()), func() { best.Set(fe.V2(s, fe.F(2))) })
		})
		return best.Get()
	})
	march = fe.Callable("march", func(k *fe.K, ro, rd fe.F32x3, t fe.F32) fe.F32x2 {
		d := fe.NewVar(k, fe.F(0.02))
		hit := fe.NewVar(k, fe.V2(fe.F(-1), fe.F(-1)))
		fe.Range(k, fe.U(0), fe.U(48), func(i fe.U32) {
			dd := d.Get()
			s := dist(k, ro.Add(rd.Scale(dd)), t)
			k.If(s.X().Lt(fe.F(0.001).Mul(dd)), func() { hit.Set(fe.V2(dd, s.Y())); k.Break() })
			k.If(dd.Gt(fe.F(30)), k.Break)
			d.Set(dd.Add(s.X()))
		})
		return hit.Get()
	})
	normal = fe.Callable("normal", func(k *fe.K, p fe.F32x3, t fe.F32) fe.F32x3 {
		const e = 0.001
		a, b, c, d := vec(e, -e, -e), vec(-e, -e, e), vec(-e, e, -e), vec(e, e, e)
		n := a.Scale(dist(k, p.Add(a), t).X()).Add(b.Scale(dist(k, p.Add(b), t).X())).
			Add(c.Scale(dist(k, p.Add(c), t).X())).Add(d.Scale(dist(k, p.Add(d), t).X()))
		return n.Normalize()
	})
)

// sceneKernel renders one frame into img: (time, camera position, yaw, pitch, img).
func sceneKernel() (*fe.Function, error) {
	return fe.Kernel2D(8, 8, func(k *fe.K, t, cx, cy, cz, yaw, pitch fe.F32, img fe.Tex2DRGBA8) {
		id := k.DispatchID()
		size := img.Size()
		k.If(id.X().Ge(size.X()).Or(id.Y().Ge(size.Y())), k.Return)
		fw, fh := fe.Convert[float32](size.X()), fe.Convert[float32](size.Y())
		u := fe.F(2).Mul(fe.Convert[float32](id.X()).Add(fe.F(0.5))).Sub(fw).Div(fh)
		v := fh.Sub(fe.F(2).Mul(fe.Convert[float32](id.Y()).Add(fe.F(0.5)))).Div(fh)
		ro := fe.V3(cx, cy, cz)
		fwd := fe.V3(fe.Sin(yaw).Mul(fe.Cos(pitch)), fe.Sin(pitch), fe.Cos(yaw).Mul(fe.Cos(pitch)))
		right := vec(0, 1, 0).Cross(fwd).Normalize()
		up := fwd.Cross(right)
		rd := right.Scale(u).Add(up.Scale(v)).Add(fwd.Scale(fe.F(1.6))).Normalize()

		sun := fe.V3(fe.Cos(t.Mul(fe.F(0.2))).Mul(fe.F(0.6)), fe.F(0.7), fe.Sin(t.Mul(fe.F(0.2))).Mul(fe.F(0.6))).Normalize()
		sky := vec(0.55, 0.7, 0.95).Sub(vec(0.3, 0.25, 0.1).Scale(fe.Max(rd.Y(), fe.F(0))))
		col := fe.NewVar(k, sky)
		hit := march(k, ro, rd, t)
		k.If(hit.X().Gt(fe.F(0)), func() {
			p := ro.Add(rd.Scale(hit.X()))
			n := normal(k, p, t)
			base := fe.NewVar(k, vec(0.9, 0.35, 0.2)) // spheres
			k.If(hit.Y().Lt(fe.F(0.5)), func() {
				check := fe.Floor(p.X()).Add(fe.Floor(p.Z()))
				c := fe.F(0.35).Add(fe.F(0.4).Mul(fe.Abs(check.Sub(fe.F(2).Mul(fe.Floor(check.Mul(fe.F(0.5))))))))
				base.Set(fe.V3(c, c, c))
			}).ElseIf(hit.Y().Lt(fe.F(1.5)), func() { base.Set(vec(0.3, 0.5, 0.8)) })
			diff := fe.Max(n.Dot(sun), fe.F(0))
			shadow := fe.NewVar(k, fe.F(1))
			k.If(diff.Gt(fe.F(0)), func() {
				k.If(march(k, p.Add(n.Scale(fe.F(0.01))), sun, t).X().Gt(fe.F(0)), func() { shadow.Set(fe.F(0.2)) })
			})
			lit := base.Get().Scale(diff.Mul(shadow.Get()).Mul(fe.F(0.9)).Add(fe.F(0.15)).Add(fe.F(0.15).Mul(n.Y())))
			fog := fe.F(1).Sub(fe.Exp(hit.X().Mul(fe.F(-0.05))))
			col.Set(fe.Lerp(lit, sky, fe.V3(fog, fog, fog)))
		})
		c := fe.Pow(fe.Saturate(col.Get()), vec(1/2.2, 1/2.2, 1/2.2))
		img.Write(fe.V2(id.X(), id.Y()), fe.V4(c.X(), c.Y(), c.Z(), fe.F(1)))
	})
}
