package shadercache

// A record is what lucent itself keeps in a store: the payload (a backend's
// compiled kernel, a pipeline-cache blob, an ahead-of-time kernel) sealed in the entry layout
// of entry.go under the magic "LREC", with the record's kind and key in the
// header and a CRC-32C over all of it. A [Dir] checks its own entries
// already, but a store may be a user's own BinaryIO that checks nothing (a
// database, an asset bundle); the record is what keeps its rotten, truncated
// or misplaced bytes from reaching a driver. Worked example: the shader
// record of key k (64 hex digits) holding 20 bytes (the Vulkan backend's
// 5 SPIR-V words) is
//
//	4c 52 45 43   magic "LREC"
//	01 00         record format version 1
//	01            kind: RecordShader
//	00            reserved, zero
//	40 00 00 00   key length 64
//	xx xx xx xx   CRC-32C of the other 20 header bytes, the key and the payload
//	14 00 00 00 00 00 00 00   payload length 20
//	"0f3a…"       the key, as its String form
//	03 02 23 07 …  the payload
//
// The checksum detects damage, not malice: anyone who can write the store
// can write a record that decodes.

import (
	"errors"
	"fmt"
)

// RecordKind names what a record holds. It is part of the record's header,
// so a record of one kind never decodes as another.
type RecordKind uint8

const (
	// RecordShader is a backend's just-in-time compiled kernel (the
	// device's shader cache; the Vulkan backend's SPIR-V), in the backend's
	// own encoding; its key is the [Key]'s String form, chosen by the
	// backend.
	RecordShader RecordKind = iota + 1
	// RecordPipelineCache is a Vulkan pipeline-cache blob; its key is the
	// [PipelineID]'s String form.
	RecordPipelineCache
	// RecordKernel is an ahead-of-time kernel ([SaveKernel]); its key is
	// the kernel's name.
	RecordKernel
)

func (k RecordKind) String() string {
	switch k {
	case RecordShader:
		return "shader"
	case RecordPipelineCache:
		return "pipeline cache"
	case RecordKernel:
		return "kernel"
	}
	return fmt.Sprintf("RecordKind(%d)", uint8(k))
}

// ErrBadRecord is wrapped by the errors of [DecodeRecord]: the bytes are not
// a whole, undamaged record of the kind and key asked for.
var ErrBadRecord = errors.New("bad cache record")

const recordMagic = "LREC"

var recordEnvelope = envelope{recordMagic, 1}

// AppendRecord appends to dst the record of kind holding payload under key,
// and returns the extended slice.
func AppendRecord(dst []byte, kind RecordKind, key string, payload []byte) []byte {
	dst = recordEnvelope.appendHeader(dst, byte(kind), key, payload)
	return append(dst, payload...)
}

// DecodeRecord checks that b is exactly one record of kind stored under key,
// its checksum intact, and returns its payload (a sub-slice of b). Otherwise
// it returns an error wrapping [ErrBadRecord] that says what is wrong —
// shorter than its header, bad magic, another format version, another kind,
// another key, lengths that do not match, checksum mismatch — which a cache
// treats as a miss.
func DecodeRecord(b []byte, kind RecordKind, key string) ([]byte, error) {
	payload, err := recordEnvelope.decode(b, byte(kind), key)
	if err != nil {
		return nil, fmt.Errorf("%w: %s record of %d bytes: %w", ErrBadRecord, kind, len(b), err)
	}
	return payload, nil
}
