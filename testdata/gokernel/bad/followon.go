package bad

import "github.com/lucent-gpu/lucent/kernel"

// Each cause is reported once: the uses of a declaration that failed stay
// quiet, and so does a variable declared from a value that failed.

type Tagged struct {
	Kind uint32
	Name string
}

func area(s Tagged) float32 { return float32(s.Kind) }

func perimeter(s Tagged) float32 { return float32(s.Kind) * 2 }

func mk(k uint32) Tagged { return Tagged{Kind: k} }

//lucent:kernel block=64
func FollowOn(out []float32, m map[int]int) {
	i := kernel.DispatchID().X
	var a Tagged
	a.Kind = 3
	out[i] = float32(a.Kind) + area(a) + perimeter(a)
	b := []float32{1, 2}
	out[i] += b[0]
	out[i] += float32(m[1])
	for k, v := range m {
		out[i] += float32(k) + float32(v) + b[1]
		print(v)
	}
	var shapes [4]Tagged
	sh := mk(i)
	out[i] += float32(shapes[0].Kind + sh.Kind)
}
