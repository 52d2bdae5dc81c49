package shadercache

import (
	"bytes"
	"encoding/binary"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func newTestDir(t *testing.T, opts ...Option) *Dir {
	t.Helper()
	d, err := NewDir(t.TempDir(), append([]Option{WithLogger(quiet)}, opts...)...)
	require.NoError(t, err)
	return d
}

// entryPath is the file that holds the entry a reads and writes as name.
func entryPath(d *Dir, a accessor, name string) string {
	switch a.kind {
	case kindShader:
		name = keyFor(name).String()
	case kindPipeline:
		name = pipelineFor(name).String()
	}
	return filepath.Join(d.Path(), a.kind.String(), fileName(a.kind, name))
}

// TestCorruptionIsAMiss damages an entry on disk in each way a file can be
// damaged: the read is a miss (never wrong bytes; for bytecode, which
// nothing compiles again, an error naming the file), counted as damaged,
// and rewriting the entry heals it.
func TestCorruptionIsAMiss(t *testing.T) {
	damage := map[string]func(b []byte) []byte{
		"truncated to nothing":   func(b []byte) []byte { return nil },
		"truncated header":       func(b []byte) []byte { return b[:headerSize/2] },
		"truncated payload":      func(b []byte) []byte { return b[:len(b)-100] },
		"extended":               func(b []byte) []byte { return append(b, 0, 0, 0, 0) },
		"flipped payload byte":   func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b },
		"flipped last byte":      func(b []byte) []byte { b[len(b)-1]++; return b },
		"zeroed payload page":    func(b []byte) []byte { clear(b[len(b)-4096:]); return b },
		"wrong format version":   func(b []byte) []byte { binary.LittleEndian.PutUint16(b[4:], entryVersion+1); return b },
		"wrong magic":            func(b []byte) []byte { copy(b, "SPV\x07"); return b },
		"raw payload, no header": func(b []byte) []byte { return b[len(b)-8192:] },
		"length field lies":      func(b []byte) []byte { binary.LittleEndian.PutUint64(b[16:], 1<<40); return b },
	}
	for _, a := range accessors {
		for why, f := range damage {
			t.Run(a.kind.String()+"/"+why, func(t *testing.T) {
				d := newTestDir(t)
				want := payload(why, 16384)
				require.NoError(t, a.write(d, "k", want))
				path := entryPath(d, a, "k")
				b, err := os.ReadFile(path)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(path, f(b), 0o644))

				got, ok, err := a.read(d, "k")
				if a.kind == kindBytecode {
					require.ErrorIs(t, err, ErrBadRecord)
					require.ErrorContains(t, err, path)
				} else {
					require.NoError(t, err)
					require.Equal(t, uint64(1), d.Stats().Misses)
				}
				require.False(t, ok)
				require.Nil(t, got)
				require.Equal(t, uint64(1), d.Stats().Damaged)

				require.NoError(t, a.write(d, "k", want))
				got, ok, err = a.read(d, "k")
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, want, got)
			})
		}
	}
}

// TestMisplacedEntryIsAMiss copies a valid entry over another name's file:
// the stored name does not match, so it must not be returned (bytecode: an
// error).
func TestMisplacedEntryIsAMiss(t *testing.T) {
	for _, a := range accessors {
		t.Run(a.kind.String(), func(t *testing.T) {
			d := newTestDir(t)
			require.NoError(t, a.write(d, "a", []byte("A")))
			b, err := os.ReadFile(entryPath(d, a, "a"))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(entryPath(d, a, "b"), b, 0o644))
			got, ok, err := a.read(d, "b")
			if a.kind == kindBytecode {
				require.ErrorIs(t, err, ErrBadRecord)
				require.ErrorContains(t, err, "another name")
			} else {
				require.NoError(t, err)
			}
			require.False(t, ok)
			require.Nil(t, got)
			require.Equal(t, uint64(1), d.Stats().Damaged)
		})
	}
}

// TestNamesStayInside writes names that would escape the directory if they
// were used as paths: every file created lies in the kind's subdirectory,
// and each name reads back its own data.
func TestNamesStayInside(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "cache")
	d, err := NewDir(root, WithLogger(quiet))
	require.NoError(t, err)
	names := []string{
		"../escape", "../../../../../../tmp/escape", "/etc/passwd", "..", ".", "a/../../b",
		`..\..\windows`, "C:\\x", "~/x", "$HOME", "a/b/c", ".hidden", ".tmp-1-1", "con", "NUL", "*",
		strings.Repeat("../", 300),
	}
	for i, n := range names {
		require.NoError(t, d.WriteBytecode(n, []byte{byte(i)}), n)
		require.NoError(t, d.WriteInternal(n, []byte{byte(i), 1}), n)
	}
	for i, n := range names {
		got, ok, err := d.ReadBytecode(n)
		require.NoError(t, err)
		require.True(t, ok, n)
		require.Equal(t, []byte{byte(i)}, got, n)
		got, ok, err = d.ReadInternal(n)
		require.NoError(t, err)
		require.True(t, ok, n)
		require.Equal(t, []byte{byte(i), 1}, got, n)
	}
	// Only the store's directory exists beside nothing else, and it holds
	// exactly one flat file per entry.
	top, err := os.ReadDir(parent)
	require.NoError(t, err)
	require.Len(t, top, 1)
	var files []string
	require.NoError(t, filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		require.NoError(t, err)
		if !e.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, rel)
			require.True(t, isEntryName(e.Name()), rel)
		}
		return nil
	}))
	require.Len(t, files, 2*len(names))
	for _, f := range files {
		dir := filepath.Dir(f)
		require.Contains(t, []string{"bytecode", "internal"}, dir)
	}
}

