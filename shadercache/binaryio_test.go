package shadercache

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// quiet is a logger that drops everything.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// accessor reads and writes one kind of entry through a BinaryIO, so one
// test body covers all four kinds.
type accessor struct {
	kind  kind
	read  func(BinaryIO, string) ([]byte, bool, error)
	write func(BinaryIO, string, []byte) error
}

func keyFor(s string) Key { return NewKey().AddString("test", s).Sum() }

func pipelineFor(s string) PipelineID {
	var id PipelineID
	copy(id.DeviceUUID[:], s)
	id.DriverVersion = uint32(len(s))
	return id
}

var accessors = []accessor{
	{kindBytecode,
		func(io BinaryIO, n string) ([]byte, bool, error) { return io.ReadBytecode(n) },
		func(io BinaryIO, n string, b []byte) error { return io.WriteBytecode(n, b) }},
	{kindShader,
		func(io BinaryIO, n string) ([]byte, bool, error) { return io.ReadShaderCache(keyFor(n)) },
		func(io BinaryIO, n string, b []byte) error { return io.WriteShaderCache(keyFor(n), b) }},
	{kindInternal,
		func(io BinaryIO, n string) ([]byte, bool, error) { return io.ReadInternal(n) },
		func(io BinaryIO, n string, b []byte) error { return io.WriteInternal(n, b) }},
	{kindPipeline,
		func(io BinaryIO, n string) ([]byte, bool, error) { return io.ReadPipelineCache(pipelineFor(n)) },
		func(io BinaryIO, n string, b []byte) error { return io.WritePipelineCache(pipelineFor(n), b) }},
}

// stores returns one fresh store of each implementation.
func stores(t *testing.T) map[string]interface {
	BinaryIO
	Stats() Stats
} {
	d, err := NewDir(t.TempDir(), WithLogger(quiet))
	require.NoError(t, err)
	return map[string]interface {
		BinaryIO
		Stats() Stats
	}{"dir": d, "memory": NewMemory(WithLogger(quiet))}
}

func payload(tag string, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ tag[i%len(tag)]
	}
	return b
}

func TestHitAndMiss(t *testing.T) {
	for sname, s := range stores(t) {
		for _, a := range accessors {
			t.Run(sname+"/"+a.kind.String(), func(t *testing.T) {
				before := s.Stats()
				got, ok, err := a.read(s, "saxpy")
				require.NoError(t, err)
				require.False(t, ok)
				require.Nil(t, got)

				want := payload(a.kind.String(), 4096)
				require.NoError(t, a.write(s, "saxpy", want))
				got, ok, err = a.read(s, "saxpy")
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, want, got)

				// The caller owns what it reads and what it wrote.
				got[0] ^= 0xff
				want[1] ^= 0xff
				again, ok, err := a.read(s, "saxpy")
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, payload(a.kind.String(), 4096), again)

				// Rewriting replaces.
				require.NoError(t, a.write(s, "saxpy", []byte("v2")))
				got, ok, err = a.read(s, "saxpy")
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, []byte("v2"), got)

				// An empty entry is a hit, not a miss.
				require.NoError(t, a.write(s, "empty", nil))
				got, ok, err = a.read(s, "empty")
				require.NoError(t, err)
				require.True(t, ok)
				require.NotNil(t, got)
				require.Empty(t, got)

				after := s.Stats()
				require.Equal(t, before.Misses+1, after.Misses)
				require.Equal(t, before.Hits+4, after.Hits)
				require.Equal(t, before.Writes+3, after.Writes)
			})
		}
	}
}

func TestKindsAreSeparate(t *testing.T) {
	for sname, s := range stores(t) {
		t.Run(sname, func(t *testing.T) {
			require.NoError(t, s.WriteBytecode("same", []byte("bytecode")))
			require.NoError(t, s.WriteInternal("same", []byte("internal")))
			got, ok, err := s.ReadBytecode("same")
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "bytecode", string(got))
			got, ok, err = s.ReadInternal("same")
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "internal", string(got))

			a := PipelineID{DeviceUUID: [16]byte{1}, DriverVersion: 7}
			b := PipelineID{DeviceUUID: [16]byte{1}, DriverVersion: 8}
			require.NoError(t, s.WritePipelineCache(a, []byte("driver 7")))
			_, ok, err = s.ReadPipelineCache(b)
			require.NoError(t, err)
			require.False(t, ok, "a new driver version must not see the old blob")
		})
	}
}

