package bad

import (
	"math"

	"github.com/lucent-gpu/lucent/kernel"
)

// id reads an id in a helper, which the device cannot do.
func id() uint32 { return kernel.DispatchID().X }

func sum(buf []float32) float32 { return buf[0] }

func scratch() float32 {
	s := kernel.Shared[[4]float32]()
	return s[0]
}

func generic[T int32 | float32](v T) T { return v }

type box[T any] struct{ v T }

func (b box[T]) get() T { return b.v }

//lucent:kernel block=64
func Helpers(y []float32, c []uint32, x float64) {
	i := id()
	local := uint32(0)
	kernel.AtomicAdd(&local, 1)
	y[i] = sum(y) + scratch() + generic(y[i]) + box[float32]{y[i]}.get()
	y[i] += float32(math.Sin(x)) + float32(math.Mod(x, 2))
	y[i] += float32(math.Inf(int(c[i])))
	c[i] = kernel.SubgroupBroadcast(c[i], i)
	kernel.Run(nil, kernel.Grid1(1, 1), nil)
	a, b := kernel.Float2{}, kernel.Float2{}
	if a.Add(b) == b {
		y[i] = 1
	}
	var m1, m2 kernel.Float2x2
	if m1 == m2 {
		y[i] = 2
	}
	var cx complex64
	_ = cx
}
