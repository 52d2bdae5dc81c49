package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func CandidateOutside(scene kernel.Accel, rays []kernel.Ray, out []kernel.Hit) {
	i := kernel.DispatchID().X
	q := scene.Query(rays[i])
	c := q.Candidate()
	for q.Next() {
		q.CommitTriangle()
	}
	q.Terminate()
	out[i] = q.Committed()
	out[i].Prim = c.Prim
}

//lucent:kernel block=64
func CommittedInside(scene kernel.Accel, rays []kernel.Ray, out []kernel.Hit) {
	i := kernel.DispatchID().X
	q := scene.Query(rays[i])
	for q.Next() {
		out[i] = q.Committed()
	}
}

//lucent:kernel block=64
func LeavesLoop(scene kernel.Accel, rays []kernel.Ray, out []kernel.Hit) {
	i := kernel.DispatchID().X
	q := scene.Query(rays[i])
	for q.Next() {
		if q.Candidate().Prim == 3 {
			break
		}
		if q.Candidate().Prim == 4 {
			return
		}
		p := scene.Query(rays[i])
		for p.Next() {
		}
	}
	for q.Next() {
	}
	out[i] = q.Committed()
}

//lucent:kernel block=64
func CopiesQuery(scene kernel.Accel, rays []kernel.Ray, out []kernel.Hit) {
	i := kernel.DispatchID().X
	q := scene.Query(rays[i])
	r := q
	for r.Next() {
	}
	out[i] = q.Committed()
}
