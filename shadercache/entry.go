package shadercache

// An entry, as stored in a file of a Dir, is a fixed 24-byte header, the
// entry's name and its payload. Worked example: the internal shader "fill"
// holding the 4 bytes 03 02 23 07 is
//
//	4c 43 53 43   magic "LCSC"
//	01 00         format version 1 (little-endian)
//	03            kind (internal)
//	00            reserved, zero
//	04 00 00 00   name length 4
//	xx xx xx xx   CRC-32C (Castagnoli) of the other 20 header bytes, the name and the payload
//	04 00 00 00 00 00 00 00   payload length 4
//	66 69 6c 6c   name "fill"
//	03 02 23 07   payload
//
// decodeEntry accepts the bytes only if every field matches what the reader
// asked for and the file is exactly as long as the header says, so a
// truncated, extended, damaged, foreign or misplaced file is a miss (an
// error for bytecode, which nothing compiles again).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

const (
	entryMagic   = "LCSC"
	entryVersion = 1
	headerSize   = 24
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Reasons an entry is not a hit: misses for the caller, errors for bytecode.
var (
	errShort    = errors.New("shorter than its header")
	errMagic    = errors.New("bad magic")
	errVersion  = errors.New("another format version")
	errKind     = errors.New("another kind")
	errName     = errors.New("another name")
	errLength   = errors.New("length does not match the header")
	errChecksum = errors.New("checksum mismatch")
)

// entryChecksum is the CRC-32C of the header (checksum field excluded), the
// name and the payload.
func entryChecksum(header []byte, name string, payload []byte) uint32 {
	c := crc32.Update(0, castagnoli, header[0:12])
	c = crc32.Update(c, castagnoli, header[16:24])
	c = crc32.Update(c, castagnoli, []byte(name))
	return crc32.Update(c, castagnoli, payload)
}

// envelope is the layout of an entry under one magic and format version. A
// store's entries use entryMagic; the records callers keep in any store use
// recordMagic (record.go), so neither is ever taken for the other.
type envelope struct {
	magic   string
	version uint16
}

var entryEnvelope = envelope{entryMagic, entryVersion}

// encodeHeader returns the header and name of an entry; the payload follows
// them in the file.
func encodeHeader(k kind, name string, payload []byte) []byte {
	return entryEnvelope.appendHeader(make([]byte, 0, headerSize+len(name)), byte(k), name, payload)
}

// decodeEntry checks that b is a well-formed entry of kind k named name and
// returns its payload, a sub-slice of b.
func decodeEntry(b []byte, k kind, name string) ([]byte, error) {
	return entryEnvelope.decode(b, byte(k), name)
}

// appendHeader appends to dst the header and name of an entry of kind k.
func (e envelope) appendHeader(dst []byte, k byte, name string, payload []byte) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, headerSize)...)
	b := dst[start:]
	copy(b[0:4], e.magic)
	binary.LittleEndian.PutUint16(b[4:6], e.version)
	b[6] = k
	binary.LittleEndian.PutUint32(b[8:12], uint32(len(name)))
	binary.LittleEndian.PutUint64(b[16:24], uint64(len(payload)))
	binary.LittleEndian.PutUint32(b[12:16], entryChecksum(b, name, payload))
	return append(dst, name...)
}

// decode checks that b is a well-formed entry of kind k named name and
// returns its payload, a sub-slice of b.
func (e envelope) decode(b []byte, k byte, name string) ([]byte, error) {
	if len(b) < headerSize {
		return nil, errShort
	}
	if string(b[0:4]) != e.magic {
		return nil, errMagic
	}
	if v := binary.LittleEndian.Uint16(b[4:6]); v != e.version {
		return nil, fmt.Errorf("%w %d (want %d)", errVersion, v, e.version)
	}
	if b[6] != k || b[7] != 0 {
		return nil, errKind
	}
	nameLen := uint64(binary.LittleEndian.Uint32(b[8:12]))
	payloadLen := binary.LittleEndian.Uint64(b[16:24])
	if nameLen > MaxNameLen || payloadLen > MaxEntrySize || uint64(len(b)) != headerSize+nameLen+payloadLen {
		return nil, errLength
	}
	stored := b[headerSize : headerSize+nameLen]
	payload := b[headerSize+nameLen:]
	c := crc32.Update(0, castagnoli, b[0:12])
	c = crc32.Update(c, castagnoli, b[16:24])
	c = crc32.Update(c, castagnoli, stored)
	if binary.LittleEndian.Uint32(b[12:16]) != crc32.Update(c, castagnoli, payload) {
		return nil, errChecksum
	}
	// Checked after the checksum, so a damaged name reads as damage.
	if string(stored) != name {
		return nil, errName
	}
	return payload, nil
}
