package bad

import "github.com/lucent-gpu/lucent/kernel"

func fact(n uint32) uint32 {
	if n <= 1 {
		return 1
	}
	return n * fact(n-1)
}

func even(n uint32) bool {
	if n == 0 {
		return true
	}
	return odd(n - 1)
}

func odd(n uint32) bool {
	if n == 0 {
		return false
	}
	return even(n - 1)
}

//lucent:kernel block=64
func Recurse(y []uint32) {
	i := kernel.DispatchID().X
	y[i] = fact(i)
	if even(i) {
		y[i]++
	}
}
