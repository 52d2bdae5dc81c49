package shadercache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
)

// Key addresses a just-in-time shader cache entry: a SHA-256 digest of every
// input that changes the code a backend generates.
type Key [sha256.Size]byte

// String returns the key in lower-case hex (64 characters).
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// ParseKey parses the hex form returned by [Key.String].
func ParseKey(s string) (Key, error) {
	var k Key
	if len(s) != 2*len(k) {
		return Key{}, fmt.Errorf("shadercache: key %q: want %d hex digits, got %d", s, 2*len(k), len(s))
	}
	if _, err := hex.Decode(k[:], []byte(s)); err != nil {
		return Key{}, fmt.Errorf("shadercache: key %q: %w", s, err)
	}
	return k, nil
}

// KeyBuilder collects the named parts of a [Key]. A key must cover everything
// that changes the code a kernel compiles to, and nothing else:
//
//   - the kernel's stable hash (of its AST, not of its Go source position),
//   - the codegen version (bump it whenever codegen output changes),
//   - the compile options (fast math, debug info, optimisation passes…),
//   - the device capabilities codegen consults (the native or lowered path
//     for bindless arrays, subgroup size, float16/int64 support…).
//
// Uniform values and resource handles never belong in a key: they are
// bound at dispatch time and do not change the code, so putting them in
// would compile the same kernel again for every argument.
//
// Canonical form: parts are ordered by name, so the order in which different
// names are added does not matter. Values added under the same name form a
// list whose order does matter; [KeyBuilder.AddSet] adds an unordered set.
// Every value is tagged with its type and length-prefixed, so
// AddUint("n", 1), AddString("n", "\x01") and Add("n", []byte{1}) give three
// different keys, and no two different sets of parts encode alike.
//
// A KeyBuilder is not safe for concurrent use; the zero value is ready to use.
type KeyBuilder struct {
	parts []keyPart
}

type keyPart struct {
	name  string
	value []byte // tag, then the type's canonical encoding
}

// Value tags in a key's canonical encoding.
const (
	tagBytes  = 'b'
	tagString = 's'
	tagUint   = 'u'
	tagInt    = 'i'
	tagBool   = 't'
	tagSet    = 'S'
)

// keyDomain prefixes the hashed encoding so that a Key never equals a hash
// computed for another purpose over the same bytes.
const keyDomain = "lucent/shadercache.Key/v1\x00"

// NewKey returns an empty KeyBuilder.
func NewKey() *KeyBuilder { return &KeyBuilder{} }

// Add adds a byte-string part, such as a kernel's stable hash.
func (b *KeyBuilder) Add(name string, value []byte) *KeyBuilder {
	return b.add(name, tagBytes, value)
}

// AddString adds a string part, such as a compile option's value.
func (b *KeyBuilder) AddString(name, value string) *KeyBuilder {
	return b.add(name, tagString, []byte(value))
}

// AddUint adds an unsigned integer part, such as a codegen version.
func (b *KeyBuilder) AddUint(name string, value uint64) *KeyBuilder {
	return b.add(name, tagUint, binary.LittleEndian.AppendUint64(nil, value))
}

// AddInt adds a signed integer part.
func (b *KeyBuilder) AddInt(name string, value int64) *KeyBuilder {
	return b.add(name, tagInt, binary.LittleEndian.AppendUint64(nil, uint64(value)))
}

// AddBool adds a boolean part, such as a feature flag.
func (b *KeyBuilder) AddBool(name string, value bool) *KeyBuilder {
	v := []byte{0}
	if value {
		v[0] = 1
	}
	return b.add(name, tagBool, v)
}

// AddSet adds an unordered set of strings, such as the device capabilities
// codegen uses: the order of values and repeated values do not change the key.
func (b *KeyBuilder) AddSet(name string, values ...string) *KeyBuilder {
	set := slices.Clone(values)
	slices.Sort(set)
	set = slices.Compact(set)
	enc := binary.AppendUvarint(nil, uint64(len(set)))
	for _, v := range set {
		enc = binary.AppendUvarint(enc, uint64(len(v)))
		enc = append(enc, v...)
	}
	return b.add(name, tagSet, enc)
}

func (b *KeyBuilder) add(name string, tag byte, value []byte) *KeyBuilder {
	v := make([]byte, 0, 1+len(value))
	v = append(v, tag)
	v = append(v, value...)
	b.parts = append(b.parts, keyPart{name: name, value: v})
	return b
}

// Sum returns the key of the parts added so far. The builder stays usable.
func (b *KeyBuilder) Sum() Key {
	parts := slices.Clone(b.parts)
	// Stable: values under one name keep the order they were added in.
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].name < parts[j].name })
	var buf []byte
	buf = append(buf, keyDomain...)
	buf = binary.AppendUvarint(buf, uint64(len(parts)))
	for _, p := range parts {
		buf = binary.AppendUvarint(buf, uint64(len(p.name)))
		buf = append(buf, p.name...)
		buf = binary.AppendUvarint(buf, uint64(len(p.value)))
		buf = append(buf, p.value...)
	}
	return Key(sha256.Sum256(buf))
}
