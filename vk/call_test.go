//go:build linux

package vk

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/stretchr/testify/require"
)

// TestCallArguments drives the call path with libc's snprintf, which reads
// every argument back into text: arguments 1-6 travel in registers and the
// rest on the stack, for every arity the generated commands use.
func TestCallArguments(t *testing.T) {
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	testenv.Need(t, "libc.so.6", err)
	snprintf, err := purego.Dlsym(libc, "snprintf")
	require.NoError(t, err)

	buf := make([]byte, 256)
	p := uintptr(unsafe.Pointer(&buf[0]))
	format := func(n int) *byte {
		f := ""
		for i := 0; i < n; i++ {
			f += "%ld "
		}
		return CString(f)
	}
	check := func(t *testing.T, n int32, vals ...int) {
		want := ""
		for _, v := range vals {
			want += fmt.Sprint(v) + " "
		}
		require.Equal(t, int32(len(want)), n)
		require.Equal(t, want, ByteString(buf))
	}
	t.Run("registers", func(t *testing.T) {
		f := format(3)
		check(t, call6(snprintf, p, 256, uintptr(unsafe.Pointer(f)), 11, 22, 33), 11, 22, 33)
	})
	t.Run("stack", func(t *testing.T) {
		f := format(7)
		check(t, call10(snprintf, p, 256, uintptr(unsafe.Pointer(f)), 1, 2, 3, 4, 5, 6, 7), 1, 2, 3, 4, 5, 6, 7)
	})
	t.Run("odd stack", func(t *testing.T) {
		f := format(12)
		check(t, call15(snprintf, p, 256, uintptr(unsafe.Pointer(f)), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1<<40),
			1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1<<40)
	})
	t.Run("batch", func(t *testing.T) {
		bufs := make([][]byte, 3)
		frames := make([]callFrame, 3)
		f := format(8)
		for i := range frames {
			bufs[i] = make([]byte, 64)
			frames[i] = callFrame{fn: snprintf, n: 11}
			frames[i].a[0] = uintptr(unsafe.Pointer(&bufs[i][0]))
			frames[i].a[1] = 64
			frames[i].a[2] = uintptr(unsafe.Pointer(f))
			for j := 0; j < 8; j++ {
				frames[i].a[3+j] = uintptr(10*i + j)
			}
		}
		invokeAll(frames)
		for i := range frames {
			want := ""
			for j := 0; j < 8; j++ {
				want += fmt.Sprint(10*i+j) + " "
			}
			require.Equal(t, want, ByteString(bufs[i]))
		}
		// bufs and f are used after the call, so they stayed alive during it.
		require.NotNil(t, f)
	})
}

// TestBatchCheckedFrames: a checked frame whose result is negative (an
// error VkResult) stops the batch there; the frames after it are not called,
// and invokeAll reports which frame failed and its result. A checked frame
// with a result of 0 or above (a status) and unchecked frames, whatever they
// return, let the batch go on.
func TestBatchCheckedFrames(t *testing.T) {
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	testenv.Need(t, "libc.so.6", err)
	snprintf, err := purego.Dlsym(libc, "snprintf")
	require.NoError(t, err)
	atoi, err := purego.Dlsym(libc, "atoi")
	require.NoError(t, err)
	bufs := make([][]byte, 3)
	for i := range bufs {
		bufs[i] = make([]byte, 16)
	}
	text := CString("written")
	print := func(i int) callFrame {
		f := callFrame{fn: snprintf, n: 3}
		f.a[0], f.a[1], f.a[2] = uintptr(unsafe.Pointer(&bufs[i][0])), 16, uintptr(unsafe.Pointer(text))
		return f
	}
	number := func(s string, checked bool) callFrame {
		f := callFrame{fn: atoi, n: 1}
		if checked {
			f.n |= frameChecked
		}
		f.a[0] = uintptr(unsafe.Pointer(CString(s)))
		return f
	}
	frames := []callFrame{print(0), number("-7", false), number("3", true), number("-5", true), print(1)}
	failed, r := invokeAll(frames)
	require.Equal(t, 3, failed, "the first checked frame with a negative result")
	require.Equal(t, Result(-5), r)
	require.Equal(t, "written", ByteString(bufs[0]))
	require.Equal(t, "", ByteString(bufs[1]), "a frame after the failure was called")

	failed, r = invokeAll([]callFrame{number("3", true), print(2)})
	require.Equal(t, -1, failed)
	require.Equal(t, SUCCESS, r)
	require.Equal(t, "written", ByteString(bufs[2]))
	require.NotNil(t, text)
}

// TestBatchFlushError: a queued command returning VkResult that fails makes
// Flush return its result, named, and empties the batch. libc's atoi stands
// in for vkBeginCommandBuffer: it returns the number its first argument
// spells, so a "command buffer" spelling -3 fails with -3.
func TestBatchFlushError(t *testing.T) {
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	testenv.Need(t, "libc.so.6", err)
	atoi, err := purego.Dlsym(libc, "atoi")
	require.NoError(t, err)
	dt := &DeviceFuncs{}
	dt.fn[cmdBeginCommandBuffer-deviceBase] = atoi
	b := dt.NewCommandBatch()
	fail, ok := CString("-3"), CString("0")
	require.NoError(t, b.BeginCommandBuffer(CommandBuffer(unsafe.Pointer(ok)), nil))
	require.NoError(t, b.BeginCommandBuffer(CommandBuffer(unsafe.Pointer(fail)), nil))
	err = b.Flush()
	require.ErrorIs(t, err, Result(-3))
	require.ErrorContains(t, err, "vkBeginCommandBuffer (call 2 of 2")
	require.Zero(t, b.Len())
	require.NoError(t, b.Flush())
	require.NotNil(t, fail)
	require.NotNil(t, ok)
}
