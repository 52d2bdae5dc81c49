package shadercache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Dir is a [BinaryIO] that keeps each entry in a file under a root
// directory, one subdirectory per kind of entry:
//
//	<root>/bytecode/<32 hex digits>
//	<root>/shader/…  <root>/internal/…  <root>/pipeline/…
//
// A file's name is the first 128 bits of SHA-256(kind, name) in hex, so no
// name can reach outside the directory; the full name is stored in the entry
// and checked on every read.
//
// Any number of goroutines and processes may share one directory without
// locks. A write goes to a temporary file in the same subdirectory that is
// then renamed over the entry, so a reader sees the old or the new entry,
// whole; a reader that opened the old file keeps reading it. A read of a
// regenerable entry sets its modification time, and the write that takes the
// directory over its size cap deletes the entries read or written longest ago.
// With several processes the cap holds approximately: each process counts its
// own writes between scans of the directory.
type Dir struct {
	root  string
	max   int64
	log   *slog.Logger
	stats counters
	now   func() time.Time // replaced by tests

	// touchInterval is how stale an entry's modification time must be
	// before a read refreshes it: eviction order is precise to this much.
	touchInterval time.Duration

	tmpSeq atomic.Uint64

	mu   sync.Mutex // guards size and serialises eviction scans
	size int64      // bytes of regenerable entries as last counted, -1 until counted
}

// staleTemp is how old a temporary file must be before a scan deletes it as
// the leftover of a writer that died between create and rename.
const staleTemp = time.Hour

// defaultTouchInterval bounds how precisely eviction tells apart entries
// read at nearly the same time; an entry read less than this long after
// its last write or touch is not touched again.
const defaultTouchInterval = time.Minute

// tempPrefix starts the name of every temporary file.
const tempPrefix = ".tmp-"

// pid is this process's id, part of each temporary file's name so that
// processes sharing a directory never pick the same one. Looked up once:
// os.Getpid is a system call each time.
var pid = strconv.Itoa(os.Getpid())

// NewDir returns a store rooted at path, creating the directory and its
// subdirectories if needed. See [Default] for the per-user cache directory.
//
// A directory other users can write to — world-writable without the sticky
// bit, or owned by a user other than this one or root — is logged at warn
// level with its path and the reason, and used all the same: a team's shared
// cache looks just like that, and entries are checked on every read. The
// checks catch damage, not malice, so such a directory lets those users
// choose the code the program runs; fix its permissions.
func NewDir(path string, opts ...Option) (*Dir, error) {
	if path == "" {
		return nil, errors.New("shadercache: NewDir: empty path")
	}
	cfg := newConfig(DefaultMaxSize, opts)
	root, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("shadercache: NewDir %q: %w", path, err)
	}
	d := &Dir{root: root, max: cfg.maxSize, log: cfg.logger, now: time.Now, touchInterval: defaultTouchInterval, size: -1}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("shadercache: NewDir: %w", err)
	}
	for _, k := range kinds {
		// Best effort: a read-only directory of shipped bytecode is a valid
		// store, and a write creates a missing subdirectory anyway.
		os.Mkdir(d.kindDir(k), 0o755)
	}
	d.warnUnsafe()
	return d, nil
}

// Path returns the absolute path of the store's root directory.
func (d *Dir) Path() string { return d.root }

// Stats returns the store's counters.
func (d *Dir) Stats() Stats { return d.stats.snapshot() }

// ReadBytecode implements [BinaryIO].
func (d *Dir) ReadBytecode(name string) ([]byte, bool, error) {
	return d.read(kindBytecode, name)
}

// WriteBytecode implements [BinaryIO].
func (d *Dir) WriteBytecode(name string, data []byte) error {
	return d.write(kindBytecode, name, data)
}

// ReadShaderCache implements [BinaryIO].
func (d *Dir) ReadShaderCache(key Key) ([]byte, bool, error) {
	return d.read(kindShader, key.String())
}

