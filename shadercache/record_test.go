package shadercache

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRecordRoundTrip(t *testing.T) {
	for _, payload := range [][]byte{{}, {0x03, 0x02, 0x23, 0x07}, make([]byte, 65536)} {
		b := AppendRecord([]byte("kept"), RecordShader, "k", payload)
		require.Equal(t, "kept", string(b[:4]), "AppendRecord appends")
		b = b[4:]
		require.Len(t, b, headerSize+len("k")+len(payload))
		got, err := DecodeRecord(b, RecordShader, "k")
		require.NoError(t, err)
		require.Equal(t, payload, got)
	}
}

// TestRecordLayout pins the header: the entry layout under the magic "LREC",
// so that a record is never mistaken for a store entry or the reverse.
func TestRecordLayout(t *testing.T) {
	b := AppendRecord(nil, RecordPipelineCache, "id", []byte{9, 8, 7})
	require.Equal(t, "LREC", string(b[0:4]))
	require.Equal(t, uint16(1), binary.LittleEndian.Uint16(b[4:6]))
	require.Equal(t, byte(RecordPipelineCache), b[6])
	require.Equal(t, byte(0), b[7])
	require.Equal(t, uint32(2), binary.LittleEndian.Uint32(b[8:12]))
	require.Equal(t, uint64(3), binary.LittleEndian.Uint64(b[16:24]))
	require.Equal(t, "id", string(b[24:26]))
	require.Equal(t, []byte{9, 8, 7}, b[26:])
	_, err := decodeEntry(b, kindPipeline, "id")
	require.ErrorIs(t, err, errMagic, "a record is not a store entry")
}

func TestRecordRejects(t *testing.T) {
	good := AppendRecord(nil, RecordShader, "key", []byte("the words of a module"))
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name string
		b    []byte
		kind RecordKind
		key  string
		want string
	}{
		{"empty", nil, RecordShader, "key", "shorter than its header"},
		{"truncated", good[:len(good)-1], RecordShader, "key", "length"},
		{"extended", append(append([]byte(nil), good...), 0), RecordShader, "key", "length"},
		{"raw payload", []byte("the words of a module, no header"), RecordShader, "key", "magic"},
		{"store entry", encodeEntry(kindShader, "key", []byte("x")), RecordShader, "key", "magic"},
		{"future version", mutate(func(b []byte) []byte { b[4] = 2; return b }), RecordShader, "key", "version 2"},
		{"flipped payload bit", mutate(func(b []byte) []byte { b[len(b)-5] ^= 4; return b }), RecordShader, "key", "checksum"},
		{"flipped key bit", mutate(func(b []byte) []byte { b[headerSize] ^= 1; return b }), RecordShader, "key", "checksum"},
		{"another key", good, RecordShader, "kez", "another name"},
		{"another kind", good, RecordKernel, "key", "another kind"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := DecodeRecord(c.b, c.kind, c.key)
			require.ErrorIs(t, err, ErrBadRecord)
			require.ErrorContains(t, err, c.want)
			require.Nil(t, got)
		})
	}
}

// TestRecordEveryBitFlipDetected flips each bit of a small record in turn:
// none may decode.
func TestRecordEveryBitFlipDetected(t *testing.T) {
	good := AppendRecord(nil, RecordKernel, "saxpy", []byte{0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0, 9})
	for i := range len(good) * 8 {
		b := bytes.Clone(good)
		b[i/8] ^= 1 << (i % 8)
		_, err := DecodeRecord(b, RecordKernel, "saxpy")
		require.ErrorIs(t, err, ErrBadRecord, "bit %d", i)
	}
}

// FuzzDecodeRecord: random bytes never panic, and only the exact encoding of
// (kind, key, payload), checksum included, is accepted.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(AppendRecord(nil, RecordShader, "k", []byte("payload")), "k", uint8(RecordShader))
	f.Add(AppendRecord(nil, RecordPipelineCache, "", nil), "", uint8(RecordPipelineCache))
	f.Add([]byte("LREC\x01\x00\x01\x00"), "k", uint8(RecordShader))
	f.Add(encodeEntry(kindShader, "k", []byte("payload")), "k", uint8(RecordShader))
	f.Fuzz(func(t *testing.T, b []byte, key string, kind uint8) {
		payload, err := DecodeRecord(b, RecordKind(kind), key)
		if err != nil {
			require.ErrorIs(t, err, ErrBadRecord)
			require.Nil(t, payload)
			return
		}
		require.Equal(t, AppendRecord(nil, RecordKind(kind), key, payload), b)
	})
}