func TestDirRecreatedAfterRemoval(t *testing.T) {
	d := newTestDir(t)
	require.NoError(t, d.WriteInternal("a", []byte("1")))
	require.NoError(t, os.RemoveAll(d.Path()))
	got, ok, err := d.ReadInternal("a")
	require.NoError(t, err)
	require.False(t, ok)
	require.Nil(t, got)
	require.NoError(t, d.WriteInternal("a", []byte("2")))
	got, ok, err = d.ReadInternal("a")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "2", string(got))
}

func TestDirErrors(t *testing.T) {
	t.Run("empty path", func(t *testing.T) {
		_, err := NewDir("")
		require.ErrorContains(t, err, "empty path")
	})
	t.Run("path is a file", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "file")
		require.NoError(t, os.WriteFile(f, nil, 0o644))
		_, err := NewDir(f)
		require.Error(t, err)
		require.Contains(t, err.Error(), f)
	})
	t.Run("entry is a directory", func(t *testing.T) {
		d := newTestDir(t)
		require.NoError(t, os.Mkdir(entryPath(d, accessors[0], "x"), 0o755))
		// Reading it is a miss (TestNonRegularEntryIsAMiss); replacing it fails.
		_, ok, err := d.ReadBytecode("x")
		require.NoError(t, err)
		require.False(t, ok)
		err = d.WriteBytecode("x", []byte("y"))
		require.Error(t, err)
		require.Contains(t, err.Error(), `bytecode "x"`)
		// The failed write left no temporary file behind.
		ents, err := os.ReadDir(filepath.Join(d.Path(), "bytecode"))
		require.NoError(t, err)
		require.Len(t, ents, 1)
	})
	t.Run("read-only directory", func(t *testing.T) {
		d := newTestDir(t)
		require.NoError(t, d.WriteInternal("a", []byte("1")))
		dir := filepath.Join(d.Path(), "internal")
		require.NoError(t, os.Chmod(dir, 0o555))
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		got, ok, err := d.ReadInternal("a")
		require.NoError(t, err)
		require.True(t, ok, "reads work in a read-only directory")
		require.Equal(t, "1", string(got))
		if runtime.GOOS != "windows" && os.Geteuid() != 0 {
			// Permission bits bind neither root nor Windows.
			require.Error(t, d.WriteInternal("b", []byte("2")))
		}
	})
	t.Run("read-only bundle without subdirectories", func(t *testing.T) {
		root := t.TempDir()
		d, err := NewDir(root, WithLogger(quiet))
		require.NoError(t, err)
		require.NoError(t, d.WriteBytecode("saxpy", []byte("spirv")))
		for _, k := range kinds {
			if k != kindBytecode {
				require.NoError(t, os.Remove(filepath.Join(root, k.String())))
			}
		}
		require.NoError(t, os.Chmod(root, 0o555))
		t.Cleanup(func() { os.Chmod(root, 0o755) })
		ro, err := NewDir(root, WithLogger(quiet))
		require.NoError(t, err)
		got, ok, err := ro.ReadBytecode("saxpy")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "spirv", string(got))
		_, ok, err = ro.ReadShaderCache(keyFor("x"))
		require.NoError(t, err)
		require.False(t, ok)
		require.NoError(t, ro.Clear())
	})
	t.Run("entry larger than the cap", func(t *testing.T) {
		d := newTestDir(t, WithMaxSize(1000))
		err := d.WriteInternal("big", make([]byte, 2000))
		require.ErrorIs(t, err, ErrTooLarge)
		require.Contains(t, err.Error(), `internal "big"`)
		// Bytecode is not capped.
		require.NoError(t, d.WriteBytecode("big", make([]byte, 2000)))
		m := NewMemory(WithMaxSize(1000))
		require.ErrorIs(t, m.WriteInternal("big", make([]byte, 2000)), ErrTooLarge)
	})
}

