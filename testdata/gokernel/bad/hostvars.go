package bad

import "github.com/lucent-gpu/lucent/kernel"

// One error per cause: a package variable a kernel cannot read is reported
// at its first use, in whichever function, and its later uses stay quiet.

var weights = [2][2]float32{{1, 2}, {3, 4}} // arrays of arrays are not lookup tables

var Volume = float32(2) // exported: other packages may change it

func weight(i uint32) float32 { return weights[i%2][0] + weights[i%2][1] }

//lucent:kernel block=64
func HostVars(out []float32) {
	i := kernel.DispatchID().X
	out[i] = weight(i) * weights[1][i%2] * Volume
	out[i] += Volume
}

//lucent:kernel block=64
func HostVarsElsewhere(out []uint32) {
	i := kernel.DispatchID().X
	out[i] = uint32(kernel.Float4{}.X) + uint32(len(out))
	out[i] += uint32(weights[0][0])
}
