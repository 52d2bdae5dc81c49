package bad

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=64
func Bindless(arr kernel.Bindless, y []float32) {
	i := kernel.DispatchID().X
	buf := kernel.BindlessBuffer[float32](arr, 0)
	other := buf
	for range buf {
	}
	tex := kernel.BindlessTexture2D[kernel.Float4](arr, 1)
	y[i] = other[0] + tex.Read(0, 0).X
	flags := kernel.BindlessBuffer[bool](arr, 2)
	y[i] += float32(len(flags))
}

//lucent:kernel block=8,8
func CopyTexture(img kernel.Texture2D[kernel.Float4]) {
	t := img
	t.Write(0, 0, kernel.Float4{})
}
