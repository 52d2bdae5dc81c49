package shadercache

// An ahead-of-time kernel is stored as one record holding the kernel's
// signature as text, the caller's opaque signature blob, the serialised
// kernel (its IR, which every backend can compile) and any number of
// artefacts, each a backend's compiled form of the kernel under the
// backend's name. Every part but the signature text is opaque bytes here:
// each backend encodes and decodes its own artefact. Worked example: a
// kernel with signature "(Buffer[float32])", a 2-byte blob 01 07, a 3-byte
// IR aa bb cc and one artefact "vulkan" of 4 bytes is
//
//	4c 41 4f 54   magic "LAOT"
//	02 00         record version 2 (little-endian)
//	00 00         reserved, zero
//	11 00 00 00   signature length 17
//	02 00 00 00   blob length 2
//	03 00 00 00   IR length 3
//	01 00 00 00   artefact count 1
//	"(Buffer[float32])" 01 07 aa bb cc
//	06 00 00 00   artefact 0: backend name length 6
//	04 00 00 00   artefact 0: data length 4
//	"vulkan" 03 02 23 07
//
// Artefacts are sorted by backend name, and a name appears once, so a
// kernel has one encoding. Version 1 records held SPIR-V words in place of
// the IR and artefacts; they are refused (save the kernel again).
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
	"slices"
	"strings"
	"unicode/utf8"
)

// Kernel is a kernel as the ahead-of-time path stores it.
type Kernel struct {
	// Signature is the kernel's argument signature as text, the form the
	// loader compares and error messages show, e.g.
	// "(Buffer[float32], Buffer[float32], float32)".
	Signature string
	// ABI is the caller's own encoding of the signature (the device
	// runtime's argument signature), opaque to this package and versioned by
	// its owner.
	ABI []byte
	// IR is the serialised kernel, from which any backend can compile it;
	// required, and opaque to this package.
	IR []byte
	// Artefacts are the kernel compiled ahead of time by backends, at most
	// one per backend. SaveKernel stores them sorted by backend name, and
	// LoadKernel returns them so.
	Artefacts []Artefact
}

// Artefact is one backend's compiled form of a kernel, in that backend's
// own encoding.
type Artefact struct {
	// Backend names the backend that made Data and reads it: 1 to
	// MaxBackendNameLen bytes of UTF-8, no control characters.
	Backend string
	Data    []byte
}

// Artefact returns the data of the artefact of backend, if k has one.
func (k Kernel) Artefact(backend string) ([]byte, bool) {
	for _, a := range k.Artefacts {
		if a.Backend == backend {
			return a.Data, true
		}
	}
	return nil, false
}

// ErrSignatureMismatch is wrapped by the error [LoadKernel] returns when the
// stored kernel's signature is not the one the caller expects.
var ErrSignatureMismatch = errors.New("kernel signature mismatch")

// ErrBadKernel is wrapped by errors about a kernel that cannot be stored
// (no IR, a signature that is not UTF-8, a bad or repeated backend name) or
// a stored record that does not decode.
var ErrBadKernel = errors.New("bad kernel record")

// MaxBackendNameLen is the longest backend name, in bytes, an artefact may
// carry; MaxArtefacts the most artefacts one kernel may carry.
const (
	MaxBackendNameLen = 64
	MaxArtefacts      = 64
)

const (
	kernelMagic      = "LAOT"
	kernelVersion    = 2
	kernelHeaderSize = 24
	artefactHeader   = 8
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
// error wrapping [ErrBadKernel] and [ErrBadRecord]; a record of another
// version (version 1 held SPIR-V only) is an error wrapping [ErrBadKernel]
// that asks for the kernel to be saved again.
func LoadKernel(s BinaryIO, name, want string) (Kernel, bool, error) {
	return LoadKernelMatch(s, name, want, func(want, stored string) bool { return stored == want })
}

// LoadKernelMatch is [LoadKernel] with the signatures compared by
// same(want, stored) rather than byte for byte.
func LoadKernelMatch(s BinaryIO, name, want string, same func(want, stored string) bool) (Kernel, bool, error) {
	b, ok, err := s.ReadBytecode(name)
	if errors.Is(err, ErrBadRecord) {
		return Kernel{}, false, fmt.Errorf("shadercache: load kernel %q: %w: %w", name, ErrBadKernel, err)
	}
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
	if !same(want, k.Signature) {
		return Kernel{}, false, fmt.Errorf("shadercache: load kernel %q: stored signature %q, expected %q: %w",
			name, k.Signature, want, ErrSignatureMismatch)
	}
	return k, true, nil
}

// checkBackendName says what is wrong with an artefact's backend name, or
// returns nil.
func checkBackendName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("artefact with no backend name: %w", ErrBadKernel)
	case len(s) > MaxBackendNameLen:
		return fmt.Errorf("artefact backend name of %d bytes, more than %d: %w", len(s), MaxBackendNameLen, ErrBadKernel)
	case !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("artefact backend name %q is not UTF-8 without control characters: %w", s, ErrBadKernel)
	}
	return nil
}

