package rayquery

import "github.com/lucent-gpu/lucent/kernel"

// Spheres traces rays[i] with a candidate loop: each procedural box holds
// the sphere inscribed in it (centre the box's, radius its smallest half
// extent), intersected in the loop; a triangle of a non-opaque instance is
// committed when its primitive is even. It writes what the query committed
// to out[i] and the number of candidates it saw to seen[i]; with first set
// it terminates the traversal at the first candidate (by goto out of the
// loop for a procedural one). last[i] is the last candidate seen. The
// query runs in a helper that takes the accel.
//
//lucent:kernel block=64
func Spheres(scene kernel.Accel, rays []kernel.Ray, out []kernel.QueryResult, seen []uint32, last []kernel.Candidate, first uint32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(rays)) {
		return
	}
	out[i], seen[i], last[i] = spheres(scene, rays[i], first)
}

// spheres is Spheres' query of r: what it committed, the candidates seen
// and the last of them.
func spheres(scene kernel.Accel, r kernel.Ray, first uint32) (kernel.QueryResult, uint32, kernel.Candidate) {
	q := scene.Query(r)
	n := uint32(0)
	var last kernel.Candidate
	for q.Next() {
		c := q.Candidate()
		last = c
		n++
		if c.Kind == kernel.HitProcedural {
			t := sphere(c, r.TMin)
			if t >= 0 {
				q.CommitProcedural(t)
			}
		} else if c.Prim%2 == 0 {
			q.CommitTriangle()
		}
		if first != 0 {
			if c.Kind == kernel.HitProcedural {
				goto done // leaving the loop ends the traversal too
			}
			q.Terminate()
		}
	}
done:
	return q.Result(), n, last
}

// SpheresJumps is Spheres with the candidates it rejects skipped by
// continue (one labelled, from an inner loop) and the traversal ended by
// break instead of q.Terminate: the same answers.
//
//lucent:kernel block=64
func SpheresJumps(scene kernel.Accel, rays []kernel.Ray, out []kernel.QueryResult, seen []uint32, last []kernel.Candidate, first uint32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(rays)) {
		return
	}
	out[i], seen[i], last[i] = spheresJumps(scene, rays[i], first)
}

func spheresJumps(scene kernel.Accel, r kernel.Ray, first uint32) (kernel.QueryResult, uint32, kernel.Candidate) {
	q := scene.Query(r)
	n := uint32(0)
	var last kernel.Candidate
cands:
	for q.Next() {
		c := q.Candidate()
		last = c
		n++
		switch {
		case c.Kind == kernel.HitProcedural:
			t := sphere(c, r.TMin)
			if t < 0 {
				if first != 0 {
					break // the switch
				}
				continue
			}
			q.CommitProcedural(t)
		case c.Prim%2 != 0:
			for k := range uint32(3) {
				if k == 1 && first == 0 {
					continue cands
				}
			}
		default:
			q.CommitTriangle()
		}
		if first != 0 {
			break
		}
	}
	return q.Result(), n, last
}

// Occluded writes 1 where rays[i] hits anything Spheres would commit, else
// 0: its helper returns from inside the candidate loop at the first
// candidate it accepts (a bare return of named results and an explicit
// one), ending the traversal.
//
//lucent:kernel block=64
func Occluded(scene kernel.Accel, rays []kernel.Ray, out []uint32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(rays)) {
		return
	}
	out[i] = 0
	if hit, _ := blocked(scene, rays[i]); hit {
		out[i] = 1
	}
}

// blocked reports whether r hits anything Spheres would commit, and the
// candidates it looked at.
func blocked(scene kernel.Accel, r kernel.Ray) (hit bool, n uint32) {
	q := scene.Query(r)
	for q.Next() {
		c := q.Candidate()
		n++
		if c.Kind == kernel.HitProcedural {
			if t := sphere(c, r.TMin); t >= 0 && t <= r.TMax {
				hit = true
				return
			}
			continue
		}
		if c.Prim%2 == 0 {
			return true, n
		}
	}
	return q.Committed().Kind != kernel.HitMiss, n
}

// FirstSeen writes the first j of 0, 2 whose ray rays[(i+j)%n] meets a
// candidate, else 3, and in runs[i] how often its candidate loops' bodies
// ran: the candidate loop leaves the loop over the rays with break rays,
// and skips ray 1 with continue rays, at their first candidates, each
// ending its traversal.
//
//lucent:kernel block=64
func FirstSeen(scene kernel.Accel, rays []kernel.Ray, out, runs []uint32) {
	i := kernel.DispatchID().X
	n := uint32(len(rays))
	if i >= n {
		return
	}
	out[i], runs[i] = 3, 0
rays:
	for j := uint32(0); j < 3; j++ {
		q := scene.Query(rays[(i+j)%n])
		for q.Next() {
			runs[i]++
			switch {
			case j == 1:
				continue rays
			case q.Candidate().Prim < 1<<30:
				out[i] = j
				break rays
			}
		}
	}
}

// sphere is the first t ≥ tmin where the candidate's ray (in object space)
// meets the sphere inscribed in its box, or -1. The perpendicular from the
// centre to the ray keeps the discriminant exact for far origins.
func sphere(c kernel.Candidate, tmin float32) float32 {
	centre := c.BoxMin.Add(c.BoxMax).Scale(0.5)
	h := c.BoxMax.Sub(c.BoxMin).Scale(0.5)
	rad := min(h.X, h.Y, h.Z)
	d := c.ObjectDir
	a := d.Dot(d)
	f := c.ObjectOrigin.Sub(centre)
	b := f.Dot(d)
	l := f.Sub(d.Scale(b / a))
	disc := a * (rad*rad - l.Dot(l))
	if disc < 0 {
		return -1
	}
	s := kernel.Sqrt(disc)
	t := (-b - s) / a
	if t < tmin {
		t = (-b + s) / a
	}
	if t < tmin {
		return -1
	}
	return t
}
