package codegen

import (
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// Sizes every variant runs at.
const (
	saxpyN      = 1 << 22
	reduceN     = 1 << 22
	scanN       = 1 << 20
	histogramN  = 1 << 20
	matmulN     = 256
	mandelW     = 512
	mandelH     = 512
	nbodyN      = 2048
	blurW       = 1024
	blurH       = 1024
	nbodyDt     = 0.01
	saxpyFactor = 2
)

func saxpyRig(d *device.Device, s *device.Stream) (*rig, error) {
	var r rng = 1
	x, y := make([]float32, saxpyN), make([]float32, saxpyN)
	for i := range x {
		x[i], y[i] = r.unit(), r.unit()
	}
	bx, err := newBuffer(d, s, x)
	if err != nil {
		return nil, err
	}
	by, err := newBuffer(d, s, y)
	if err != nil {
		return nil, err
	}
	want := append([]float32(nil), y...)
	programs.SaxpyRef(saxpyFactor, x, want)
	return &rig{
		dims:   [3]uint32{saxpyN},
		lucent: []any{float32(saxpyFactor), bx, by},
		glsl:   []any{bx, by, float32(saxpyFactor), uint32(saxpyN)},
		reset:  []device.Command{by.Upload(y)},
		check: func(s *device.Stream) error {
			got, err := download(s, by)
			if err != nil {
				return err
			}
			return compare("y", got, want, 1e-6)
		},
	}, nil
}

func reduceRig(d *device.Device, s *device.Stream) (*rig, error) {
	var r rng = 2
	in := make([]uint32, reduceN)
	for i := range in {
		in[i] = r.next()
	}
	bin, err := newBuffer(d, s, in)
	if err != nil {
		return nil, err
	}
	bp, err := newBuffer(d, s, make([]uint32, reduceN/programs.ReduceBlock))
	if err != nil {
		return nil, err
	}
	want := programs.ReduceRef(in)
	return &rig{
		dims:   [3]uint32{reduceN},
		lucent: []any{bin, bp},
		glsl:   []any{bin, bp},
		check: func(s *device.Stream) error {
			got, err := download(s, bp)
			if err != nil {
				return err
			}
			return compare("partial", got, want, 0)
		},
	}, nil
}

func scanRig(d *device.Device, s *device.Stream) (*rig, error) {
	var r rng = 3
	in := make([]float32, scanN)
	for i := range in {
		in[i] = float32(r.next() % 8) // small integers: every sum is exact
	}
	bin, err := newBuffer(d, s, in)
	if err != nil {
		return nil, err
	}
	bout, err := newBuffer(d, s, make([]float32, scanN))
	if err != nil {
		return nil, err
	}
	want := programs.ScanRef(in)
	return &rig{
		dims:   [3]uint32{scanN},
		lucent: []any{bin, bout},
		glsl:   []any{bin, bout},
		check: func(s *device.Stream) error {
			got, err := download(s, bout)
			if err != nil {
				return err
			}
			return compare("out", got, want, 0)
		},
	}, nil
}

func histogramRig(d *device.Device, s *device.Stream) (*rig, error) {
	var r rng = 4
	in := make([]uint32, histogramN)
	for i := range in {
		in[i] = r.next()
	}
	bin, err := newBuffer(d, s, in)
	if err != nil {
		return nil, err
	}
	zero := make([]uint32, programs.HistogramBins)
	bb, err := newBuffer(d, s, zero)
	if err != nil {
		return nil, err
	}
	want := programs.HistogramRef(in)
	return &rig{
		dims:   [3]uint32{histogramN}, // a multiple of the block: the kernel has barriers
		lucent: []any{bin, bb},
		glsl:   []any{bin, bb},
		reset:  []device.Command{bb.Upload(zero)},
		check: func(s *device.Stream) error {
			got, err := download(s, bb)
			if err != nil {
				return err
			}
			return compare("bins", got, want, 0)
		},
	}, nil
}

func matmulRig(d *device.Device, s *device.Stream) (*rig, error) {
	var r rng = 5
	a, b := make([]float32, matmulN*matmulN), make([]float32, matmulN*matmulN)
	for i := range a {
		a[i], b[i] = r.unit()*2-1, r.unit()*2-1
	}
	ba, err := newBuffer(d, s, a)
	if err != nil {
		return nil, err
	}
	bb, err := newBuffer(d, s, b)
	if err != nil {
		return nil, err
	}
	bc, err := newBuffer(d, s, make([]float32, matmulN*matmulN))
	if err != nil {
		return nil, err
	}
	want := programs.MatMulRef(matmulN, a, b)
	return &rig{
		dims:   [3]uint32{matmulN, matmulN},
		lucent: []any{uint32(matmulN), ba, bb, bc},
		glsl:   []any{ba, bb, bc, uint32(matmulN)},
		check: func(s *device.Stream) error {
			got, err := download(s, bc)
			if err != nil {
				return err
			}
			return compare("c", got, want, 1e-4) // 256 float32 products summed
		},
	}, nil
}

func mandelbrotRig(d *device.Device, s *device.Stream) (*rig, error) {
	out, err := newBuffer(d, s, make([]uint32, mandelW*mandelH))
	if err != nil {
		return nil, err
	}
	want := programs.MandelbrotRef(mandelW, mandelH)
	return &rig{
		dims:   [3]uint32{mandelW, mandelH},
		lucent: []any{uint32(mandelW), uint32(mandelH), out},
		glsl:   []any{out, uint32(mandelW), uint32(mandelH)},
		check: func(s *device.Stream) error {
			got, err := download(s, out)
			if err != nil {
				return err
			}
			// A fused multiply-add may move a pixel on the set's boundary;
			// the interior and the far field agree exactly.
			differ := 0
			for i := range want {
				if got[i] != want[i] {
					differ++
				}
			}
			if differ > len(want)/100 {
				return fmt.Errorf("%d of %d pixels differ from the CPU", differ, len(want))
			}
			return nil
		},
	}, nil
}

func nbodyRig(d *device.Device, s *device.Stream) (*rig, error) {
	var r rng = 6
	pos, vel := make([][4]float32, nbodyN), make([][4]float32, nbodyN)
	for i := range pos {
		pos[i] = [4]float32{r.unit()*10 - 5, r.unit()*10 - 5, r.unit()*10 - 5, r.unit() + 0.5}
		vel[i] = [4]float32{r.unit() - 0.5, r.unit() - 0.5, r.unit() - 0.5, 0}
	}
	bp, err := newBuffer(d, s, pos)
	if err != nil {
		return nil, err
	}
	bv, err := newBuffer(d, s, vel)
	if err != nil {
		return nil, err
	}
	bn, err := newBuffer(d, s, make([][4]float32, nbodyN))
	if err != nil {
		return nil, err
	}
	wantPos, wantVel := programs.NBodyRef(nbodyDt, pos, vel)
	return &rig{
		dims:   [3]uint32{nbodyN},
		lucent: []any{float32(nbodyDt), uint32(nbodyN), bp, bv, bn},
		glsl:   []any{bp, bv, bn, float32(nbodyDt), uint32(nbodyN)},
		reset:  []device.Command{bv.Upload(vel)},
		check: func(s *device.Stream) error {
			gp, err := download(s, bn)
			if err != nil {
				return err
			}
			gv, err := download(s, bv)
			if err != nil {
				return err
			}
			if err := compare("pos", flat(gp), flat(wantPos), 1e-3); err != nil {
				return err
			}
			return compare("vel", flat(gv), flat(wantVel), 1e-3)
		},
	}, nil
}

func flat(v [][4]float32) []float32 {
	out := make([]float32, 0, 4*len(v))
	for _, e := range v {
		out = append(out, e[:]...)
	}
	return out
}

func blurRig(d *device.Device, s *device.Stream) (*rig, error) {
	src := make([][4]float32, blurW*blurH)
	var r rng = 7
	for i := range src {
		src[i] = [4]float32{r.unit(), r.unit(), r.unit(), 1}
	}
	var imgs [3]*device.Image[[4]float32]
	for i := range imgs {
		img, err := device.NewImage[[4]float32](d, device.RGBA32Float, blurW, blurH, 1)
		if err != nil {
			return nil, err
		}
		imgs[i] = img
	}
	if err := run(s, imgs[0].Upload(src)); err != nil {
		return nil, err
	}
	wantBox, wantSmp := programs.BlurRef(blurW, blurH, src)
	return &rig{
		dims:   [3]uint32{blurW, blurH},
		lucent: []any{imgs[0], imgs[1], imgs[2]},
		glsl:   []any{imgs[0], imgs[1], imgs[2]},
		check: func(s *device.Stream) error {
			box, smp := make([][4]float32, blurW*blurH), make([][4]float32, blurW*blurH)
			if err := run(s, imgs[1].Download(box), imgs[2].Download(smp)); err != nil {
				return err
			}
			if err := compare("box", flat(box), flat(wantBox), 1e-5); err != nil {
				return err
			}
			return compare("sampled", flat(smp), flat(wantSmp), 1e-5)
		},
	}, nil
}
