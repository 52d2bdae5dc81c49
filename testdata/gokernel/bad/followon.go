package bad

import "github.com/lucent-gpu/lucent/kernel"

// Each cause is reported once: the uses of a declaration that failed stay
// quiet, and so does a variable declared from a value that failed.

type Shape struct {
	Kind uint32
	Name string
}

func area(s Shape) float32 { return float32(s.Kind) }

func perimeter(s Shape) float32 { return float32(s.Kind) * 2 }

//lucent:kernel block=64
func FollowOn(out []float32, m map[int]int) {
	i := kernel.DispatchID().X
	var a Shape
	a.Kind = 3
	out[i] = float32(a.Kind) + area(a) + perimeter(a)
	b := []float32{1, 2}
	out[i] += b[0]
	out[i] += float32(m[1])
}
