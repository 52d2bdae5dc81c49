//go:build unix

package shadercache

import (
	"bytes"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNonRegularEntryIsAMiss plants something other than a regular file at
// an entry's path. The read is a miss, logged with the reason, and returns at
// once: a FIFO with no writer must not block it.
func TestNonRegularEntryIsAMiss(t *testing.T) {
	plant := map[string]func(t *testing.T, path string){
		"fifo": func(t *testing.T, path string) { require.NoError(t, syscall.Mkfifo(path, 0o644)) },
		"directory": func(t *testing.T, path string) {
			require.NoError(t, os.Mkdir(path, 0o755))
		},
		"symlink to a fifo": func(t *testing.T, path string) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o644))
			require.NoError(t, os.Symlink(fifo, path))
		},
		"symlink to a directory": func(t *testing.T, path string) {
			require.NoError(t, os.Symlink(t.TempDir(), path))
		},
		"symlink to a valid entry": func(t *testing.T, path string) {
			// The entry's own bytes, moved elsewhere: entries are files
			// the store renamed into place, never links.
			moved := filepath.Join(t.TempDir(), "entry")
			require.NoError(t, os.WriteFile(moved, encodeEntry(kindShader, keyFor("k").String(), []byte("v")), 0o644))
			require.NoError(t, os.Symlink(moved, path))
		},
		"device node": func(t *testing.T, path string) {
			// /dev/null's numbers (1, 3): a character device that reads as empty.
			if err := syscall.Mknod(path, syscall.S_IFCHR|0o644, 1<<8|3); err != nil {
				t.Skipf("cannot make a device node here: %v", err)
			}
		},
	}
	for what, f := range plant {
		t.Run(what, func(t *testing.T) {
			var logs bytes.Buffer
			d, err := NewDir(t.TempDir(), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			require.NoError(t, err)
			path := entryPath(d, accessors[1], "k")
			f(t, path)

			type result struct {
				got []byte
				ok  bool
				err error
			}
			done := make(chan result, 1)
			go func() {
				got, ok, err := d.ReadShaderCache(keyFor("k"))
				done <- result{got, ok, err}
			}()
			select {
			case r := <-done:
				require.NoError(t, r.err)
				require.False(t, r.ok)
				require.Nil(t, r.got)
			case <-time.After(5 * time.Second):
				t.Fatalf("a read of a %s at the entry path did not return", what)
			}
			require.Equal(t, Stats{Misses: 1, Damaged: 1}, d.Stats())
			require.Contains(t, logs.String(), "not a regular file")
			require.Contains(t, logs.String(), path)

			// A write replaces what is there when it can, and the entry then reads back.
			if err := d.WriteShaderCache(keyFor("k"), []byte("v2")); err == nil {
				got, ok, err := d.ReadShaderCache(keyFor("k"))
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, "v2", string(got))
			}
		})
	}
}

// TestUnsafeDirectoryWarns: a store whose directory other users may write
// to warns, naming the directory and why, and is still used.
func TestUnsafeDirectoryWarns(t *testing.T) {
	cases := map[string]struct {
		setup func(t *testing.T, root string) string // returns the directory the warning must name
		why   string                                 // "" when there must be no warning
	}{
		"private": {func(t *testing.T, root string) string { return root }, ""},
		"world-writable": {func(t *testing.T, root string) string {
			require.NoError(t, os.Chmod(root, 0o777))
			return root
		}, "world-writable without the sticky bit"},
		"world-writable with sticky bit": {func(t *testing.T, root string) string {
			require.NoError(t, os.Chmod(root, 0o777|os.ModeSticky))
			return root
		}, ""},
		"world-writable kind directory": {func(t *testing.T, root string) string {
			sub := filepath.Join(root, "shader")
			require.NoError(t, os.Mkdir(sub, 0o755))
			require.NoError(t, os.Chmod(sub, 0o777))
			return sub
		}, "world-writable without the sticky bit"},
		"another owner": {func(t *testing.T, root string) string {
			if os.Geteuid() != 0 {
				t.Skip("giving a directory away needs root")
			}
			require.NoError(t, os.Chown(root, 65534, 65534))
			return root
		}, "owned by uid 65534"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "cache")
			require.NoError(t, os.Mkdir(root, 0o755))
			named := c.setup(t, root)
			var logs bytes.Buffer
			d, err := NewDir(root, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			require.NoError(t, err)
			out := logs.String()
			if c.why == "" {
				require.NotContains(t, out, "unsafe")
			} else {
				require.Equal(t, 1, strings.Count(out, "level=WARN"), out)
				require.Contains(t, out, "unsafe cache directory")
				require.Contains(t, out, "dir="+named+" ")
				require.Contains(t, out, c.why)
			}
			// Still a working store.
			require.NoError(t, d.WriteInternal("k", []byte("v")))
			got, ok, err := d.ReadInternal("k")
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "v", string(got))
		})
	}
}

func TestDirTrust(t *testing.T) {
	const me = 1000
	cases := []struct {
		mode fs.FileMode
		uid  uint32
		want string
	}{
		{0o755, me, ""},
		{0o775, me, ""},
		{0o700, 0, ""}, // root's: shipped read-only directories are
		{0o777 | fs.ModeSticky, me, ""},
		{0o777, me, "world-writable without the sticky bit (mode 0777)"},
		{0o757, 0, "world-writable without the sticky bit (mode 0757)"},
		{0o755, 1001, "owned by uid 1001, not by this user (uid 1000) or root"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, dirTrust(fs.ModeDir|c.mode, c.uid, me), "mode %v uid %d", c.mode, c.uid)
	}
}