func TestStaleTempFilesRemoved(t *testing.T) {
	d := newTestDir(t, WithMaxSize(1<<20))
	dir := filepath.Join(d.Path(), "shader")
	stale := filepath.Join(dir, tempPrefix+"99999-1")
	fresh := filepath.Join(dir, tempPrefix+"99999-2")
	foreign := filepath.Join(dir, "README")
	for _, p := range []string{stale, fresh, foreign} {
		require.NoError(t, os.WriteFile(p, []byte("partial"), 0o644))
	}
	old := time.Now().Add(-2 * staleTemp)
	require.NoError(t, os.Chtimes(stale, old, old))
	require.NoError(t, d.Clear())
	require.NoFileExists(t, stale)
	require.FileExists(t, fresh, "a live writer's temporary file must survive")
	require.FileExists(t, foreign, "files the store did not make are left alone")
}

func TestDefault(t *testing.T) {
	t.Run("off", func(t *testing.T) {
		t.Setenv(EnvVar, "off")
		s, err := Default()
		require.NoError(t, err)
		require.Equal(t, Disabled, s)
	})
	t.Run("path", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "c")
		t.Setenv(EnvVar, p)
		s, err := Default(WithLogger(quiet))
		require.NoError(t, err)
		require.IsType(t, &Dir{}, s)
		require.Equal(t, p, s.(*Dir).Path())
		require.DirExists(t, filepath.Join(p, "shader"))
	})
	t.Run("user cache dir", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv(EnvVar, "")
		t.Setenv("XDG_CACHE_HOME", home)
		t.Setenv("HOME", home)
		t.Setenv("LocalAppData", home)
		want, err := DefaultDir()
		require.NoError(t, err)
		require.Equal(t, "lucent", filepath.Base(want))
		s, err := Default(WithLogger(quiet))
		require.NoError(t, err)
		require.Equal(t, want, s.(*Dir).Path())
	})
	// A file where a directory must go: mkdir fails even for root.
	blocked := func(t *testing.T) string {
		f := filepath.Join(t.TempDir(), "file")
		require.NoError(t, os.WriteFile(f, nil, 0o644))
		return filepath.Join(f, "cache")
	}
	t.Run("user cache dir unusable", func(t *testing.T) {
		home := blocked(t)
		t.Setenv(EnvVar, "")
		t.Setenv("XDG_CACHE_HOME", home)
		t.Setenv("HOME", home)
		t.Setenv("LocalAppData", home)
		var log bytes.Buffer
		s, err := Default(WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		require.NoError(t, err, "the per-user default is optional: a program runs without it")
		require.Equal(t, Disabled, s)
		require.Contains(t, log.String(), "level=WARN")
		require.Contains(t, log.String(), "caching is off")
		require.Contains(t, log.String(), filepath.Join(home, "lucent"), "the warning names the directory")
	})
	t.Run("no home", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("os.UserCacheDir reads other variables here")
		}
		t.Setenv(EnvVar, "")
		t.Setenv("XDG_CACHE_HOME", "")
		t.Setenv("HOME", "")
		var log bytes.Buffer
		s, err := Default(WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		require.NoError(t, err)
		require.Equal(t, Disabled, s)
		require.Contains(t, log.String(), "caching is off")
	})
	t.Run("env dir unusable", func(t *testing.T) {
		p := blocked(t)
		t.Setenv(EnvVar, p)
		s, err := Default(WithLogger(quiet))
		require.Error(t, err, "a directory the user named must work")
		require.Nil(t, s)
		require.Contains(t, err.Error(), EnvVar+"="+p)
	})
}

// corruptFile flips one bit in the middle of a file.
func corruptFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[len(b)/2] ^= 0x20
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// TestOversizedFileIsAMiss plants a sparse file larger than any valid
// entry: the read is a miss and does not allocate the file's size.
func TestOversizedFileIsAMiss(t *testing.T) {
	d := newTestDir(t)
	require.NoError(t, d.WriteInternal("big", []byte("x")))
	path := entryPath(d, accessors[2], "big")
	require.NoError(t, os.Truncate(path, headerSize+MaxNameLen+MaxEntrySize+1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, ok, err := d.ReadInternal("big")
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.False(t, ok)
	require.Nil(t, got)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20))
	require.Equal(t, uint64(1), d.Stats().Damaged)
}

// TestTempNameTaken: a temporary file left by a dead process that had the
// same pid does not block writes.
func TestTempNameTaken(t *testing.T) {
	d := newTestDir(t)
	seq := d.tmpSeq.Load()
	left := filepath.Join(d.Path(), "internal", tempPrefix+pid+"-"+strconv.FormatUint(seq+1, 36))
	require.NoError(t, os.WriteFile(left, []byte("left over"), 0o644))
	require.NoError(t, d.WriteInternal("k", []byte("v")))
	got, ok, err := d.ReadInternal("k")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "v", string(got))
	require.FileExists(t, left)
}
