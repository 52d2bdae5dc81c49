package shadercache

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Eviction is least-recently-used by modification time, which writes stamp
// and reads refresh (Dir.read; at most once per touch interval, a minute, so
// a hot entry costs no extra system call and eviction order is precise to a
// minute). A Dir keeps a running count of the bytes its
// regenerable entries hold; when a write would take the count over the cap,
// it scans the directories again — picking up what other processes wrote
// and removed — and deletes the oldest entries until the total is at most
// 90% of the cap. Example with a 100-byte cap and four 30-byte entries
// A, B, C, D written in that order and A read after C: writing D makes
// 120 bytes, over the cap; by time the order is B, C, A, D; removing B
// leaves 90 bytes, at the low-water mark, so A survives because it was read.

// dirFile is one file found by a scan.
type dirFile struct {
	path  string
	size  int64
	mtime time.Time
	temp  bool // a temporary file, not an entry
}

// list returns the entry and temporary files of kind k's directory.
func (d *Dir) list(k kind) ([]dirFile, error) {
	dir := d.kindDir(k)
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("shadercache: scan: %w", err)
	}
	files := make([]dirFile, 0, len(ents))
	for _, e := range ents {
		name := e.Name()
		temp := strings.HasPrefix(name, tempPrefix)
		if !temp && !isEntryName(name) || !e.Type().IsRegular() {
			continue // not ours: leave it alone
		}
		info, err := e.Info()
		if err != nil {
			continue // removed since ReadDir
		}
		files = append(files, dirFile{
			path:  filepath.Join(dir, name),
			size:  info.Size(),
			mtime: info.ModTime(),
			temp:  temp,
		})
	}
	return files, nil
}

// renameCounted renames a temporary file of size bytes over the entry at
// final, counts the bytes it adds, and evicts if the store is then over its
// cap. Holding mu across the size of the old entry and the rename keeps this
// process's count exact however many goroutines write.
func (d *Dir) renameCounted(tmp, final string, size int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var replaced int64
	if st, err := os.Lstat(final); err == nil {
		replaced = st.Size()
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	if d.size >= 0 && d.size+size-replaced <= d.max {
		d.size += size - replaced
		return nil
	}
	d.evictLocked(final)
	return nil
}

// evictLocked counts the regenerable entries on disk and, if they exceed the
// cap, removes the least recently used ones down to the low-water mark,
// never the entry at keep (the one just written). It also removes stale
// temporary files. Errors are logged, never returned: eviction failing
// leaves a store that is larger than asked but still correct.
func (d *Dir) evictLocked(keep string) {
	var files []dirFile
	var total int64
	now := d.now()
	for _, k := range kinds {
		if !k.regenerable() {
			continue
		}
		listed, err := d.list(k)
		if err != nil {
			d.log.Warn("shadercache: eviction scan failed", slog.String("error", err.Error()))
			continue
		}
		for _, f := range listed {
			if f.temp {
				if now.Sub(f.mtime) > staleTemp {
					os.Remove(f.path)
				}
				continue
			}
			files = append(files, f)
			total += f.size
		}
	}
	if total > d.max {
		slices.SortFunc(files, func(a, b dirFile) int {
			if c := a.mtime.Compare(b.mtime); c != 0 {
				return c
			}
			return strings.Compare(a.path, b.path)
		})
		target := lowWater(d.max)
		for _, f := range files {
			if total <= target {
				break
			}
			if f.path == keep {
				continue
			}
			err := os.Remove(f.path)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				d.log.Warn("shadercache: eviction failed", slog.String("file", f.path), slog.String("error", err.Error()))
				continue
			}
			total -= f.size // gone, by us or by another process
			if err == nil {
				d.stats.evictions.Add(1)
				d.log.Debug("shadercache: evict", slog.String("file", f.path), slog.Int64("bytes", f.size))
			}
		}
	}
	d.size = total
}
