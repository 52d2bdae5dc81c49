package shadercache

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func testKernel() Kernel {
	return Kernel{
		Signature: "(Buffer[float32], Buffer[float32], float32)",
		ABI:       []byte{1, 0, 3, 'b', 'b', 'u'},
		IR:        []byte("the kernel, serialised"),
		Artefacts: []Artefact{
			{Backend: "metal", Data: []byte("a library")},
			{Backend: "vulkan", Data: []byte{0x03, 0x02, 0x23, 0x07, 0, 6, 1, 0}},
		},
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
			data, ok := got.Artefact("vulkan")
			require.True(t, ok)
			require.Equal(t, k.Artefacts[1].Data, data)
			_, ok = got.Artefact("cuda")
			require.False(t, ok)

			_, ok, err = LoadKernel(s, "mandelbrot", k.Signature)
			require.NoError(t, err)
			require.False(t, ok, "a kernel never saved is a miss")

			// The IR alone: no artefact, no ABI, no signature.
			bare := Kernel{IR: []byte{1}}
			require.NoError(t, SaveKernel(s, "nothing", bare))
			got, ok, err = LoadKernel(s, "nothing", "")
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, bare, got)
			_, ok = got.Artefact("vulkan")
			require.False(t, ok)
		})
	}
}

// TestKernelArtefactsSorted: artefacts given in any order are stored in one
// order, so a kernel has one encoding.
func TestKernelArtefactsSorted(t *testing.T) {
	k := testKernel()
	want, err := encodeKernel(k)
	require.NoError(t, err)
	k.Artefacts = []Artefact{k.Artefacts[1], k.Artefacts[0]}
	got, err := encodeKernel(k)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, "vulkan", k.Artefacts[0].Backend, "the caller's slice is left as it was")
	back, err := decodeKernel(got)
	require.NoError(t, err)
	require.Equal(t, testKernel().Artefacts, back.Artefacts)
}

// TestKernelWorkedExample holds the encoding to the example in aot.go's
// comment, byte for byte.
func TestKernelWorkedExample(t *testing.T) {
	b, err := encodeKernel(Kernel{
		Signature: "(Buffer[float32])", ABI: []byte{1, 7}, IR: []byte{0xaa, 0xbb, 0xcc},
		Artefacts: []Artefact{{Backend: "vulkan", Data: []byte{0x03, 0x02, 0x23, 0x07}}},
	})
	require.NoError(t, err)
	want := "4c414f54" + "0200" + "0000" + "11000000" + "02000000" + "03000000" + "01000000" +
		hex.EncodeToString([]byte("(Buffer[float32])")) + "0107" + "aabbcc" +
		"06000000" + "04000000" + hex.EncodeToString([]byte("vulkan")) + "03022307"
	require.Equal(t, want, hex.EncodeToString(b))
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
	ir := []byte{1}
	many := make([]Artefact, MaxArtefacts+1)
	for i := range many {
		many[i] = Artefact{Backend: fmt.Sprintf("b%02d", i)}
	}
	cases := map[string]struct {
		k    Kernel
		want string
	}{
		"no IR":             {Kernel{Signature: "()"}, "no IR"},
		"signature not UTF": {Kernel{IR: ir, Signature: "(\xff)"}, "not UTF-8"},
		"huge signature":    {Kernel{IR: ir, Signature: strings.Repeat("x", maxSignatureLen+1)}, "more than"},
		"unnamed artefact":  {Kernel{IR: ir, Artefacts: []Artefact{{Data: []byte{1}}}}, "no backend name"},
		"long name": {Kernel{IR: ir, Artefacts: []Artefact{{Backend: strings.Repeat("v", MaxBackendNameLen+1)}}},
			"more than 64"},
		"name not UTF-8":  {Kernel{IR: ir, Artefacts: []Artefact{{Backend: "vulk\xffan"}}}, "not UTF-8"},
		"control in name": {Kernel{IR: ir, Artefacts: []Artefact{{Backend: "vulkan\n"}}}, "control"},
		"repeated backend": {Kernel{IR: ir, Artefacts: []Artefact{{Backend: "vulkan", Data: []byte{1}}, {Backend: "cpu"}, {Backend: "vulkan"}}},
			`two artefacts for backend "vulkan"`},
		"too many artefacts": {Kernel{IR: ir, Artefacts: many}, "65 artefacts"},
	}
	for why, c := range cases {
		t.Run(why, func(t *testing.T) {
			err := SaveKernel(NewMemory(), "k", c.k)
			require.ErrorIs(t, err, ErrBadKernel)
			require.ErrorContains(t, err, `"k"`)
			require.ErrorContains(t, err, c.want)
		})
	}
	require.ErrorIs(t, SaveKernel(NewMemory(), "", testKernel()), ErrInvalidName)
}

