package cpu_test

import (
	"context"
	"math"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// The stencil, n-body and histogram programs against hand-written
// parallel Go loops, interleaved as BenchmarkSaxpyVsGo is.

func BenchmarkStencilVsGo(b *testing.B) {
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(b, err)
	defer d.Close()
	f, err := programs.Life()
	require.NoError(b, err)
	k, err := device.Compile(d, f)
	require.NoError(b, err)
	const w, h = 512, 512
	src, dst := make([]uint32, w*h), make([]uint32, w*h)
	for i := range src {
		src[i] = uint32(i*7919>>3) & 1
	}
	bs, _ := device.NewBufferFrom(d, src)
	bd, _ := device.NewBuffer[uint32](d, w*h)
	s, _ := d.NewStream(device.StreamCompute)
	cmd := k.Dispatch([3]uint32{w, h}, uint32(w), uint32(h), bs, bd)
	interleave(b, [2]string{"go", "cpu"}, [2]func(){
		func() {
			parallel(h, func(lo, hi int) {
				for y := lo; y < hi; y++ {
					for x := range w {
						var c uint32
						for dy := -1; dy <= 1; dy++ {
							for dx := -1; dx <= 1; dx++ {
								if dx != 0 || dy != 0 {
									c += src[(y+h+dy)%h*w+(x+w+dx)%w]
								}
							}
						}
						var next uint32
						if c == 3 || (src[y*w+x] == 1 && c == 2) {
							next = 1
						}
						dst[y*w+x] = next
					}
				}
			})
		},
		func() {
			_ = s.Submit(cmd)
			_ = s.Synchronize(context.Background())
		},
	})
}

func BenchmarkNBodyVsGo(b *testing.B) {
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(b, err)
	defer d.Close()
	f, err := programs.NBody()
	require.NoError(b, err)
	k, err := device.Compile(d, f)
	require.NoError(b, err)
	const n = 1024
	pos, vel := make([][4]float32, n), make([][4]float32, n)
	for i := range pos {
		pos[i] = [4]float32{float32(i%17) / 17, float32(i%13) / 13, float32(i%11) / 11, 1}
	}
	bp, _ := device.NewBufferFrom(d, pos)
	bv, _ := device.NewBufferFrom(d, vel)
	bn, _ := device.NewBuffer[[4]float32](d, n)
	s, _ := d.NewStream(device.StreamCompute)
	cmd := k.Dispatch([3]uint32{n}, float32(0.01), uint32(n), bp, bv, bn)
	newPos := make([][4]float32, n)
	interleave(b, [2]string{"go", "cpu"}, [2]func(){
		func() {
			parallel(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					p := pos[i]
					var acc [3]float32
					for _, q := range pos {
						d := [3]float32{q[0] - p[0], q[1] - p[1], q[2] - p[2]}
						r2 := d[0]*d[0] + d[1]*d[1] + d[2]*d[2] + programs.NBodyEps
						inv := float32(1 / math.Sqrt(float64(r2)))
						s := q[3] * inv * inv * inv
						acc[0], acc[1], acc[2] = acc[0]+d[0]*s, acc[1]+d[1]*s, acc[2]+d[2]*s
					}
					v := vel[i]
					for c := range 3 {
						v[c] += acc[c] * 0.01
					}
					newPos[i] = [4]float32{p[0] + v[0]*0.01, p[1] + v[1]*0.01, p[2] + v[2]*0.01, p[3]}
				}
			})
		},
		func() {
			_ = s.Submit(cmd)
			_ = s.Synchronize(context.Background())
		},
	})
}

func BenchmarkHistogramVsGo(b *testing.B) {
	d, err := device.Open(context.Background(), "cpu")
	require.NoError(b, err)
	defer d.Close()
	f, err := programs.Histogram()
	require.NoError(b, err)
	k, err := device.Compile(d, f)
	require.NoError(b, err)
	const n = 1 << 18
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i * 2654435761)
	}
	bi, _ := device.NewBufferFrom(d, in)
	bb, _ := device.NewBuffer[uint32](d, programs.HistogramBins)
	s, _ := d.NewStream(device.StreamCompute)
	cmd := k.Dispatch([3]uint32{n}, bi, bb)
	var bins [programs.HistogramBins]atomic.Uint32
	interleave(b, [2]string{"go", "cpu"}, [2]func(){
		func() {
			parallel(n, func(lo, hi int) {
				var local [programs.HistogramBins]uint32
				for _, v := range in[lo:hi] {
					local[v%programs.HistogramBins]++
				}
				for i, c := range local {
					bins[i].Add(c)
				}
			})
		},
		func() {
			_ = s.Submit(cmd)
			_ = s.Synchronize(context.Background())
		},
	})
}
