package shadercache

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func testKernel() Kernel {
	return Kernel{
		SPIRV:     []uint32{spirvMagic, 0x00010600, 0x000d000b, 42, 0, 0x00020011, 1},
		Signature: "(Buffer[float32], Buffer[float32], float32)",
		ABI:       []byte{1, 0, 3, 'b', 'b', 'u'},
	}
}

func TestKernelRoundTrip(t *testing.T) {
	for sname, s := range stores(t) {
		t.Run(sname, func(t *testing.T) {
			k := testKernel()
			require.NoError(t, SaveKernel(s, "saxpy", k))
			got, ok, err := LoadKernel(s, "saxpy", k.Signature)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, k, got)

			_, ok, err = LoadKernel(s, "mandelbrot", k.Signature)
			require.NoError(t, err)
			require.False(t, ok, "a kernel never saved is a miss")

			empty := Kernel{SPIRV: []uint32{spirvMagic}}
			require.NoError(t, SaveKernel(s, "nothing", empty))
			got, ok, err = LoadKernel(s, "nothing", "")
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, empty.SPIRV, got.SPIRV)
			require.Empty(t, got.Signature)
			require.Empty(t, got.ABI)
		})
	}
}

func TestKernelSignatureMismatch(t *testing.T) {
	s := NewMemory()
	require.NoError(t, SaveKernel(s, "saxpy", testKernel()))
	_, ok, err := LoadKernel(s, "saxpy", "(Buffer[int32], Buffer[int32], int32)")
	require.ErrorIs(t, err, ErrSignatureMismatch)
	require.False(t, ok)
	msg := err.Error()
	require.Contains(t, msg, `"saxpy"`)
	require.Contains(t, msg, `"(Buffer[float32], Buffer[float32], float32)"`)
	require.Contains(t, msg, `"(Buffer[int32], Buffer[int32], int32)"`)
}

func TestKernelSaveRejects(t *testing.T) {
	cases := map[string]Kernel{
		"no words":          {Signature: "()"},
		"not SPIR-V":        {SPIRV: []uint32{0xdeadbeef}, Signature: "()"},
		"byte-swapped":      {SPIRV: []uint32{0x03022307}, Signature: "()"},
		"signature not UTF": {SPIRV: []uint32{spirvMagic}, Signature: "(\xff)"},
		"huge signature":    {SPIRV: []uint32{spirvMagic}, Signature: strings.Repeat("x", maxSignatureLen+1)},
	}
	for why, k := range cases {
		t.Run(why, func(t *testing.T) {
			err := SaveKernel(NewMemory(), "k", k)
			require.ErrorIs(t, err, ErrBadKernel)
			require.Contains(t, err.Error(), `"k"`)
		})
	}
	require.ErrorIs(t, SaveKernel(NewMemory(), "", testKernel()), ErrInvalidName)
}

func TestKernelLoadRejectsBadRecords(t *testing.T) {
	good, err := encodeKernel(testKernel())
	require.NoError(t, err)
	mutate := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := map[string][]byte{
		"raw SPIR-V":     binary.LittleEndian.AppendUint32(nil, spirvMagic),
		"empty":          {},
		"truncated":      good[:len(good)-1],
		"extended":       append(append([]byte(nil), good...), 0, 0, 0, 0),
		"future version": mutate(func(b []byte) []byte { b[4] = 2; return b }),
		"reserved set":   mutate(func(b []byte) []byte { b[6] = 1; return b }),
		"lying sig len":  mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 1<<31); return b }),
		"lying word cnt": mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[16:], 1<<30); return b }),
		"not SPIR-V":     mutate(func(b []byte) []byte { b[len(b)-4*7] ^= 1; return b }),
		"sig not UTF-8":  mutate(func(b []byte) []byte { b[kernelHeaderSize] = 0xff; return b }),
	}
	for why, b := range cases {
		t.Run(why, func(t *testing.T) {
			s := NewMemory()
			// Sealed in an intact record, so that the kernel decoder is what
			// must refuse the bytes.
			require.NoError(t, s.WriteBytecode("k", AppendRecord(nil, RecordKernel, "k", b)))
			_, ok, err := LoadKernel(s, "k", testKernel().Signature)
			require.ErrorIs(t, err, ErrBadKernel)
			require.False(t, ok)
			require.Contains(t, err.Error(), `"k"`)
		})
	}
}

// TestKernelRecordChecked: a store that checks nothing (a user's own
// BinaryIO) hands back bytes that are not the kernel saved under the name;
// the record's checksum and key refuse them all.
func TestKernelRecordChecked(t *testing.T) {
	s := NewMemory()
	require.NoError(t, SaveKernel(s, "saxpy", testKernel()))
	require.NoError(t, SaveKernel(s, "other", Kernel{SPIRV: []uint32{spirvMagic, 1, 2, 3, 0}, Signature: testKernel().Signature}))
	sealed, ok, err := s.ReadBytecode("saxpy")
	require.NoError(t, err)
	require.True(t, ok)
	bare, err := encodeKernel(testKernel())
	require.NoError(t, err)
	other, _, err := s.ReadBytecode("other")
	require.NoError(t, err)
	cases := map[string][]byte{
		"last word flipped": func() []byte { b := bytes.Clone(sealed); b[len(b)-4] ^= 1; return b }(),
		"truncated":         sealed[:len(sealed)-4],
		"no record":         bare,
		"another kernel's":  other,
	}
	for why, b := range cases {
		t.Run(why, func(t *testing.T) {
			require.NoError(t, s.WriteBytecode("saxpy", b))
			_, ok, err := LoadKernel(s, "saxpy", testKernel().Signature)
			require.ErrorIs(t, err, ErrBadKernel)
			require.ErrorIs(t, err, ErrBadRecord)
			require.ErrorContains(t, err, `"saxpy"`)
			require.False(t, ok)
		})
	}
}

// TestKernelDamagedOnDiskIsAMiss: in a Dir, damage is caught by the entry
// checksum before the kernel record is decoded.
func TestKernelDamagedOnDiskIsAMiss(t *testing.T) {
	d := newTestDir(t)
	require.NoError(t, SaveKernel(d, "saxpy", testKernel()))
	path := entryPath(d, accessors[0], "saxpy")
	corruptFile(t, path)
	_, ok, err := LoadKernel(d, "saxpy", testKernel().Signature)
	require.NoError(t, err)
	require.False(t, ok)
}

func FuzzDecodeKernel(f *testing.F) {
	good, err := encodeKernel(testKernel())
	require.NoError(f, err)
	f.Add(good)
	f.Add(good[:kernelHeaderSize])
	f.Add([]byte("LAOT"))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := decodeKernel(b)
		if err != nil {
			require.ErrorIs(t, err, ErrBadKernel)
			return
		}
		// Whatever decodes must encode back to the same bytes.
		again, err := encodeKernel(k)
		require.NoError(t, err)
		require.Equal(t, b, again)
	})
}
