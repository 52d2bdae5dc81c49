package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func Bindless(arr kernel.Bindless, y []float32) {
	i := kernel.DispatchID().X
	buf := kernel.BindlessBuffer[float32](arr, 0)
	other := buf
	for range buf {
	}
	tex := arr.Texture2D(1)
	y[i] = other[0] + tex.Read(0, 0).X
	flags := kernel.BindlessBuffer[bool](arr, 2)
	y[i] += float32(len(flags))
	copied := tex
	y[i] += float32(copied.Size().X)
	var held kernel.BindlessTexture2D
	y[i] += held.Sample(kernel.F2(0, 0)).X
	y[i] += float32(arr.Texture2D(1).Size().X)
	y[i] += float32(sizeOf(arr.Texture2D(0)).X)
}

func sizeOf(t kernel.BindlessTexture2D) kernel.Uint2 { return t.Size() }

//lucent:kernel block=8,8
func CopyTexture(img kernel.Texture2D[kernel.Float4]) {
	t := img
	t.Write(0, 0, kernel.Float4{})
}

//lucent:kernel block=8,8
func SampleInts(img kernel.Texture2D[kernel.Int4], out []float32) {
	out[0] = float32(img.Sample(kernel.F2(0.5, 0.5)).X)
}