// v1Record is a version 1 record as lucent stored it before records held
// the IR: the example of its layout, a signature, a blob and 5 SPIR-V words.
func v1Record() []byte {
	b := []byte("LAOT\x01\x00\x00\x00")
	b = binary.LittleEndian.AppendUint32(b, 17)
	b = binary.LittleEndian.AppendUint32(b, 2)
	b = binary.LittleEndian.AppendUint32(b, 5)
	b = append(b, "(Buffer[float32])\x01\x07"...)
	for _, w := range []uint32{0x07230203, 0x00010500, 0, 1, 0} {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

func TestKernelLoadRejectsBadRecords(t *testing.T) {
	good, err := encodeKernel(testKernel())
	require.NoError(t, err)
	mutate := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	sigLen := len(testKernel().Signature)
	irAt := kernelHeaderSize + sigLen + len(testKernel().ABI)
	firstArt := irAt + len(testKernel().IR)
	// The second artefact's header: after the first's header, name and data.
	secondArt := firstArt + artefactHeader + len("metal") + len("a library")
	cases := map[string]struct {
		b    []byte
		want string
	}{
		"raw SPIR-V":        {binary.LittleEndian.AppendUint32(nil, 0x07230203), "not a kernel record"},
		"empty":             {[]byte{}, "not a kernel record"},
		"header only":       {good[:8], "lengths"},
		"truncated":         {good[:len(good)-1], "lengths"},
		"extended":          {append(append([]byte(nil), good...), 0, 0, 0, 0), "lengths"},
		"version 1":         {v1Record(), "record version 1 holds SPIR-V only"},
		"future version":    {mutate(func(b []byte) []byte { b[4] = 3; return b }), "record version 3"},
		"reserved set":      {mutate(func(b []byte) []byte { b[6] = 1; return b }), "lengths"},
		"lying sig len":     {mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 1<<31); return b }), "lengths"},
		"lying IR len":      {mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[16:], 1<<30); return b }), "lengths"},
		"lying count":       {mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[20:], 3); return b }), "lengths"},
		"huge count":        {mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[20:], 1<<31); return b }), "lengths"},
		"fewer artefacts":   {mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[20:], 1); return b }), "lengths"},
		"lying name len":    {mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[firstArt:], 1<<20); return b }), "lengths"},
		"lying data len":    {mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[secondArt+4:], 1<<30); return b }), "lengths"},
		"sig not UTF-8":     {mutate(func(b []byte) []byte { b[kernelHeaderSize] = 0xff; return b }), "not UTF-8"},
		"name not UTF-8":    {mutate(func(b []byte) []byte { b[firstArt+artefactHeader] = 0xff; return b }), "not UTF-8"},
		"unsorted":          {mutate(func(b []byte) []byte { b[secondArt+artefactHeader] = 'a'; return b }), "not sorted"},
		"repeated backend":  {repeatedBackend(t), "repeated"},
		"no IR":             {noIR(t), "no IR"},
		"empty name":        {emptyName(t), "no backend name"},
		"control char name": {mutate(func(b []byte) []byte { b[firstArt+artefactHeader] = '\t'; return b }), "control"},
	}
	for why, c := range cases {
		t.Run(why, func(t *testing.T) {
			s := NewMemory()
			// Sealed in an intact record, so that the kernel decoder is what
			// must refuse the bytes.
			require.NoError(t, s.WriteBytecode("k", AppendRecord(nil, RecordKernel, "k", c.b)))
			_, ok, err := LoadKernel(s, "k", testKernel().Signature)
			require.ErrorIs(t, err, ErrBadKernel)
			require.False(t, ok)
			require.ErrorContains(t, err, `"k"`)
			require.ErrorContains(t, err, c.want)
		})
	}
	t.Run("version 1 says what to do", func(t *testing.T) {
		_, err := decodeKernel(v1Record())
		require.ErrorContains(t, err, "save the kernel again")
	})
}

// repeatedBackend is a record with two artefacts of one backend, which
// encodeKernel refuses to write.
func repeatedBackend(t *testing.T) []byte {
	k := testKernel()
	k.Artefacts[0].Backend = "vulkaa" // sorts first; then renamed to the second's name
	b, err := encodeKernel(k)
	require.NoError(t, err)
	at := kernelHeaderSize + len(k.Signature) + len(k.ABI) + len(k.IR) + artefactHeader
	copy(b[at:], "vulkan")
	return b
}

