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
