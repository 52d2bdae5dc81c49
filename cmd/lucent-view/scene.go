package main

import (
	"math"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
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

func vec(x, y, z float32) dsl.F32x3 { return dsl.V3(dsl.F(x), dsl.F(y), dsl.F(z)) }

var (
	// orbit is where sphere i of 3 is at time t.
	orbit = dsl.Callable("orbit", func(k *dsl.K, t dsl.F32, i dsl.F32) dsl.F32x3 {
		a := t.Mul(dsl.F(0.7)).Add(i.Mul(dsl.F(2.0944)))
		return dsl.V3(dsl.Cos(a).Mul(dsl.F(1.8)), dsl.F(-0.35).Add(dsl.Sin(t.Mul(dsl.F(1.3)).Add(i)).Mul(dsl.F(0.3))), dsl.Sin(a).Mul(dsl.F(1.8)))
	})
	// dist is the distance to the nearest surface; material gets its id
	// (0 floor, 1 pillar, 2 spheres).
	dist = dsl.Callable("dist", func(k *dsl.K, p dsl.F32x3, t dsl.F32) dsl.F32x2 {
		floor := p.Y().Add(dsl.F(1))
		q := dsl.V2(p.X(), p.Z()).Length().Sub(dsl.F(0.45))
		pillar := dsl.Max(q, dsl.Abs(p.Y()).Sub(dsl.F(1)))
		best := dsl.NewVar(k, dsl.V2(floor, dsl.F(0)))
		k.If(pillar.Lt(best.Get().X()), func() { best.Set(dsl.V2(pillar, dsl.F(1))) })
		dsl.Range(k, dsl.U(0), dsl.U(3), func(i dsl.U32) {
			c := orbit(k, t, dsl.Convert[float32](i))
			s := p.Sub(c).Length().Sub(dsl.F(0.5))
			k.If(s.Lt(best.Get().X()), func() { best.Set(dsl.V2(s, dsl.F(2))) })
		})
		return best.Get()
	})
	march = dsl.Callable("march", func(k *dsl.K, ro, rd dsl.F32x3, t dsl.F32) dsl.F32x2 {
		d := dsl.NewVar(k, dsl.F(0.02))
		hit := dsl.NewVar(k, dsl.V2(dsl.F(-1), dsl.F(-1)))
		dsl.Range(k, dsl.U(0), dsl.U(48), func(i dsl.U32) {
			dd := d.Get()
			s := dist(k, ro.Add(rd.Scale(dd)), t)
			k.If(s.X().Lt(dsl.F(0.001).Mul(dd)), func() { hit.Set(dsl.V2(dd, s.Y())); k.Break() })
			k.If(dd.Gt(dsl.F(30)), k.Break)
			d.Set(dd.Add(s.X()))
		})
		return hit.Get()
	})
	normal = dsl.Callable("normal", func(k *dsl.K, p dsl.F32x3, t dsl.F32) dsl.F32x3 {
		const e = 0.001
		a, b, c, d := vec(e, -e, -e), vec(-e, -e, e), vec(-e, e, -e), vec(e, e, e)
		n := a.Scale(dist(k, p.Add(a), t).X()).Add(b.Scale(dist(k, p.Add(b), t).X())).
			Add(c.Scale(dist(k, p.Add(c), t).X())).Add(d.Scale(dist(k, p.Add(d), t).X()))
		return n.Normalize()
	})
)

// sceneKernel renders one frame into img: (time, camera position, yaw, pitch, img).
func sceneKernel() (*ir.Function, error) {
	return dsl.Kernel2D(8, 8, func(k *dsl.K, t, cx, cy, cz, yaw, pitch dsl.F32, img dsl.Tex2DRGBA8) {
		id := k.DispatchID()
		size := img.Size()
		k.If(id.X().Ge(size.X()).Or(id.Y().Ge(size.Y())), k.Return)
		fw, fh := dsl.Convert[float32](size.X()), dsl.Convert[float32](size.Y())
		u := dsl.F(2).Mul(dsl.Convert[float32](id.X()).Add(dsl.F(0.5))).Sub(fw).Div(fh)
		v := fh.Sub(dsl.F(2).Mul(dsl.Convert[float32](id.Y()).Add(dsl.F(0.5)))).Div(fh)
		ro := dsl.V3(cx, cy, cz)
		fwd := dsl.V3(dsl.Sin(yaw).Mul(dsl.Cos(pitch)), dsl.Sin(pitch), dsl.Cos(yaw).Mul(dsl.Cos(pitch)))
		right := vec(0, 1, 0).Cross(fwd).Normalize()
		up := fwd.Cross(right)
		rd := right.Scale(u).Add(up.Scale(v)).Add(fwd.Scale(dsl.F(1.6))).Normalize()

		sun := dsl.V3(dsl.Cos(t.Mul(dsl.F(0.2))).Mul(dsl.F(0.6)), dsl.F(0.7), dsl.Sin(t.Mul(dsl.F(0.2))).Mul(dsl.F(0.6))).Normalize()
		sky := vec(0.55, 0.7, 0.95).Sub(vec(0.3, 0.25, 0.1).Scale(dsl.Max(rd.Y(), dsl.F(0))))
		col := dsl.NewVar(k, sky)
		hit := march(k, ro, rd, t)
		k.If(hit.X().Gt(dsl.F(0)), func() {
			p := ro.Add(rd.Scale(hit.X()))
			n := normal(k, p, t)
			base := dsl.NewVar(k, vec(0.9, 0.35, 0.2)) // spheres
			k.If(hit.Y().Lt(dsl.F(0.5)), func() {
				check := dsl.Floor(p.X()).Add(dsl.Floor(p.Z()))
				c := dsl.F(0.35).Add(dsl.F(0.4).Mul(dsl.Abs(check.Sub(dsl.F(2).Mul(dsl.Floor(check.Mul(dsl.F(0.5))))))))
				base.Set(dsl.V3(c, c, c))
			}).ElseIf(hit.Y().Lt(dsl.F(1.5)), func() { base.Set(vec(0.3, 0.5, 0.8)) })
			diff := dsl.Max(n.Dot(sun), dsl.F(0))
			shadow := dsl.NewVar(k, dsl.F(1))
			k.If(diff.Gt(dsl.F(0)), func() {
				k.If(march(k, p.Add(n.Scale(dsl.F(0.01))), sun, t).X().Gt(dsl.F(0)), func() { shadow.Set(dsl.F(0.2)) })
			})
			lit := base.Get().Scale(diff.Mul(shadow.Get()).Mul(dsl.F(0.9)).Add(dsl.F(0.15)).Add(dsl.F(0.15).Mul(n.Y())))
			fog := dsl.F(1).Sub(dsl.Exp(hit.X().Mul(dsl.F(-0.05))))
			col.Set(dsl.Lerp(lit, sky, dsl.V3(fog, fog, fog)))
		})
		c := dsl.Pow(dsl.Saturate(col.Get()), vec(1/2.2, 1/2.2, 1/2.2))
		img.Write(dsl.V2(id.X(), id.Y()), dsl.V4(c.X(), c.Y(), c.Z(), dsl.F(1)))
	})
}
