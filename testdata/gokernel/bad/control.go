package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func Control(y []int32) {
	i := kernel.DispatchID().X
	switch y[i] {
	case 1:
		y[i] = 2
		fallthrough
	case 2:
		y[i] = 3
	}
	if y[i] < 0 {
		panic("negative")
	}
	goto done
done:
}