func encodeKernel(k Kernel) ([]byte, error) {
	switch {
	case len(k.IR) == 0:
		return nil, fmt.Errorf("no IR: %w", ErrBadKernel)
	case !utf8.ValidString(k.Signature):
		return nil, fmt.Errorf("signature %q is not UTF-8: %w", k.Signature, ErrBadKernel)
	case len(k.Signature) > maxSignatureLen:
		return nil, fmt.Errorf("signature of %d bytes, more than %d: %w", len(k.Signature), maxSignatureLen, ErrBadKernel)
	case len(k.Artefacts) > MaxArtefacts:
		return nil, fmt.Errorf("%d artefacts, more than %d: %w", len(k.Artefacts), MaxArtefacts, ErrBadKernel)
	}
	arts := slices.Clone(k.Artefacts)
	slices.SortFunc(arts, func(a, b Artefact) int { return strings.Compare(a.Backend, b.Backend) })
	size := uint64(kernelHeaderSize + len(k.Signature) + len(k.ABI) + len(k.IR))
	for i, a := range arts {
		if err := checkBackendName(a.Backend); err != nil {
			return nil, err
		}
		if i > 0 && arts[i-1].Backend == a.Backend {
			return nil, fmt.Errorf("two artefacts for backend %q: %w", a.Backend, ErrBadKernel)
		}
		size += uint64(artefactHeader + len(a.Backend) + len(a.Data))
	}
	if size > MaxEntrySize {
		return nil, fmt.Errorf("%d bytes of signature, ABI, IR and artefacts: %w", size, ErrTooLarge)
	}
	b := make([]byte, kernelHeaderSize, size)
	copy(b, kernelMagic)
	binary.LittleEndian.PutUint16(b[4:], kernelVersion)
	binary.LittleEndian.PutUint32(b[8:], uint32(len(k.Signature)))
	binary.LittleEndian.PutUint32(b[12:], uint32(len(k.ABI)))
	binary.LittleEndian.PutUint32(b[16:], uint32(len(k.IR)))
	binary.LittleEndian.PutUint32(b[20:], uint32(len(arts)))
	b = append(b, k.Signature...)
	b = append(b, k.ABI...)
	b = append(b, k.IR...)
	for _, a := range arts {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(a.Backend)))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(a.Data)))
		b = append(b, a.Backend...)
		b = append(b, a.Data...)
	}
	return b, nil
}

func decodeKernel(b []byte) (Kernel, error) {
	if len(b) < 8 || string(b[:4]) != kernelMagic {
		return Kernel{}, fmt.Errorf("not a kernel record: %w", ErrBadKernel)
	}
	switch v := binary.LittleEndian.Uint16(b[4:]); {
	case v == 1:
		return Kernel{}, fmt.Errorf("record version 1 holds SPIR-V only, this build reads version %d, which holds the IR (save the kernel again): %w",
			kernelVersion, ErrBadKernel)
	case v != kernelVersion:
		return Kernel{}, fmt.Errorf("record version %d, this build reads %d (save the kernel again with this build): %w", v, kernelVersion, ErrBadKernel)
	}
	bad := func() (Kernel, error) {
		return Kernel{}, fmt.Errorf("lengths do not match the record's %d bytes: %w", len(b), ErrBadKernel)
	}
	if len(b) < kernelHeaderSize || binary.LittleEndian.Uint16(b[6:]) != 0 {
		return bad()
	}
	sigLen := uint64(binary.LittleEndian.Uint32(b[8:]))
	abiLen := uint64(binary.LittleEndian.Uint32(b[12:]))
	irLen := uint64(binary.LittleEndian.Uint32(b[16:]))
	count := uint64(binary.LittleEndian.Uint32(b[20:]))
	rest := b[kernelHeaderSize:]
	if sigLen > maxSignatureLen || count > MaxArtefacts || sigLen+abiLen+irLen > uint64(len(rest)) {
		return bad()
	}
	// The parts are copies (b may be the store's), and nil when empty.
	clone := func(p []byte) []byte {
		if len(p) == 0 {
			return nil
		}
		return slices.Clone(p)
	}
	k := Kernel{Signature: string(rest[:sigLen])}
	rest = rest[sigLen:]
	k.ABI = clone(rest[:abiLen])
	rest = rest[abiLen:]
	k.IR = clone(rest[:irLen])
	rest = rest[irLen:]
	if count > 0 {
		k.Artefacts = make([]Artefact, count)
	}
	for i := range k.Artefacts {
		if len(rest) < artefactHeader {
			return bad()
		}
		nameLen := uint64(binary.LittleEndian.Uint32(rest))
		dataLen := uint64(binary.LittleEndian.Uint32(rest[4:]))
		rest = rest[artefactHeader:]
		if nameLen > MaxBackendNameLen || nameLen+dataLen > uint64(len(rest)) {
			return bad()
		}
		a := Artefact{Backend: string(rest[:nameLen]), Data: clone(rest[nameLen : nameLen+dataLen])}
		rest = rest[nameLen+dataLen:]
		if err := checkBackendName(a.Backend); err != nil {
			return Kernel{}, err
		}
		if i > 0 && k.Artefacts[i-1].Backend >= a.Backend {
			return Kernel{}, fmt.Errorf("artefact %q after %q: not sorted by backend, or repeated: %w", a.Backend, k.Artefacts[i-1].Backend, ErrBadKernel)
		}
		k.Artefacts[i] = a
	}
	if len(rest) != 0 {
		return bad()
	}
	if !utf8.ValidString(k.Signature) {
		return Kernel{}, fmt.Errorf("signature is not UTF-8: %w", ErrBadKernel)
	}
	if len(k.IR) == 0 {
		return Kernel{}, fmt.Errorf("no IR: %w", ErrBadKernel)
	}
	return k, nil
}
