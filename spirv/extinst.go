package spirv

import (
	"sort"
	"strings"
)

// ExtInstSet is an extended instruction set known to the reader and the disassembler.
type ExtInstSet struct {
	Name         string // import name; a trailing "." matches every version
	Instructions []ExtInstDesc
}

// LookupExtInstSet returns the set imported under name (OpExtInstImport), if known.
func LookupExtInstSet(name string) (*ExtInstSet, bool) {
	for i := range extInstSetTable {
		s := &extInstSetTable[i]
		if s.Name == name || (strings.HasSuffix(s.Name, ".") && strings.HasPrefix(name, s.Name)) {
			return s, true
		}
	}
	return nil, false
}

// Lookup returns the description of instruction n of the set.
func (s *ExtInstSet) Lookup(n uint32) (*ExtInstDesc, bool) {
	i := sort.Search(len(s.Instructions), func(i int) bool { return s.Instructions[i].Number >= n })
	if i < len(s.Instructions) && s.Instructions[i].Number == n {
		return &s.Instructions[i], true
	}
	return nil, false
}