// noIR is a record with an empty IR.
func noIR(t *testing.T) []byte {
	k := testKernel()
	k.IR = []byte{1}
	b, err := encodeKernel(k)
	require.NoError(t, err)
	binary.LittleEndian.PutUint32(b[16:], 0)
	at := kernelHeaderSize + len(k.Signature) + len(k.ABI)
	return append(b[:at:at], b[at+1:]...)
}

// emptyName is a record with one artefact whose backend name is empty.
func emptyName(t *testing.T) []byte {
	k := Kernel{IR: []byte{1}, Artefacts: []Artefact{{Backend: "x", Data: []byte{2}}}}
	b, err := encodeKernel(k)
	require.NoError(t, err)
	at := kernelHeaderSize + 1
	binary.LittleEndian.PutUint32(b[at:], 0)
	return append(b[:at+artefactHeader:at+artefactHeader], b[at+artefactHeader+1:]...)
}

// TestKernelRecordChecked: a store that checks nothing (a user's own
// BinaryIO) hands back bytes that are not the kernel saved under the name;
// the record's checksum and key refuse them all.
func TestKernelRecordChecked(t *testing.T) {
	s := NewMemory()
	require.NoError(t, SaveKernel(s, "saxpy", testKernel()))
	other := testKernel()
	other.IR = []byte("another kernel")
	require.NoError(t, SaveKernel(s, "other", other))
	sealed, ok, err := s.ReadBytecode("saxpy")
	require.NoError(t, err)
	require.True(t, ok)
	bare, err := encodeKernel(testKernel())
	require.NoError(t, err)
	otherRec, _, err := s.ReadBytecode("other")
	require.NoError(t, err)
	cases := map[string][]byte{
		"last byte flipped": func() []byte { b := bytes.Clone(sealed); b[len(b)-1] ^= 1; return b }(),
		"truncated":         sealed[:len(sealed)-4],
		"no record":         bare,
		"another kernel's":  otherRec,
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

// TestKernelDamagedOnDisk: in a Dir, damage is caught by the entry checksum
// before the kernel record is decoded, and is an error naming the file, not
// a kernel that is not there: nothing can compile it again.
func TestKernelDamagedOnDisk(t *testing.T) {
	d := newTestDir(t)
	require.NoError(t, SaveKernel(d, "saxpy", testKernel()))
	path := entryPath(d, accessors[0], "saxpy")
	corruptFile(t, path)
	_, ok, err := LoadKernel(d, "saxpy", testKernel().Signature)
	require.ErrorIs(t, err, ErrBadKernel)
	require.ErrorIs(t, err, ErrBadRecord)
	require.ErrorContains(t, err, path)
	require.False(t, ok)
	require.Equal(t, Stats{Damaged: 1, Writes: 1}, d.Stats())
}

func FuzzDecodeKernel(f *testing.F) {
	good, err := encodeKernel(testKernel())
	require.NoError(f, err)
	f.Add(good)
	f.Add(good[:kernelHeaderSize])
	f.Add(v1Record())
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

// TestKernelTooLarge: a kernel whose record would pass MaxEntrySize is
// refused before anything is allocated for it (the artefacts here share one
// buffer, so the test itself stays small).
func TestKernelTooLarge(t *testing.T) {
	data := make([]byte, MaxEntrySize/MaxArtefacts+1)
	k := Kernel{IR: []byte{1}}
	for i := range MaxArtefacts {
		k.Artefacts = append(k.Artefacts, Artefact{Backend: fmt.Sprintf("b%02d", i), Data: data})
	}
	err := SaveKernel(NewMemory(), "k", k)
	require.ErrorIs(t, err, ErrTooLarge)
	require.ErrorContains(t, err, `"k"`)
}

// TestLoadKernelMatch: the caller's comparison decides which signatures
// match, and a refusal names both.
func TestLoadKernelMatch(t *testing.T) {
	s := NewMemory()
	k := testKernel()
	require.NoError(t, SaveKernel(s, "saxpy", k))
	var saw [2]string
	loose := func(want, stored string) bool {
		saw = [2]string{want, stored}
		return strings.EqualFold(want, stored)
	}
	got, ok, err := LoadKernelMatch(s, "saxpy", strings.ToUpper(k.Signature), loose)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, k, got)
	require.Equal(t, [2]string{strings.ToUpper(k.Signature), k.Signature}, saw)
	_, _, err = LoadKernelMatch(s, "saxpy", "(float32)", loose)
	require.ErrorIs(t, err, ErrSignatureMismatch)
	require.ErrorContains(t, err, `stored signature "(Buffer[float32], Buffer[float32], float32)", expected "(float32)"`)
}
