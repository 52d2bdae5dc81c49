package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func Collections(y []float32) {
	i := kernel.DispatchID().X
	m := map[uint32]float32{}
	m[i] = 1
	tmp := make([]float32, 4)
	tmp = append(tmp, 1)
	lit := []float32{1, 2}
	p := new(float32)
	view := y[1:]
	y[i] = tmp[0] + lit[0] + *p + view[0]
}
