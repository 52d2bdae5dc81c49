package spirv

// MagicNumber is the first word of every SPIR-V module.
const MagicNumber = 0x07230203

// appendInst appends the encoding of one instruction to dst.
func appendInst(dst []uint32, op Op, operands ...uint32) []uint32 {
	dst = append(dst, uint32(len(operands)+1)<<16|uint32(op))
	return append(dst, operands...)
}

// stringWords returns the words of a nul-terminated, zero-padded literal string.
func stringWords(s string) []uint32 {
	return appendString(make([]uint32, 0, len(s)/4+1), s)
}

func appendString(dst []uint32, s string) []uint32 {
	n := len(s)/4 + 1
	for i := 0; i < n; i++ {
		var w uint32
		for j := 0; j < 4; j++ {
			if k := i*4 + j; k < len(s) {
				w |= uint32(s[k]) << (8 * j)
			}
		}
		dst = append(dst, w)
	}
	return dst
}

// decodeString reads a literal string from the front of words and returns it
// with the number of words it used; ok is false when no nul ends it.
func decodeString(words []uint32) (s string, n int, ok bool) {
	var buf []byte
	for i, w := range words {
		for j := 0; j < 4; j++ {
			c := byte(w >> (8 * j))
			if c == 0 {
				return string(buf), i + 1, true
			}
			buf = append(buf, c)
		}
	}
	return "", 0, false
}

func ids(v []ID) []uint32 {
	out := make([]uint32, len(v))
	for i, x := range v {
		out[i] = uint32(x)
	}
	return out
}
