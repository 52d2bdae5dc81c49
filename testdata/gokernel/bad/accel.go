package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func HeldAccel(scene kernel.Accel, rays []kernel.Ray, hits []kernel.Hit) {
	i := kernel.DispatchID().X
	s := scene
	hits[i] = s.TraceClosest(rays[i])
}

//lucent:kernel block=64
func AccelInHelper(scene kernel.Accel, rays []kernel.Ray, out []uint32) {
	i := kernel.DispatchID().X
	if shadowed(scene, rays[i]) {
		out[i] = 1
	}
}

func shadowed(scene kernel.Accel, r kernel.Ray) bool { return scene.TraceAny(r) }

//lucent:kernel block=64
func TracerParam(t kernel.Tracer, out []uint32) {
	out[0] = 1
}
