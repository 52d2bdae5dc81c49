//go:build unix

package shadercache

import (
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"syscall"
)

// openEntry opens an entry file for reading. O_NONBLOCK makes opening a FIFO
// return at once instead of waiting for a writer (readEntryFile then refuses
// anything not regular), and O_NOFOLLOW refuses a symbolic link: the store
// renames regular files into place and never makes links.
func openEntry(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}

// warnUnsafe logs, for the root and each kind directory, why other users
// could replace the store's entries, if they can. The store is used all the
// same (see NewDir).
func (d *Dir) warnUnsafe() {
	euid := uint32(os.Geteuid())
	dirs := []string{d.root}
	for _, k := range kinds {
		dirs = append(dirs, d.kindDir(k))
	}
	for _, dir := range dirs {
		st, err := os.Stat(dir)
		if err != nil {
			continue // missing: a read-only store may lack subdirectories
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			continue
		}
		if why := dirTrust(st.Mode(), sys.Uid, euid); why != "" {
			d.log.Warn("shadercache: unsafe cache directory: other users can replace its entries; using it anyway",
				slog.String("dir", dir), slog.String("reason", why))
		}
	}
}

// dirTrust says why a directory with mode and owner uid is unsafe for a
// process running as euid ("" when it is not): anyone may create, rename and
// delete files in a world-writable directory without the sticky bit, and its
// owner may in any directory. Root's directories are trusted, so shipped
// read-only stores of bytecode do not warn.
func dirTrust(mode fs.FileMode, uid, euid uint32) string {
	switch {
	case mode.Perm()&0o002 != 0 && mode&fs.ModeSticky == 0:
		return fmt.Sprintf("world-writable without the sticky bit (mode %#o)", mode.Perm())
	case uid != euid && uid != 0:
		return fmt.Sprintf("owned by uid %d, not by this user (uid %d) or root", uid, euid)
	}
	return ""
}
