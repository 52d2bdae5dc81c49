package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel
func NoBlock(y []float32) {}

//lucent:kernel block=0
func ZeroBlock(y []float32) {}

//lucent:kernel block=64,64
func TooBig(y []float32) {}

//lucent:kernel block=8 fast
func Unknown(y []float32) {}

//lucent:kernel block=4,4,4,4
func FourD(y []float32) {}

//lucent:kernel block=64
func Results(y []float32) float32 {
	return y[kernel.DispatchID().X]
}

type T struct{ A float32 }

//lucent:kernel block=64
func (t T) Method(y []float32) {}

//lucent:kernel block=8 format=img:rgba9
func BadFormat(img kernel.Texture2D[kernel.Float4]) {}

//lucent:kernel block=8 format=img:r32ui
func WrongTexel(img kernel.Texture2D[kernel.Float4]) {}

//lucent:kernel block=8 format=other:r32f
func NoSuchTexture(img kernel.Texture2D[kernel.Float4]) {}

//lucent:kernel block=64 block=32,2
func TwoBlocks(y []float32) {}

//lucent:kernel block=8 format=img:r32f format=img:rgba8
func TwoFormats(img kernel.Texture2D[kernel.Float4]) {}

// lucent:kernel block=64
func Spaced(y []float32) {}

// Upper is documented first.
//
// Lucent:kernel block=64
func Upper(y []float32) {}
