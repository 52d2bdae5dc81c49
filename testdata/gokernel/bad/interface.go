package bad

import "github.com/lucent-gpu/lucent/kernel"

type Shape interface{ Area() float32 }

//lucent:kernel block=64
func Iface(y []float32, s Shape) {
	i := kernel.DispatchID().X
	var v any = y[i]
	f := v.(float32)
	switch v.(type) {
	case float32:
	}
	y[i] = f
}
