//go:build !unix

package shadercache

import "os"

// openEntry opens an entry file for reading. Without FIFOs that block an
// open, readEntryFile's check that the file is regular is enough.
func openEntry(path string) (*os.File, error) { return os.Open(path) }

// warnUnsafe does nothing where permissions are not Unix modes (Windows
// ACLs): there is no world-writable bit to check.
func (d *Dir) warnUnsafe() {}
