package cpu

import (
	"math/bits"
	"unsafe"
)

// Loops over a batch's columns that the compiler does not unroll, four
// elements a step through a slice of four (one bounds check a step): the
// loop's own counting was as many instructions as the work (a run load of
// 64 words: 6 a word; a step of four here runs in ~0.6 the time).

// iota64 writes o, o+1, ... into row, eight a step.
func iota64(row []uint64, o uint64) {
	for len(row) >= 8 {
		r := (*[8]uint64)(row)
		r[0] = o
		o++
		r[1] = o
		o++
		r[2] = o
		o++
		r[3] = o
		o++
		r[4] = o
		o++
		r[5] = o
		o++
		r[6] = o
		o++
		r[7] = o
		o++
		row = row[8:]
	}
	for j := range row {
		row[j] = o + uint64(j)
	}
}

// widen32 writes the words of src into dst, zero-extended: len(src) of them.
func widen32(dst []uint64, src []uint32) {
	n, j := len(src), 0
	dst = dst[:n]
	for ; j+4 <= n; j += 4 {
		d, s := dst[j:j+4:j+4], src[j:j+4:j+4]
		d[0], d[1], d[2], d[3] = uint64(s[0]), uint64(s[1]), uint64(s[2]), uint64(s[3])
	}
	for ; j < n; j++ {
		dst[j] = uint64(src[j])
	}
}

// narrow32 writes the low words of src into dst: len(src) of them.
func narrow32(dst []uint32, src []uint64) {
	n, j := len(src), 0
	dst = dst[:n]
	for ; j+4 <= n; j += 4 {
		d, s := dst[j:j+4:j+4], src[j:j+4:j+4]
		d[0], d[1], d[2], d[3] = uint32(s[0]), uint32(s[1]), uint32(s[2]), uint32(s[3])
	}
	for ; j < n; j++ {
		dst[j] = uint32(src[j])
	}
}

// andTo writes x[j] & m into o: len(o) of them.
func andTo(o, x []uint64, m uint64) {
	n, j := len(o), 0
	x = x[:n]
	for ; j+4 <= n; j += 4 {
		a, b := o[j:j+4:j+4], x[j:j+4:j+4]
		a[0], a[1], a[2], a[3] = b[0]&m, b[1]&m, b[2]&m, b[3]&m
	}
	for ; j < n; j++ {
		o[j] = x[j] & m
	}
}

// addTo32 adds the low words of v into s: len(s) of them.
func addTo32(s []uint32, v []uint64) {
	n, j := len(s), 0
	v = v[:n]
	for ; j+4 <= n; j += 4 {
		a, b := s[j:j+4:j+4], v[j:j+4:j+4]
		a[0] += uint32(b[0])
		a[1] += uint32(b[1])
		a[2] += uint32(b[2])
		a[3] += uint32(b[3])
	}
	for ; j < n; j++ {
		s[j] += uint32(v[j])
	}
}

// addAt32 adds c to the 32-bit elements of m at indices ri, in order,
// wrapping, up to the first index past m: it returns that index's position
// (len(ri) where there is none).
func addAt32(m, ri []uint64, c uint64) int {
	n, j := uint64(len(m)), 0
	for ; j+4 <= len(ri); j += 4 {
		r := ri[j : j+4 : j+4]
		i0, i1, i2, i3 := r[0], r[1], r[2], r[3]
		if i0 >= n || i1 >= n || i2 >= n || i3 >= n {
			break // the lanes one by one, below
		}
		m[i0] = uint64(uint32(m[i0] + c))
		m[i1] = uint64(uint32(m[i1] + c))
		m[i2] = uint64(uint32(m[i2] + c))
		m[i3] = uint64(uint32(m[i3] + c))
	}
	for ; j < len(ri); j++ {
		i := ri[j]
		if i >= n {
			return j
		}
		m[i] = uint64(uint32(m[i] + c))
	}
	return len(ri)
}

