package shadercache

import (
	"encoding/hex"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// BinaryIO stores the blobs a device persists. Every read returns
// (data, true, nil) on a hit and (nil, false, nil) on a miss — including an
// entry that exists but is damaged or of another format version, which the
// caller simply rewrites (bytecode excepted: see ReadBytecode). A non-nil error reports a failure of the store
// itself, or an invalid name (wrapping [ErrInvalidName]).
//
// Implementations must be safe for concurrent use, must not retain the slice
// passed to a Write, and must return a slice the caller may keep and modify.
// They need not check the bytes they return: lucent seals what it writes in
// checksummed records ([AppendRecord]) and treats a record that comes back
// damaged, truncated or from another key as a miss.
type BinaryIO interface {
	// ReadBytecode returns the shader bytecode stored under name: the
	// output of an ahead-of-time compile, loaded by name at run time. As
	// nothing compiles it again, an entry a store finds damaged is an error
	// wrapping [ErrBadRecord], not a miss.
	ReadBytecode(name string) ([]byte, bool, error)
	// WriteBytecode stores shader bytecode under name, replacing any entry.
	WriteBytecode(name string, data []byte) error

	// ReadShaderCache returns the just-in-time cache entry for key.
	ReadShaderCache(key Key) ([]byte, bool, error)
	// WriteShaderCache stores the just-in-time cache entry for key.
	WriteShaderCache(key Key, data []byte) error

	// ReadInternal returns the runtime's own shader stored under name.
	ReadInternal(name string) ([]byte, bool, error)
	// WriteInternal stores one of the runtime's own shaders under name.
	WriteInternal(name string, data []byte) error

	// ReadPipelineCache returns the pipeline-cache blob saved for a device
	// and driver (the data of vkGetPipelineCacheData).
	ReadPipelineCache(id PipelineID) ([]byte, bool, error)
	// WritePipelineCache saves the pipeline-cache blob for a device and driver.
	WritePipelineCache(id PipelineID, data []byte) error

	// Clear removes every regenerable entry: shader cache entries, internal
	// shaders and pipeline caches. Bytecode written with WriteBytecode is the
	// output of a build, not a cache, and stays.
	Clear() error
}

// PipelineID names the device and driver a pipeline-cache blob belongs to.
// A driver rejects cache data from another device or driver version, so each
// pair gets its own entry and two GPUs in one machine never overwrite each
// other's blob.
type PipelineID struct {
	// DeviceUUID is VkPhysicalDeviceProperties.pipelineCacheUUID (or
	// VkPhysicalDeviceIDProperties.deviceUUID).
	DeviceUUID [16]byte
	// DriverVersion is VkPhysicalDeviceProperties.driverVersion.
	DriverVersion uint32
}

// String returns the entry name of the pipeline cache: the UUID in hex and
// the driver version.
func (id PipelineID) String() string {
	return fmt.Sprintf("%s-%08x", hex.EncodeToString(id.DeviceUUID[:]), id.DriverVersion)
}

var (
	// ErrInvalidName is wrapped by errors about a name that cannot be stored:
	// empty, longer than MaxNameLen bytes, not UTF-8 or containing control
	// characters.
	ErrInvalidName = errors.New("invalid entry name")
	// ErrTooLarge is wrapped by errors about an entry larger than
	// MaxEntrySize, or a regenerable entry too large for the store's size
	// cap (see WithMaxSize).
	ErrTooLarge = errors.New("entry too large")
)

// MaxNameLen is the longest name, in bytes, a bytecode or internal shader may have.
const MaxNameLen = 1024

// MaxEntrySize is the largest payload a store accepts (1 GiB). It bounds
// what a reader allocates for an entry, whatever its header claims.
const MaxEntrySize = 1 << 30

// kind is the namespace of an entry. Each kind is its own subdirectory of a
// Dir, and the kind is recorded in every entry header.
type kind uint8

const (
	kindBytecode kind = iota + 1
	kindShader
	kindInternal
	kindPipeline
)

// kinds lists every kind, in the order Clear and the eviction scan visit them.
var kinds = [...]kind{kindBytecode, kindShader, kindInternal, kindPipeline}

func (k kind) String() string {
	switch k {
	case kindBytecode:
		return "bytecode"
	case kindShader:
		return "shader"
	case kindInternal:
		return "internal"
	case kindPipeline:
		return "pipeline"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// regenerable reports whether entries of the kind are a cache the runtime can
// rebuild: they are evicted at the size cap and removed by Clear. Bytecode is
// the output of an ahead-of-time build and is never evicted.
func (k kind) regenerable() bool { return k != kindBytecode }

// checkName validates a caller-supplied name. A name never becomes a path —
// file names are hashes of it — so the rules only keep names printable and
// bounded.
func checkName(k kind, name string) error {
	var why string
	switch {
	case name == "":
		why = "empty"
	case len(name) > MaxNameLen:
		why = fmt.Sprintf("%d bytes, longer than %d", len(name), MaxNameLen)
	case !utf8.ValidString(name):
		why = "not valid UTF-8"
	default:
		for _, r := range name {
			if unicode.IsControl(r) {
				why = fmt.Sprintf("contains control character %U", r)
				break
			}
		}
	}
	if why == "" {
		return nil
	}
	if len(name) > 64 {
		name = name[:64] + "…"
	}
	return fmt.Errorf("shadercache: %s name %q: %s: %w", k, name, why, ErrInvalidName)
}

var (
	_ BinaryIO = (*Dir)(nil)
	_ BinaryIO = (*Memory)(nil)
	_ BinaryIO = disabled{}
)