func TestClearKeepsBytecode(t *testing.T) {
	for sname, s := range stores(t) {
		t.Run(sname, func(t *testing.T) {
			for _, a := range accessors {
				require.NoError(t, a.write(s, "x", []byte(a.kind.String())))
			}
			require.NoError(t, s.Clear())
			for _, a := range accessors {
				got, ok, err := a.read(s, "x")
				require.NoError(t, err)
				require.Equal(t, !a.kind.regenerable(), ok, a.kind.String())
				if ok {
					require.Equal(t, a.kind.String(), string(got))
				}
			}
			// The store works after a Clear.
			require.NoError(t, s.WriteInternal("x", []byte("again")))
			got, ok, err := s.ReadInternal("x")
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "again", string(got))
		})
	}
}

func TestInvalidNames(t *testing.T) {
	bad := map[string]string{
		"empty":        "",
		"too long":     strings.Repeat("a", MaxNameLen+1),
		"not UTF-8":    "ker\xffnel",
		"NUL":          "a\x00b",
		"newline":      "a\nb",
		"escape":       "\x1b[31mred",
		"C1 control":   "a\u0085b",
		"DEL":          "a\x7fb",
		"tab":          "a\tb",
		"long + ctrl":  strings.Repeat("x", 100) + "\x00",
		"only newline": "\n",
	}
	all := map[string]BinaryIO{"disabled": Disabled}
	for n, s := range stores(t) {
		all[n] = s
	}
	for sname, s := range all {
		for why, name := range bad {
			t.Run(fmt.Sprintf("%s/%s", sname, why), func(t *testing.T) {
				for _, a := range accessors {
					if a.kind == kindShader || a.kind == kindPipeline {
						continue // their names are made by the package
					}
					err := a.write(s, name, []byte("x"))
					require.ErrorIs(t, err, ErrInvalidName)
					require.Contains(t, err.Error(), a.kind.String())
					got, ok, err := a.read(s, name)
					require.ErrorIs(t, err, ErrInvalidName)
					require.False(t, ok)
					require.Nil(t, got)
				}
			})
		}
	}
	// The longest valid name works.
	for sname, s := range stores(t) {
		long := strings.Repeat("é", MaxNameLen/2)
		require.NoError(t, s.WriteBytecode(long, []byte("ok")), sname)
		got, ok, err := s.ReadBytecode(long)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "ok", string(got))
	}
}

func TestDisabledStoresNothing(t *testing.T) {
	for _, a := range accessors {
		require.NoError(t, a.write(Disabled, "k", []byte("x")))
		got, ok, err := a.read(Disabled, "k")
		require.NoError(t, err)
		require.False(t, ok)
		require.Nil(t, got)
	}
	require.NoError(t, Disabled.Clear())
}

func TestLogsHitsAndMisses(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d, err := NewDir(t.TempDir(), WithLogger(logger))
	require.NoError(t, err)
	m := NewMemory(WithLogger(logger))
	for _, s := range []BinaryIO{d, m} {
		buf.Reset()
		_, _, err = s.ReadInternal("blit")
		require.NoError(t, err)
		require.NoError(t, s.WriteInternal("blit", []byte("abc")))
		_, _, err = s.ReadInternal("blit")
		require.NoError(t, err)
		out := buf.String()
		require.Contains(t, out, `level=DEBUG msg="shadercache: miss" kind=internal name=blit`)
		require.Contains(t, out, `level=DEBUG msg="shadercache: write" kind=internal name=blit bytes=3`)
		require.Contains(t, out, `level=DEBUG msg="shadercache: hit" kind=internal name=blit bytes=3`)
	}
}
