package bad

import "github.com/lucent-gpu/lucent/kernel"

// Each kernel passes one of the compiler's input bounds; none may make the
// compiler allocate in proportion to an array's length.

//lucent:kernel block=64
func HugeArray(out []float32) {
	var a [1 << 40]float32
	i := kernel.DispatchID().X
	out[i] = a[i%4]
}

//lucent:kernel block=64
func BigLocal(out []float32) {
	var a [1 << 16]float32
	i := kernel.DispatchID().X
	a[i%4] = 1
	out[i] = a[i%4]
}

//lucent:kernel block=64
func HugeShared(out []float32) {
	tile := kernel.Shared[[1 << 24]float32]()
	i := kernel.DispatchID().X
	out[i] = tile[i]
}

type wide struct {
	A [1 << 19]float32
	B float32
}

//lucent:kernel block=64
func HugeElement(out []wide) {
	i := kernel.DispatchID().X
	out[i].B = 1
}

//lucent:kernel block=64
func BigLiteral(out []uint8) {
	i := kernel.DispatchID().X
	a := [1 << 15]uint8{1}
	out[i] = a[i%4]
}

//lucent:kernel block=64
func ManyElements(out []uint8) {
	i := kernel.DispatchID().X
	var a [2048]uint8
	var b [32][64]uint8
	a[i%8] = 1
	out[i] = a[i%8] + b[i%32][i%64]
}

var bigTable = [8192]float32{1, 2, 3}

//lucent:kernel block=64
func BigTable(out []float32) {
	i := kernel.DispatchID().X
	out[i] = bigTable[i%8192]
}

func sumLarge(a [8192]float32) float32 { return a[0] + a[1] }

//lucent:kernel block=64
func BigParameter(out []float32) {
	i := kernel.DispatchID().X
	out[i] = sumLarge([8192]float32{})
}