// addAtMasked is addAt32 at indices ri[j] & mask.
func addAtMasked(m, ri []uint64, c, mask uint64) int {
	if mask < uint64(len(m)) { // every index in range
		m = m[:mask+1]
		all := len(ri)
		for len(ri) >= 4 {
			r := (*[4]uint64)(ri)
			i0, i1, i2, i3 := r[0]&mask, r[1]&mask, r[2]&mask, r[3]&mask
			m[i0] = uint64(uint32(m[i0] + c))
			m[i1] = uint64(uint32(m[i1] + c))
			m[i2] = uint64(uint32(m[i2] + c))
			m[i3] = uint64(uint32(m[i3] + c))
			ri = ri[4:]
		}
		for _, i := range ri {
			i &= mask
			m[i] = uint64(uint32(m[i] + c))
		}
		return all
	}
	n, j := uint64(len(m)), 0
	for ; j+4 <= len(ri); j += 4 {
		r := ri[j : j+4 : j+4]
		i0, i1, i2, i3 := r[0]&mask, r[1]&mask, r[2]&mask, r[3]&mask
		if i0 >= n || i1 >= n || i2 >= n || i3 >= n {
			break // the lanes one by one, below
		}
		m[i0] = uint64(uint32(m[i0] + c))
		m[i1] = uint64(uint32(m[i1] + c))
		m[i2] = uint64(uint32(m[i2] + c))
		m[i3] = uint64(uint32(m[i3] + c))
	}
	for ; j < len(ri); j++ {
		i := ri[j] & mask
		if i >= n {
			return j
		}
		m[i] = uint64(uint32(m[i] + c))
	}
	return len(ri)
}

// addAtMaskedWords adds c to the 32-bit elements of m at indices
// words[j] & mask, every one of them in m (mask < len(m)).
func addAtMaskedWords(m []uint64, words []uint32, c, mask uint64) {
	m = m[:mask+1]
	for len(words) >= 4 {
		r := (*[4]uint32)(words)
		i0, i1, i2, i3 := uint64(r[0])&mask, uint64(r[1])&mask, uint64(r[2])&mask, uint64(r[3])&mask
		m[i0] = uint64(uint32(m[i0] + c))
		m[i1] = uint64(uint32(m[i1] + c))
		m[i2] = uint64(uint32(m[i2] + c))
		m[i3] = uint64(uint32(m[i3] + c))
		words = words[4:]
	}
	for _, v := range words {
		i := uint64(v) & mask
		m[i] = uint64(uint32(m[i] + c))
	}
}

// fill64 writes v into every element of row, eight a step.
func fill64(row []uint64, v uint64) {
	for len(row) >= 8 {
		r := (*[8]uint64)(row)
		r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] = v, v, v, v, v, v, v, v
		row = row[8:]
	}
	for j := range row {
		row[j] = v
	}
}

// lo32s views row as its lanes' low words.
func lo32s(row []uint64) []lo32 {
	return unsafe.Slice((*lo32)(unsafe.Pointer(unsafe.SliceData(row))), len(row))
}

// divMul is the multiplier of a uint32 divisor d > 1, ceil(2^64 / d): the
// quotient of a 32-bit n is the high word of n*m, the remainder the high
// word of the low word's product with d (Lemire, Kaser and Kurz, "Faster
// remainder by direct computation", 2019).
func divMul(d uint32) uint64 { return ^uint64(0)/uint64(d) + 1 }

// divU32 is o = a / d of uint32 rows, d > 0.
func divU32(o, a []uint64, d uint32) {
	a = a[:len(o)]
	if d == 1 {
		for j, v := range a {
			o[j] = uint64(uint32(v))
		}
		return
	}
	m := divMul(d)
	for j, v := range a {
		o[j], _ = bits.Mul64(m, uint64(uint32(v)))
	}
}

// remU32 is o = a % d of uint32 rows, d > 0.
func remU32(o, a []uint64, d uint32) {
	a = a[:len(o)]
	if d == 1 {
		clear(o)
		return
	}
	m := divMul(d)
	for j, v := range a {
		o[j], _ = bits.Mul64(m*uint64(uint32(v)), uint64(d))
	}
}
