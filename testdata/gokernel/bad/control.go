package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func Control(y []int32) {
	i := kernel.DispatchID().X
outer:
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			if b == 2 {
				continue outer
			}
		}
	}
	switch y[i] {
	case 1:
		y[i] = 2
		fallthrough
	case 2:
		y[i] = 3
	}
	switch int64(y[i]) {
	case 5:
		break
	}
	if y[i] < 0 {
		panic("negative")
	}
	goto done
done:
}
