// Package shadercache persists the blobs a lucent device needs across runs:
// ahead-of-time shader bytecode, just-in-time shader cache entries, the
// runtime's own internal shaders and Vulkan pipeline-cache data.
//
// Everything goes through the [BinaryIO] interface. Two implementations ship
// with the package — [NewDir], a directory shared safely by any number of
// processes, and [NewMemory] — and [Disabled] turns caching off. Users may
// plug in their own (a database, an asset bundle, a network store).
//
// The one design choice a reader must know: a read never returns wrong bytes.
// A directory entry is written to a temporary file and renamed into place, so
// readers see either the old or the new entry, never a mix; and every entry
// carries a header (magic, format version, kind, name, payload length and a
// CRC-32C checksum), so an entry that is truncated, damaged, of another format
// version or stored under another name reads as a miss, which the caller
// answers by compiling again and rewriting the entry. A miss is
// (nil, false, nil); an error means the store itself failed (permission
// denied, an invalid name), never that an entry was absent or damaged —
// but for bytecode, which nothing compiles again: a damaged bytecode entry
// is an error wrapping [ErrBadRecord] that names the file.
// A Dir opens only regular files at entry paths, without blocking: a FIFO,
// device node, directory or symbolic link there is a miss.
//
// What lucent itself stores — backends' shader-cache records, pipeline-cache
// blobs, ahead-of-time kernels — is sealed in a record ([AppendRecord],
// [DecodeRecord]) that carries its own kind, key and checksum, so that a
// store that checks nothing (a user's own BinaryIO) cannot hand a driver
// damaged bytes or another key's: the reader sees a bad record and compiles
// again.
//
// Just-in-time cache entries are addressed by a [Key], a SHA-256 digest of the
// named parts that determine the generated code (see [NewKey]). Ahead-of-time
// kernels are stored by name with their argument signature, their IR and
// each backend's compiled form ([SaveKernel]), and loaded with the signature
// checked ([LoadKernel]). The package knows no shader format: what a backend
// stores is bytes in the backend's own encoding.
package shadercache
