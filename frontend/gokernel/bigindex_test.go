package gokernel_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
)

const bigIndexSrc = `package k

import "github.com/lucent-gpu/lucent/kernel"

//lucent:kernel block=1
func K(x []uint32, out []uint32, j int, form uint32) {
	switch form {
	case 0:
		out[0] = x[j]
	case 1:
		v := x[1:]
		out[0] = v[j]
	case 2:
		f := kernel.Uint3{X: x[0], Y: x[1], Z: x[2]}
		out[0] = f.At(j)
	case 3:
		f := kernel.Uint3{}
		f.Set(j, 7)
		out[0] = f.X*100 + f.Y*10 + f.Z
	case 4:
		v := x[j:]
		out[0] = uint32(len(v))
	case 5:
		v := x[1:]
		v[j] = 9
	case 6:
		x[j] = 9
	}
}
`

// An index a u32 cannot hold — 2³² and more, or negative — is out of range
// in every form that indexes a buffer (a plain index, a view's, a view's
// store), never truncated into range: the read gives zero and the store is
// dropped on Vulkan unchecked, a fault names the argument in checked mode
// and on the cpu backend (which checks every kernel); a run-time vector
// component clamps to the last, as kernel.At documents; a slice from such a
// bound is empty.
func TestBigIndicesAreOutOfRange(t *testing.T) {
	ks, errs := gokernel.Check("k.go", []byte(bigIndexSrc))
	require.Empty(t, errs)
	in := []uint32{10, 11, 12, 13}
	type want struct {
		out   uint32
		x     []uint32 // nil: in unchanged
		fault bool     // a buffer index out of range
	}
	const (
		plain = iota
		viewIndex
		at
		set
		sliceLen
		viewStore
		plainStore
	)
	inRange := map[int]want{ // j = 1
		plain: {out: 11}, viewIndex: {out: 12}, at: {out: 11}, set: {out: 70}, sliceLen: {out: 3},
		viewStore: {x: []uint32{10, 11, 9, 13}}, plainStore: {x: []uint32{10, 9, 12, 13}},
	}
	outOfRange := map[int]want{
		plain: {fault: true}, viewIndex: {fault: true}, at: {out: 12}, set: {out: 7}, sliceLen: {out: 0},
		viewStore: {fault: true}, plainStore: {fault: true},
	}
	for _, backend := range []string{"vulkan", "cpu"} {
		for _, checked := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/checked=%v", backend, checked), func(t *testing.T) {
				d := openBackend(t, backend)
				var opts []device.CompileOption
				if checked {
					opts = append(opts, device.WithChecked())
				}
				dk, err := device.Compile(d, ks[0].Func, opts...)
				require.NoError(t, err)
				defer dk.Close()
				faults := checked || backend == "cpu"
				for form := range len(inRange) {
					for _, j := range []int{1, 1<<32 + 1, 1 << 32, -1, -(1 << 32) + 1} {
						w := inRange[form]
						if j != 1 {
							w = outOfRange[form]
						}
						x, err := device.NewBuffer[uint32](d, 4)
						require.NoError(t, err)
						out, err := device.NewBuffer[uint32](d, 1)
						require.NoError(t, err)
						err = syncOn(t, d, x.Upload(in), out.Upload([]uint32{0}), dk.Dispatch([3]uint32{1}, x, out, j, uint32(form)))
						gx, gout := make([]uint32, 4), make([]uint32, 1)
						require.NoError(t, syncOn(t, d, x.Download(gx), out.Download(gout)))
						require.NoError(t, x.Close())
						require.NoError(t, out.Close())
						name := fmt.Sprintf("form %d, j=%d", form, j)
						if w.fault && faults {
							require.ErrorIs(t, err, device.ErrInvalidArgument, name)
							require.ErrorContains(t, err, "argument 0 (x): index ", name)
							require.ErrorContains(t, err, "out of range [0, 4)", name)
						} else {
							require.NoError(t, err, name)
							require.Equal(t, w.out, gout[0], name)
						}
						if w.x == nil {
							require.Equal(t, in, gx, name)
						} else {
							require.Equal(t, w.x, gx, name)
						}
					}
				}
			})
		}
	}
}

// syncOn submits cmds on a fresh stream and returns Synchronize's error.
func syncOn(t *testing.T, d *device.Device, cmds ...device.Command) error {
	t.Helper()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Submit(cmds...))
	return s.Synchronize(context.Background())
}
