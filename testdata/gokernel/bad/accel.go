package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func HeldAccel(scene kernel.Accel, rays []kernel.Ray, hits []kernel.Hit) {
	i := kernel.DispatchID().X
	s := scene
	hits[i] = s.TraceClosest(rays[i])
}

//lucent:kernel block=64
func TracerParam(t kernel.Tracer, out []uint32) {
	out[0] = 1
}

type sceneArgs struct {
	Scene kernel.Accel
	N     uint32
}

//lucent:kernel block=64
func AccelField(s sceneArgs, out []float32) {
	out[kernel.DispatchID().X] = float32(s.N)
}

//lucent:kernel block=64
func AccelBuffer(scene kernel.Accel, out []kernel.Accel) {
	out[kernel.DispatchID().X] = scene
}
