package vk

import "unsafe"

// CString returns a NUL-terminated copy of s in Go memory, for a char*
// member or argument (kept alive by the Go-memory rule, see the package doc).
func CString(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}

// CStrings returns an array of NUL-terminated copies of ss, for a
// `const char* const*` member; nil when ss is empty.
func CStrings(ss []string) **byte {
	if len(ss) == 0 {
		return nil
	}
	p := make([]*byte, len(ss))
	for i, s := range ss {
		p[i] = CString(s)
	}
	return &p[0]
}

// GoString copies the NUL-terminated string at p (C or Go memory); "" for nil.
func GoString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// ByteString returns the text of a fixed-size char array member (such as
// PhysicalDeviceProperties.DeviceName) up to its first NUL.
func ByteString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
