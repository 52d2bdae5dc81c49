package device_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// TestNewBufferFromAndRead: a buffer made from a slice holds the slice as
// soon as NewBufferFrom returns (a kernel dispatched next sees it), and Read
// returns the buffer's contents in one call.
func TestNewBufferFromAndRead(t *testing.T) {
	d := openDevice(t)
	type pair struct{ A, B float32 }
	ps := []pair{{1, 2}, {3, 4}, {5, 6}}
	pb, err := device.NewBufferFrom(d, ps)
	require.NoError(t, err)
	defer pb.Close()
	require.Equal(t, 3, pb.Len())
	ps[0].A = 99 // the buffer took a copy
	got, err := pb.Read(context.Background())
	require.NoError(t, err)
	require.Equal(t, []pair{{1, 2}, {3, 4}, {5, 6}}, got)

	// A kernel sees the uploaded data: saxpy y = 2x + y.
	k := compile(t, d, programs.Saxpy)
	const n = 1000
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i), float32(n-i)
	}
	x, err := device.NewBufferFrom(d, xs)
	require.NoError(t, err)
	defer x.Close()
	y, err := device.NewBufferFrom(d, ys)
	require.NoError(t, err)
	defer y.Close()
	run(t, d, k.Dispatch([3]uint32{n}, float32(2), x, y))
	res, err := y.Read(context.Background())
	require.NoError(t, err)
	for i := range res {
		require.Equal(t, 2*xs[i]+ys[i], res[i], "element %d", i)
	}
}

// TestNewBufferFromBadInput: an empty slice, a non-plain element type, a nil
// buffer, a closed buffer and a done context are errors, not panics.
func TestNewBufferFromBadInput(t *testing.T) {
	d := openDevice(t)
	_, err := device.NewBufferFrom(d, []float32{})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorContains(t, err, "NewBufferFrom")
	_, err = device.NewBufferFrom(d, []*int{nil})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	_, err = device.NewBufferFrom[float32](nil, []float32{1})
	require.ErrorIs(t, err, device.ErrInvalidArgument)

	var nilBuf *device.Buffer[float32]
	_, err = nilBuf.Read(context.Background())
	require.ErrorIs(t, err, device.ErrInvalidArgument)

	b, err := device.NewBufferFrom(d, []float32{1, 2})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = b.Read(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, b.Close())
	_, err = b.Read(context.Background())
	require.ErrorIs(t, err, device.ErrClosed)
}
