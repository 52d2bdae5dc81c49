package shadercache

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

func encodeEntry(k kind, name string, payload []byte) []byte {
	return append(encodeHeader(k, name, payload), payload...)
}

func TestEntryRoundTrip(t *testing.T) {
	for _, payload := range [][]byte{{}, {0x03, 0x02, 0x23, 0x07}, make([]byte, 65536)} {
		b := encodeEntry(kindInternal, "fill", payload)
		require.Len(t, b, headerSize+len("fill")+len(payload))
		got, err := decodeEntry(b, kindInternal, "fill")
		require.NoError(t, err)
		require.Equal(t, payload, got)
	}
}

// TestEntryLayout pins the documented byte layout, so a change to it is a
// deliberate format-version bump.
func TestEntryLayout(t *testing.T) {
	b := encodeEntry(kindInternal, "fill", []byte{0x03, 0x02, 0x23, 0x07})
	require.Equal(t, "LCSC", string(b[0:4]))
	require.Equal(t, uint16(1), binary.LittleEndian.Uint16(b[4:6]))
	require.Equal(t, byte(kindInternal), b[6])
	require.Equal(t, byte(0), b[7])
	require.Equal(t, uint32(4), binary.LittleEndian.Uint32(b[8:12]))
	require.Equal(t, uint64(4), binary.LittleEndian.Uint64(b[16:24]))
	require.Equal(t, "fill", string(b[24:28]))
	require.Equal(t, []byte{0x03, 0x02, 0x23, 0x07}, b[28:])
}

func TestEntryRejects(t *testing.T) {
	good := encodeEntry(kindShader, "k", []byte("payload bytes"))
	mutate := func(f func(b []byte) []byte) []byte {
		return f(append([]byte(nil), good...))
	}
	cases := []struct {
		name string
		b    []byte
		k    kind
		key  string
		want error
	}{
		{"empty", nil, kindShader, "k", errShort},
		{"truncated header", good[:10], kindShader, "k", errShort},
		{"truncated payload", good[:len(good)-1], kindShader, "k", errLength},
		{"trailing bytes", append(append([]byte(nil), good...), 0), kindShader, "k", errLength},
		{"wrong magic", mutate(func(b []byte) []byte { b[0] = 'X'; return b }), kindShader, "k", errMagic},
		{"wrong version", mutate(func(b []byte) []byte { b[4] = 2; return b }), kindShader, "k", errVersion},
		{"reserved byte set", mutate(func(b []byte) []byte { b[7] = 1; return b }), kindShader, "k", errKind},
		{"flipped payload bit", mutate(func(b []byte) []byte { b[len(b)-3] ^= 0x10; return b }), kindShader, "k", errChecksum},
		{"flipped name bit", mutate(func(b []byte) []byte { b[headerSize] ^= 1; return b }), kindShader, "k", errChecksum},
		{"flipped checksum bit", mutate(func(b []byte) []byte { b[13] ^= 0x80; return b }), kindShader, "k", errChecksum},
		{"huge payload length", mutate(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[16:], 1<<62); return b }), kindShader, "k", errLength},
		{"other kind", good, kindInternal, "k", errKind},
		{"other name", good, kindShader, "j", errName},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := decodeEntry(c.b, c.k, c.key)
			require.ErrorIs(t, err, c.want)
			require.Nil(t, got)
		})
	}
}

// TestEntryEveryBitFlipDetected flips each bit of a small entry in turn:
// none may decode.
func TestEntryEveryBitFlipDetected(t *testing.T) {
	good := encodeEntry(kindBytecode, "saxpy", []byte{0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0, 9, 8, 7})
	for i := range len(good) * 8 {
		b := append([]byte(nil), good...)
		b[i/8] ^= 1 << (i % 8)
		_, err := decodeEntry(b, kindBytecode, "saxpy")
		require.Error(t, err, "bit %d", i)
	}
}

func FuzzDecodeEntry(f *testing.F) {
	f.Add(encodeEntry(kindShader, "k", []byte("payload")), "k")
	f.Add(encodeEntry(kindShader, "", nil), "")
	f.Add([]byte("LCSC\x01\x00\x02\x00"), "k")
	f.Fuzz(func(t *testing.T, b []byte, name string) {
		payload, err := decodeEntry(b, kindShader, name)
		if err != nil {
			require.Nil(t, payload)
			return
		}
		// Only the exact encoding of (kind, name, payload) decodes.
		require.Equal(t, encodeEntry(kindShader, name, payload), b)
	})
}
