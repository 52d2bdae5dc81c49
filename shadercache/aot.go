package shadercache

// An ahead-of-time kernel is stored as bytecode: one record holding the
// SPIR-V words, the kernel's signature as text, and the caller's opaque
// signature blob. Worked example: a kernel with signature "(Buffer[float32])",
// a 2-byte blob 01 07 and the 5 words of a SPIR-V header is
//
//	4c 41 4f 54   magic "LAOT"
//	01 00         record version 1 (little-endian)
//	00 00         reserved, zero
//	11 00 00 00   signature length 17
//	02 00 00 00   blob length 2
//	05 00 00 00   word count 5
//	"(Buffer[float32])" 01 07
//	03 02 23 07 …  the words, little-endian
//
// The record is sealed in a RecordKernel record (record.go) keyed by the
// kernel's name, so bytes from a store that checks nothing (a user's own
// BinaryIO, a hand-copied file) are refused when damaged, truncated or saved
// under another name; decodeKernel still checks every length, so an intact
// record that is not a kernel is rejected, never misread.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Kernel is a compiled kernel as the ahead-of-time path stores it.
type Kernel struct {
	// SPIRV is the module's words. The first must be the SPIR-V magic number.
	SPIRV []uint32
	// Signature is the kernel's argument signature as text, the form the
	// loader compares and error messages show, e.g.
	// "(Buffer[float32], Buffer[float32], float32)".
	Signature string
	// ABI is the caller's own encoding of the signature (the device
	// runtime's argument signature), opaque to this package and versioned by
	// its owner.
	ABI []byte
}

// ErrSignatureMismatch is wrapped by the error [LoadKernel] returns when the
// stored kernel's signature is not the one the caller expects.
var ErrSignatureMismatch = errors.New("kernel signature mismatch")

// ErrBadKernel is wrapped by errors about a kernel that cannot be stored
// (no SPIR-V, a signature that is not UTF-8) or a stored record that does
// not decode.
var ErrBadKernel = errors.New("bad kernel record")

const (
	kernelMagic      = "LAOT"
	kernelVersion    = 1
	kernelHeaderSize = 20
	spirvMagic       = 0x07230203
	// maxSignatureLen bounds a signature's text (1 MiB).
	maxSignatureLen = 1 << 20
)

// SaveKernel stores k as the bytecode entry name of s.
func SaveKernel(s BinaryIO, name string, k Kernel) error {
	b, err := encodeKernel(k)
	if err != nil {
		return fmt.Errorf("shadercache: save kernel %q: %w", name, err)
	}
	return s.WriteBytecode(name, AppendRecord(nil, RecordKernel, name, b))
}

// LoadKernel loads the kernel stored under name and checks that its
// signature is want, byte for byte. A kernel that is not there is
// (Kernel{}, false, nil). A kernel whose signature differs is an error
// wrapping [ErrSignatureMismatch] that names both signatures: the program
// was built against another version of the kernel. Stored bytes that are
// not an intact record of this name (damaged by a store that checks
// nothing, or saved by a lucent before records carried checksums) are an
// error wrapping [ErrBadKernel] and [ErrBadRecord].
func LoadKernel(s BinaryIO, name, want string) (Kernel, bool, error) {
	b, ok, err := s.ReadBytecode(name)
	if err != nil || !ok {
		return Kernel{}, false, err
	}
	rec, err := DecodeRecord(b, RecordKernel, name)
	if err != nil {
		// Not a miss: the program has no source to compile again from.
		return Kernel{}, false, fmt.Errorf("shadercache: load kernel %q: %w: %w (save the kernel again)", name, ErrBadKernel, err)
	}
	k, err := decodeKernel(rec)
	if err != nil {
		return Kernel{}, false, fmt.Errorf("shadercache: load kernel %q: %w", name, err)
	}
	if k.Signature != want {
		return Kernel{}, false, fmt.Errorf("shadercache: load kernel %q: stored signature %q, expected %q: %w",
			name, k.Signature, want, ErrSignatureMismatch)
	}
	return k, true, nil
}

func encodeKernel(k Kernel) ([]byte, error) {
	switch {
	case len(k.SPIRV) == 0:
		return nil, fmt.Errorf("no SPIR-V words: %w", ErrBadKernel)
	case k.SPIRV[0] != spirvMagic:
		return nil, fmt.Errorf("first word %#08x is not the SPIR-V magic number %#08x: %w", k.SPIRV[0], spirvMagic, ErrBadKernel)
	case !utf8.ValidString(k.Signature):
		return nil, fmt.Errorf("signature %q is not UTF-8: %w", k.Signature, ErrBadKernel)
	case len(k.Signature) > maxSignatureLen:
		return nil, fmt.Errorf("signature of %d bytes, more than %d: %w", len(k.Signature), maxSignatureLen, ErrBadKernel)
	case len(k.ABI)+4*len(k.SPIRV) > MaxEntrySize:
		return nil, fmt.Errorf("%d words and %d ABI bytes: %w", len(k.SPIRV), len(k.ABI), ErrTooLarge)
	}
	b := make([]byte, kernelHeaderSize, kernelHeaderSize+len(k.Signature)+len(k.ABI)+4*len(k.SPIRV))
	copy(b, kernelMagic)
	binary.LittleEndian.PutUint16(b[4:], kernelVersion)
	binary.LittleEndian.PutUint32(b[8:], uint32(len(k.Signature)))
	binary.LittleEndian.PutUint32(b[12:], uint32(len(k.ABI)))
	binary.LittleEndian.PutUint32(b[16:], uint32(len(k.SPIRV)))
	b = append(b, k.Signature...)
	b = append(b, k.ABI...)
	for _, w := range k.SPIRV {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b, nil
}

func decodeKernel(b []byte) (Kernel, error) {
	if len(b) < kernelHeaderSize || string(b[:4]) != kernelMagic {
		return Kernel{}, fmt.Errorf("not a kernel record: %w", ErrBadKernel)
	}
	if v := binary.LittleEndian.Uint16(b[4:]); v != kernelVersion {
		return Kernel{}, fmt.Errorf("record version %d, this build reads %d (compile the kernel again): %w", v, kernelVersion, ErrBadKernel)
	}
	sigLen := uint64(binary.LittleEndian.Uint32(b[8:]))
	abiLen := uint64(binary.LittleEndian.Uint32(b[12:]))
	words := uint64(binary.LittleEndian.Uint32(b[16:]))
	if binary.LittleEndian.Uint16(b[6:]) != 0 || sigLen > maxSignatureLen ||
		uint64(len(b)) != kernelHeaderSize+sigLen+abiLen+4*words {
		return Kernel{}, fmt.Errorf("lengths do not match the record's %d bytes: %w", len(b), ErrBadKernel)
	}
	rest := b[kernelHeaderSize:]
	k := Kernel{Signature: string(rest[:sigLen])}
	rest = rest[sigLen:]
	k.ABI = append([]byte{}, rest[:abiLen]...)
	rest = rest[abiLen:]
	k.SPIRV = make([]uint32, words)
	for i := range k.SPIRV {
		k.SPIRV[i] = binary.LittleEndian.Uint32(rest[4*i:])
	}
	if !utf8.ValidString(k.Signature) || len(k.SPIRV) == 0 || k.SPIRV[0] != spirvMagic {
		return Kernel{}, fmt.Errorf("malformed signature or SPIR-V: %w", ErrBadKernel)
	}
	return k, nil
}
