//go:build unix

package device_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/shadercache"
)

// TestShaderCacheFIFOEntry: a FIFO planted at a directory store's entry path
// is a miss, and Compile returns promptly instead of waiting for a writer.
func TestShaderCacheFIFOEntry(t *testing.T) {
	root := t.TempDir()
	open := func() *device.Device {
		store, err := shadercache.NewDir(root, shadercache.WithLogger(slog.New(slog.DiscardHandler)))
		require.NoError(t, err)
		return openVulkan(t, device.WithShaderCache(store))
	}
	k1 := compileK(t, open(), scaleKernel(t, 7))
	files, err := filepath.Glob(filepath.Join(root, "shader", "*"))
	require.NoError(t, err)
	require.Len(t, files, 1, "one shader entry")
	require.NoError(t, os.Remove(files[0]))
	require.NoError(t, syscall.Mkfifo(files[0], 0o644))

	d := open()
	type result struct {
		k   *device.Kernel
		err error
	}
	done := make(chan result, 1)
	go func() {
		k, err := device.Compile(d, scaleKernel(t, 7))
		done <- result{k, err}
	}()
	var k2 *device.Kernel
	select {
	case r := <-done:
		require.NoError(t, r.err)
		k2 = r.k
	case <-time.After(30 * time.Second):
		t.Fatal("Compile blocked on a FIFO at the cache entry's path")
	}
	defer func() { require.NoError(t, k2.Close()) }()
	require.False(t, k2.CacheHit)
	require.Equal(t, k1.SPIRV(), k2.SPIRV())
	checkScale(t, d, k2, 7, 2)
	st, err := os.Lstat(files[0])
	require.NoError(t, err)
	require.True(t, st.Mode().IsRegular(), "the entry was rewritten over the FIFO")
}