// WriteShaderCache implements [BinaryIO].
func (d *Dir) WriteShaderCache(key Key, data []byte) error {
	return d.write(kindShader, key.String(), data)
}

// ReadInternal implements [BinaryIO].
func (d *Dir) ReadInternal(name string) ([]byte, bool, error) {
	return d.read(kindInternal, name)
}

// WriteInternal implements [BinaryIO].
func (d *Dir) WriteInternal(name string, data []byte) error {
	return d.write(kindInternal, name, data)
}

// ReadPipelineCache implements [BinaryIO].
func (d *Dir) ReadPipelineCache(id PipelineID) ([]byte, bool, error) {
	return d.read(kindPipeline, id.String())
}

// WritePipelineCache implements [BinaryIO].
func (d *Dir) WritePipelineCache(id PipelineID, data []byte) error {
	return d.write(kindPipeline, id.String(), data)
}

// Clear implements [BinaryIO]: it deletes the shader cache, internal shader
// and pipeline cache entries, and temporary files left by dead writers.
// Entries other processes write while it runs may survive.
func (d *Dir) Clear() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for _, k := range kinds {
		if !k.regenerable() {
			continue
		}
		files, err := d.list(k)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range files {
			if f.temp && d.now().Sub(f.mtime) < staleTemp {
				continue // a live writer's; removing it would fail its rename
			}
			if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("shadercache: Clear: %w", err))
			}
		}
	}
	d.size = -1
	if err := errors.Join(errs...); err != nil {
		return err
	}
	d.log.Debug("shadercache: cleared", slog.String("dir", d.root))
	return nil
}

func (d *Dir) kindDir(k kind) string { return filepath.Join(d.root, k.String()) }

// fileName is the file that holds the entry (k, name): 128 bits of
// SHA-256 over the kind and the name, in hex.
func fileName(k kind, name string) string {
	h := sha256.New()
	h.Write([]byte{byte(k)})
	h.Write([]byte(name))
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:16])
}

// isEntryName reports whether a file name is one fileName makes.
func isEntryName(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func (d *Dir) read(k kind, name string) ([]byte, bool, error) {
	if err := checkName(k, name); err != nil {
		return nil, false, err
	}
	path := filepath.Join(d.kindDir(k), fileName(k, name))
	b, mtime, err := readEntryFile(path)
	if err != nil && !errors.Is(err, errNotRegular) {
		if errors.Is(err, fs.ErrNotExist) {
			d.stats.misses.Add(1)
			debug(d.log, "shadercache: miss", k, name)
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("shadercache: read %s %q: %w", k, name, err)
	}
	var payload []byte
	if err == nil {
		payload, err = decodeEntry(b, k, name)
	}
	if err != nil && !errors.Is(err, errNotRegular) && !k.regenerable() {
		// Not a miss: nothing compiles bytecode again (ReadBytecode).
		d.stats.damaged.Add(1)
		return nil, false, fmt.Errorf("shadercache: read %s %q: %s: %w: %w (write it again)", k, name, path, ErrBadRecord, err)
	}
	if err != nil {
		d.stats.misses.Add(1)
		d.stats.damaged.Add(1)
		level := slog.LevelWarn
		if errors.Is(err, errVersion) {
			level = slog.LevelDebug // expected once after an upgrade
		}
		d.log.Log(context.Background(), level, "shadercache: unusable entry, treated as a miss",
			slog.String("kind", k.String()), slog.String("name", name),
			slog.String("file", path), slog.String("reason", err.Error()))
		return nil, false, nil
	}
	if k.regenerable() && d.max > 0 {
		// Mark the entry used for eviction, unless it was marked less than
		// touchInterval ago: a hot entry then costs no extra system call.
		// Failure (a read-only directory) only makes eviction less precise.
		if now := d.now(); now.Sub(mtime) >= d.touchInterval {
			_ = os.Chtimes(path, time.Time{}, now)
		}
	}
	d.stats.hits.Add(1)
	debug(d.log, "shadercache: hit", k, name, slog.Int("bytes", len(payload)))
	return payload, true, nil
}

// errNotRegular reports something other than a regular file at an entry's
// path (a FIFO, a device node, a directory, a symbolic link): a miss, never
// opened for reading, so it can neither block a read nor feed it.
var errNotRegular = errors.New("not a regular file")

// readEntryFile reads a whole file and returns it with its modification
// time, refusing to allocate for a file larger than any valid entry and
// refusing (errNotRegular) anything but a regular file, without blocking.
func readEntryFile(path string) ([]byte, time.Time, error) {
	f, err := openEntry(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, time.Time{}, err
		}
		// O_NOFOLLOW's error for a link differs between systems (ELOOP,
		// EMLINK, EFTYPE): ask what is there instead.
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, time.Time{}, fmt.Errorf("%w: a symbolic link", errNotRegular)
		}
		return nil, time.Time{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, err
	}
	if !st.Mode().IsRegular() {
		return nil, time.Time{}, fmt.Errorf("%w: %s", errNotRegular, fileType(st.Mode()))
	}
	size := st.Size()
	if size > headerSize+MaxNameLen+MaxEntrySize {
		size = headerSize - 1 // decodes as too short: a miss
	}
	b := make([]byte, size)
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, time.Time{}, err
	}
	return b[:n], st.ModTime(), nil
}

