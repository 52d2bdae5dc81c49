package kernel_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/kernel"
)

// TestHostSlice: a buffer's bytes viewed as the kernel's slice share the
// memory; bytes that are not whole aligned elements, or a type that is not
// plain data, are errors.
func TestHostSlice(t *testing.T) {
	mem := make([]uint64, 4) // 8-byte aligned, as a backend's buffers are
	b := unsafe.Slice((*byte)(unsafe.Pointer(&mem[0])), 32)
	f, err := kernel.HostSlice[float32](b)
	require.NoError(t, err)
	require.Len(t, f, 8)
	f[1] = 1.5
	require.Equal(t, uint64(0x3fc00000)<<32, mem[0], "a view, not a copy")

	v, err := kernel.HostSlice[kernel.Float4](b)
	require.NoError(t, err)
	require.Len(t, v, 2)
	require.Equal(t, float32(1.5), v[0].Y)

	_, err = kernel.HostSlice[float32](b[:30])
	require.ErrorIs(t, err, kernel.ErrHostArgument)
	_, err = kernel.HostSlice[uint32](b[2:6])
	require.ErrorIs(t, err, kernel.ErrHostArgument, "misaligned")
	_, err = kernel.HostSlice[*int](b)
	require.ErrorIs(t, err, kernel.ErrHostArgument, "pointers")
	_, err = kernel.HostSlice[bool](b)
	require.ErrorIs(t, err, kernel.ErrHostArgument, "bools")

	x, err := kernel.HostValue[float32](b[4:8])
	require.NoError(t, err)
	require.Equal(t, float32(1.5), x)
	_, err = kernel.HostValue[float32](b[:8])
	require.ErrorIs(t, err, kernel.ErrHostArgument)
}
