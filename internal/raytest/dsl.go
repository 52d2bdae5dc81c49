package raytest

import (
	"fmt"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/kernel"
)

// DSLClosest is the DSL kernel of rays given as Pack gives them: it writes
// ray i's closest hit to hits[i] (a whole dsl.Hit, read on the host as
// kernel.Hit) and 1 or 0 to anys[i] as TraceAny says.
func DSLClosest() (*ir.Function, error) {
	return dsl.Kernel1D(64, func(k *dsl.K, scene dsl.Accel, org, dir dsl.Buf[dsl.F32x4], mask dsl.Buf[dsl.U32], hits dsl.Buf[dsl.Hit], anys dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		k.If(i.Lt(org.Len()), func() {
			o, d, m := org.Read(i), dir.Read(i), mask.Read(i)
			hits.Write(i, scene.TraceClosest(o.XYZ(), o.W(), d.XYZ(), d.W(), m))
			anys.Write(i, dsl.Select(scene.TraceAny(o.XYZ(), o.W(), d.XYZ(), d.W(), m), dsl.Lit[uint32](1), dsl.Lit[uint32](0)))
		})
	}, "scene", "org", "dir", "mask", "hits", "anys")
}

// DSLFields writes the closest hit's fields apart through the accessors:
// kind, instance and primitive to ids[3i:3i+3], t, u and v to ts[3i:3i+3]
// (FromFields reads them back).
func DSLFields() (*ir.Function, error) {
	return dsl.Kernel1D(64, func(k *dsl.K, scene dsl.Accel, org, dir dsl.Buf[dsl.F32x4], mask dsl.Buf[dsl.U32], ids dsl.Buf[dsl.U32], ts dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		k.If(i.Lt(org.Len()), func() {
			o, d := org.Read(i), dir.Read(i)
			h := scene.TraceClosest(o.XYZ(), o.W(), d.XYZ(), d.W(), mask.Read(i))
			j := i.Mul(dsl.Lit[uint32](3))
			one, two := dsl.Lit[uint32](1), dsl.Lit[uint32](2)
			ids.Write(j, h.Kind())
			ids.Write(j.Add(one), h.Instance())
			ids.Write(j.Add(two), h.Prim())
			ts.Write(j, h.T())
			ts.Write(j.Add(one), h.Bary().X())
			ts.Write(j.Add(two), h.Bary().Y())
		})
	}, "scene", "org", "dir", "mask", "ids", "ts")
}

// Pack lays rays out for the DSL kernels: (origin, tmin), (dir, tmax), mask.
func Pack(rays []kernel.Ray) (org, dir [][4]float32, masks []uint32) {
	for _, r := range rays {
		org = append(org, [4]float32{r.Origin.X, r.Origin.Y, r.Origin.Z, r.TMin})
		dir = append(dir, [4]float32{r.Dir.X, r.Dir.Y, r.Dir.Z, r.TMax})
		masks = append(masks, r.Mask)
	}
	return org, dir, masks
}

// FromFields reads back the hits DSLFields or rayquery.Fields wrote. The
// latter writes a miss's ray mask in place of its instance (missMask): that
// is checked and the instance set to 0.
func FromFields(rays []kernel.Ray, ids []uint32, ts []float32, missMask bool) ([]kernel.Hit, error) {
	out := make([]kernel.Hit, len(rays))
	for i := range out {
		h := kernel.Hit{
			Kind: ids[3*i], Instance: ids[3*i+1], Prim: ids[3*i+2],
			T: ts[3*i], Bary: kernel.F2(ts[3*i+1], ts[3*i+2]),
		}
		if missMask && h.Kind == kernel.HitMiss {
			if h.Instance != rays[i].Mask {
				return nil, fmt.Errorf("ray %d: a miss wrote %d, not the ray's mask %d", i, h.Instance, rays[i].Mask)
			}
			h.Instance = 0
		}
		out[i] = h
	}
	return out, nil
}

// DSLSpheres is rayquery.Spheres in the DSL, over rays as Pack gives them:
// a candidate loop intersecting the sphere inscribed in each procedural box
// and committing a non-opaque instance's even triangles; it writes the
// query's result to out[i], the candidates seen to seen[i], the last of them
// to last[i] (where it saw one), and terminates
// at the first one when first is set.
func DSLSpheres() (*ir.Function, error) {
	return dsl.Kernel1D(64, func(k *dsl.K, scene dsl.Accel, org, dir dsl.Buf[dsl.F32x4], mask dsl.Buf[dsl.U32], out dsl.Buf[dsl.QueryResult], seen dsl.Buf[dsl.U32], last dsl.Buf[dsl.Candidate], first dsl.U32) {
		i := k.DispatchID().X()
		k.If(i.Lt(org.Len()), func() {
			o, d := org.Read(i), dir.Read(i)
			tmin := o.W()
			n := dsl.NewVar(k, dsl.U(0))
			res := scene.Query(o.XYZ(), tmin, d.XYZ(), d.W(), mask.Read(i), func(q dsl.Query) {
				c := q.Candidate()
				last.Write(i, c)
				n.Set(n.Get().Add(dsl.U(1)))
				k.If(c.Kind().Eq(dsl.U(dsl.HitProcedural)), func() {
					lo, hi := c.BoxMin(), c.BoxMax()
					half := dsl.F(0.5)
					centre := lo.Add(hi).Scale(half)
					h := hi.Sub(lo).Scale(half)
					rad := dsl.Min(h.X(), dsl.Min(h.Y(), h.Z()))
					od := c.ObjectDir()
					a := od.Dot(od)
					f := c.ObjectOrigin().Sub(centre)
					b := f.Dot(od)
					l := f.Sub(od.Scale(b.Div(a)))
					disc := a.Mul(rad.Mul(rad).Sub(l.Dot(l)))
					k.If(disc.Ge(dsl.F(0)), func() {
						s := dsl.Sqrt(disc)
						t := dsl.NewVar(k, b.Neg().Sub(s).Div(a))
						k.If(t.Get().Lt(tmin), func() { t.Set(b.Neg().Add(s).Div(a)) })
						k.If(t.Get().Ge(tmin), func() { q.CommitProcedural(t.Get()) })
					})
				}).Else(func() {
					k.If(c.Prim().Rem(dsl.U(2)).Eq(dsl.U(0)), q.CommitTriangle)
				})
				k.If(first.Ne(dsl.U(0)), q.Terminate)
			})
			out.Write(i, res)
			seen.Write(i, n.Get())
		})
	}, "scene", "org", "dir", "mask", "out", "seen", "last", "first")
}