// fileType names the type of a file that is not regular.
func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeDevice != 0:
		return "a device node"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file (" + m.Type().String() + ")"
}

func (d *Dir) write(k kind, name string, data []byte) error {
	if err := checkName(k, name); err != nil {
		return err
	}
	if len(data) > MaxEntrySize {
		return fmt.Errorf("shadercache: write %s %q: %d bytes, more than %d: %w", k, name, len(data), MaxEntrySize, ErrTooLarge)
	}
	header := encodeHeader(k, name, data)
	fileSize := int64(len(header) + len(data))
	capped := k.regenerable() && d.max > 0
	if capped && fileSize > lowWater(d.max) {
		return fmt.Errorf("shadercache: write %s %q: %d bytes do not fit the %d-byte cap: %w", k, name, fileSize, d.max, ErrTooLarge)
	}
	dir := d.kindDir(k)
	final := filepath.Join(dir, fileName(k, name))
	tmp, err := d.writeTemp(dir, header, data, capped)
	if err != nil {
		return fmt.Errorf("shadercache: write %s %q: %w", k, name, err)
	}
	if capped {
		err = d.renameCounted(tmp, final, fileSize)
	} else {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("shadercache: write %s %q: %w", k, name, err)
	}
	d.stats.writes.Add(1)
	debug(d.log, "shadercache: write", k, name, slog.Int("bytes", len(data)))
	return nil
}

// writeTemp writes header and data to a new temporary file in dir and
// returns its path, stamping it with the store's clock if stamp is set. If dir has vanished (someone deleted the cache), it is
// created again.
func (d *Dir) writeTemp(dir string, header, data []byte, stamp bool) (string, error) {
	for attempt := 0; ; attempt++ {
		tmp := filepath.Join(dir, tempPrefix+pid+"-"+strconv.FormatUint(d.tmpSeq.Add(1), 36))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			if attempt < 3 && errors.Is(err, fs.ErrNotExist) {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return "", err
				}
				continue
			}
			if attempt < 3 && errors.Is(err, fs.ErrExist) {
				continue // a leftover from a dead process with our pid
			}
			return "", err
		}
		_, err = f.Write(header)
		if err == nil {
			_, err = f.Write(data)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil && stamp {
			// Set the time eviction orders by from our own clock, at full
			// precision: file systems stamp files at timer-tick granularity.
			err = os.Chtimes(tmp, time.Time{}, d.now())
		}
		if err != nil {
			os.Remove(tmp)
			return "", err
		}
		return tmp, nil
	}
}
