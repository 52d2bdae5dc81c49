package vk

import (
	"strconv"
	"strings"
)

// flagName names one bit of a bitmask type.
type flagName struct {
	bit  uint64
	name string
}

// flagString joins the names of the bits set in v with |; bits without a name
// are printed in hex at the end.
func flagString(v uint64, names []flagName) string {
	if v == 0 {
		return "0"
	}
	var b strings.Builder
	for _, n := range names {
		if v&n.bit == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString(n.name)
		v &^= n.bit
	}
	if v != 0 {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString("0x" + strconv.FormatUint(v, 16))
	}
	return b.String()
}
