// Package jumps holds kernels that leave loops and switches the ways Go
// allows: labelled break and continue out of nested for and range loops,
// break inside switches (those lowered to a switch and those lowered to an
// if/else chain), labelled break from a switch out of its loop, and
// fallthrough in both kinds of switch. The
// tests run them on devices and compare with the same functions run by
// kernel.Run.
package jumps

import "github.com/lucent-gpu/lucent/kernel"

// ChainCols and SwitchCols are the results each thread of Chains and
// Switches writes.
const (
	ChainCols  = 10
	SwitchCols = 9
)

// firstPair is the first (a, b), a < b < n, with a*b%m == r, searched with
// a labelled break out of both loops; -1 where there is none.
func firstPair(n, m, r int32) int32 {
	found := int32(-1)
search:
	for a := int32(0); a < n; a++ {
		for b := a + 1; b < n; b++ {
			if a*b%m == r {
				found = a*100 + b
				break search
			}
		}
	}
	return found
}

// sumRows sums the rows of a 6x6 matrix made from v, skipping the rest of a
// row at its first negative entry (continue row) and stopping at a zero
// (break rows).
func sumRows(v int32) (sum, rows int32) {
rows:
	for i := range 6 {
		rows++
	row:
		for j := int32(0); j < 6; j++ {
			x := (v*int32(i+3)+j*7)%17 - 3
			switch {
			case x < 0:
				continue rows
			case x == 0 && i > 1:
				break rows
			case x > 11:
				continue row
			}
			sum += x
		}
	}
	return
}

// Chains writes ChainCols results per thread of the jumps under test, each
// from in[i]: loops and switches lowered to if/else chains, with no device
// switch (the cpu backend runs them on its lane engine).
//
//lucent:kernel block=16
func Chains(in []int32, arr []int32, out []int32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	v := in[i]
	o := out[i*ChainCols : (i+1)*ChainCols]

	// Labelled break out of two for loops.
	found := int32(-1)
	nn, mm := v%13+4, v%7+2
search:
	for a := int32(0); a < nn; a++ {
		for b := a + 1; b < nn; b++ {
			if a*b%mm == v%3 {
				found = a*100 + b
				break search
			}
		}
	}
	o[0] = found

	// Labelled continue and break of a range loop from inside a switch
	// lowered to an if/else chain.
	s, r := int32(0), int32(0)
rows:
	for i := range 6 {
		r++
		for j := int32(0); j < 6; j++ {
			x := (v*int32(i+5)+j*3)%13 - 2
			switch {
			case x < 0:
				continue rows
			case x == 0 && i > 2:
				break rows
			}
			s += x
		}
	}
	o[1], o[2] = s, r

	// Labelled continue out of three loops, the outer with a post
	// statement that must run.
	n := int32(0)
	post := int32(0)
outer:
	for a := int32(0); a < 5; a, post = a+1, post+1 {
		for b := range 4 {
			for c := int32(0); c < 3; c++ {
				if (a*3+int32(b)*c+v)%7 == 0 {
					continue outer
				}
				n++
			}
		}
	}
	o[3] = n*100 + post

	// break inside a switch on an int64 (an if/else chain) leaves the
	// switch only; the loop goes on.
	k := int32(0)
	for j := range int64(8) {
		switch j + int64(v%3) {
		case 2, 5:
			if v%2 == 0 {
				break
			}
			k += 1000
		case 7:
			k += 100
			break
		default:
			if j > 5 {
				break
			}
		}
		k++
	}
	o[4] = k

	// A labelled break from a switch lowered to an if/else chain out of
	// a range over an integer, and continue from it.
	t := int32(0)
elems:
	for x := range uint32(len(arr)) {
		e := arr[x]
		switch {
		case e < 0:
			continue elems
		case e > 40 && x > uint32(v%5):
			break elems
		case e == v%9:
			break
		default:
			t += e
		}
		t += 1000
	}
	o[5] = t

	// continue out of a switch lowered to an if/else chain, inside a loop:
	// the loop's post statement runs.
	c := int32(0)
	for j := int64(0); j < 7; j++ {
		switch {
		case j == int64(v%7):
			continue
		case j == 3:
			break
		}
		c += int32(j)
	}
	o[6] = c

	// A range over an integer, labelled, broken from a nested range over
	// an integer.
	e := int32(0)
vals:
	for a := range int32(4) {
		a += v
		for b := range a % 5 {
			if b == 3 {
				break vals
			}
			e += a * int32(b)
		}
	}
	o[7] = e

	// Tagless switch with break, not in any loop.
	f := int32(0)
	switch {
	case v > 10:
		if v%2 == 1 {
			break
		}
		f = 1
	case v > 5:
		f = 2
	}
	o[8] = f

	// A labelled switch (an if/else chain) left by break from a loop
	// inside it.
	w2 := int32(0)
sw2:
	switch int64(v % 3) {
	case 0, 1:
		for j := range int32(4) {
			g := (v + j*5) % 7
			if g == 6 {
				break sw2
			}
			w2 += g
		}
		w2 += 1000
	default:
		w2 = -1
	}
	o[9] = w2
}

// Switches writes SwitchCols results per thread of the jumps under test
// that leave device switches (int32 tags, constant cases), each from in[i].
//
//lucent:kernel block=16
func Switches(in []int32, arr []int32, out []int32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	v := in[i]
	o := out[i*SwitchCols : (i+1)*SwitchCols]

	// break inside a native switch in a loop leaves the switch, and a
	// labelled break from it leaves the loop.
	m := int32(0)
loop:
	for j := int32(0); j < 10; j++ {
		switch (j + v) % 4 {
		case 0:
			m += 10
			if j > 6 {
				break loop
			}
			break
		case 3:
			if j+v > 20 {
				break loop
			}
			m += 100
		}
		m++
	}
	o[0] = m

	// A labelled switch left by break from a loop inside it.
	w := int32(0)
	var grid [4]int32
	for j := range grid {
		grid[j] = (v + int32(j)*5) % 7
	}
sw:
	switch v % 3 {
	case 0, 1:
		for _, g := range grid {
			if g == 6 {
				break sw
			}
			w += g
		}
		w += 1000
	default:
		w = -1
	}
	o[1] = w

	// A labelled loop with a labelled break past a native switch and an
	// inner loop, and a ray of breaks that leave nothing labelled.
	d := int32(0)
L1:
	for a := range 4 {
		for b := range 4 {
			switch int32(a*4+b) % 5 {
			case 1:
				continue
			case 4:
				if int32(a+b) == v%6 {
					break L1
				}
				continue L1
			}
			for {
				d++
				if d%3 == 0 {
					break
				}
			}
		}
		d += 100
	}
	o[2] = d

	// A device switch inside a device switch: break of the outer one by
	// its label, and continue from the inner one.
	p := int32(0)
	for j := int32(0); j < 6; j++ {
	outerSw:
		switch (v + j) % 3 {
		case 0:
			switch j % 2 {
			case 0:
				p += 10
				if v%4 == 1 {
					break outerSw
				}
			case 1:
				continue
			}
			p += 1000
		case 1:
			p += 3
		}
		p++
	}
	o[3] = p

	// The same in helpers (functions the kernel calls).
	o[4] = firstPair(v%13+4, v%7+2, v%3)
	o[5], o[6] = sumRows(v)

	// A labelled break from a switch lowered to an if/else chain out of
	// the range over a buffer, and continue from it.
	t := int32(0)
elems:
	for x, e := range arr {
		switch {
		case e < 0:
			continue elems
		case e > 40 && x > int(v%5):
			break elems
		case e == v%9:
			break
		default:
			t += e
		}
		t += 1000
	}
	o[7] = t

	// A range over an array value copy, labelled, broken from a nested
	// range over an integer.
	e := int32(0)
	arr4 := [4]int32{v, v + 1, v + 2, v + 3}
vals:
	for _, a := range arr4 {
		for b := range a % 5 {
			if b == 3 {
				break vals
			}
			e += a * int32(b)
		}
	}
	o[8] = e
}

// LaneCols is the results each thread of Lanes writes.
const LaneCols = 8

// Lanes writes LaneCols results per thread of device switches (int32 and
// uint32 tags, negative and large case values, defaults, nested switches)
// left by break, continue, labelled break and return, clauses that fall
// through and goto forward, with no helper or array (the cpu backend runs
// it on its lane engine).
//
//lucent:kernel block=16
func Lanes(in []int32, out []int32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	v := in[i]
	o := out[i*LaneCols : (i+1)*LaneCols]

	// Negative values, a default, a break in a nested if.
	a := int32(0)
	for j := int32(-3); j < 4; j++ {
		switch v%5 - j {
		case -2, -1:
			a += 3
		case 0:
			if j > 0 {
				break
			}
			a += 100
		case 2:
			continue
		default:
			a -= 1
		}
		a++
	}
	o[0] = a

	// A uint32 tag with values past 2³¹, nested switches, break of the
	// inner one only and labelled continue from the inner one.
	b := int32(0)
outer:
	for j := uint32(0); j < 6; j++ {
		switch uint32(v)*0x9E3779B9 + j {
		case 0x80000000, 0xFFFFFFFF:
			b += 1000
		default:
			switch (uint32(v) + j) % 4 {
			case 0:
				b += 10
				break
			case 1:
				if v%3 == 0 {
					continue outer
				}
				b += 20
			case 3:
				b += 30
			}
			b++
		}
		b += 2
	}
	o[1] = b

	// Labelled break out of two loops from a switch.
	c := int32(0)
rows:
	for p := range int32(5) {
		for q := range int32(5) {
			switch (p*5 + q + v) % 9 {
			case 8:
				break rows
			case 4:
				continue rows
			case 1, 2:
				break
			default:
				c += p*10 + q
			}
			c++
		}
	}
	o[2] = c

	// A switch with no default that no value matches, and one on a
	// variable the matching case writes.
	d := v
	switch d % 7 {
	case 10, 11:
		d = -1
	}
	switch d % 4 {
	case 0:
		d = 1 // lanes of later cases are sorted before this runs
	case 1:
		d += 100
	default:
		d += 1000
	}
	o[3] = d

	// Fallthrough in a loop: a chain of them through a default in the
	// middle, break in a clause reached by fallthrough, continue from one.
	e := int32(0)
	for j := int32(0); j < 7; j++ {
		switch (v + j) % 5 {
		case 0:
			e += 1
			fallthrough
		default:
			e += 10
			if j == 3 {
				continue
			}
			fallthrough
		case 3:
			e += 100
			if (v+j)%2 == 0 {
				break
			}
			fallthrough
		case 4:
			e += 1000
		case 1:
			e += 10000
			fallthrough
		case -1:
			e -= 3
		}
		e++
	}
	o[5] = e

	// A uint32 tag past 2³¹ whose clause falls into a nested switch's
	// clause, which falls through too; labelled break from a clause
	// reached by fallthrough.
	f := int32(0)
loop:
	for j := uint32(0); j < 5; j++ {
		switch uint32(v)*0x9E3779B9 + j&3 {
		case 0xDAA66D2B, 0x9E3779BA:
			f += 7
			fallthrough
		case 0x8FF34784, 0x80000001:
			f += 70
		default:
			switch (uint32(v) + j) % 3 {
			case 0:
				f += 700
				fallthrough
			case 1:
				f += 7000
				if v%7 == 6 {
					break loop
				}
			}
		}
		f += int32(j)
	}
	o[6] = f

	// goto forward out of a switch in two loops, and over statements.
	g := int32(0)
	for p := range int32(2) {
		for q := range int32(3) {
			switch (p*4 + q + v) % 11 {
			case 10:
				goto done
			case 3:
				g += 50
			}
			g += p + q
		}
	}
	g += 1000
	if v%4 == 1 {
		goto done
	}
	g += 20000
done:
	g++
	o[7] = g

	// return from inside a case, in a loop.
	o[4] = -1
	for j := int32(0); j < 8; j++ {
		switch (v + j) % 6 {
		case 5:
			if v%2 == 1 {
				o[4] = j
				return
			}
		case 3:
			o[4] += 10
		}
	}
	o[4] += 1000
}

// FallCols is the results each thread of Falls writes.
const FallCols = 8

// grade runs a chain of fallthroughs on an if/else chain's switch (no
// tag): each clause reached adds its weight, the default included.
func grade(v int32) int32 {
	g := int32(0)
	switch {
	case v > 20:
		g += 1
		fallthrough
	case v > 10:
		g += 10
		fallthrough
	default:
		g += 100
	case v < 0:
		g += 1000
	}
	return g
}

// Falls writes FallCols results per thread of switches whose clauses fall
// through: device switches (int32 and uint32 tags) and if/else chains
// (a tag of another type, cases that are not constant, no tag), a chain
// of several fallthroughs, fallthrough into default in the middle of the
// clauses, break inside a clause reached by fallthrough, and continue and
// labelled break out of the loop around such a switch, each from in[i].
//
//lucent:kernel block=16
func Falls(in []int32, arr []int32, out []int32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	v := in[i]
	o := out[i*FallCols : (i+1)*FallCols]

	// A device switch: a chain of fallthroughs ending in default, which
	// falls into the last case, whose values are not tested.
	a := int32(0)
	switch v % 6 {
	case 0:
		a += 1
		fallthrough
	case 1, 2:
		a += 10
		fallthrough
	case 3:
		a += 100
		fallthrough
	default:
		a += 1000
		fallthrough
	case 5:
		a += 10000
	}
	o[0] = a

	// A uint32 tag with values past 2³¹; break inside a clause reached by
	// fallthrough leaves the switch, and one that ends a clause does
	// nothing.
	b := int32(0)
	switch uint32(v) * 0x9E3779B9 % 7 {
	case 0, 1:
		b += 3
		fallthrough
	case 2:
		if v%2 == 0 {
			break
		}
		b += 30
		fallthrough
	case 3:
		b += 300
		break
	case 4:
		b += 3000
		fallthrough
	case 0xFFFFFFFF:
		b += 30000
	}
	o[1] = b

	// An if/else chain (an int64 tag), fallthrough into default.
	c := int64(0)
	switch int64(v) % 4 {
	case 0:
		c += 7
		fallthrough
	default:
		c *= 3
		c += 1
	case 2:
		c -= 5
		fallthrough
	case 3:
		c += 70
	}
	o[2] = int32(c)

	// Cases that are not constant, a break in a clause reached by
	// fallthrough and a trailing break.
	d := int32(0)
	switch v {
	case arr[0], arr[1]:
		d += 2
		fallthrough
	case arr[2] + 3:
		d += 20
		if v > 4 {
			break
		}
		d += 200
		fallthrough
	case arr[3]:
		d += 2000
		break
	default:
		d -= 1
	}
	o[3] = d
	o[4] = grade(v)

	// In a loop: continue from a clause reached by fallthrough, and a
	// labelled break out of the loop from one.
	e := int32(0)
loop:
	for j := int32(0); j < 8; j++ {
		switch (v + j) % 5 {
		case 0:
			e += 1
			fallthrough
		case 1:
			if j > 5 {
				break loop
			}
			e += 10
			fallthrough
		case 2:
			if (v+j)%3 == 0 {
				continue
			}
			e += 100
		default:
			e += 1000
			fallthrough
		case 4:
			e -= 7
		}
		e *= 2
	}
	o[5] = e

	// An if/else chain in a loop, continue from a clause reached by
	// fallthrough.
	f := int32(0)
	for j := range 6 {
		switch {
		case (v+int32(j))%3 == 0:
			f += 5
			fallthrough
		case j%2 == 0:
			if v%4 == 1 {
				continue
			}
			f += 50
		}
		f += 1
	}
	o[6] = f

	// A switch in a clause reached by fallthrough, which falls through
	// itself.
	g := int32(0)
	switch v % 3 {
	case 0:
		g += 1
		fallthrough
	case 1:
		switch v % 4 {
		case 0:
			g += 10
			fallthrough
		case 1:
			g += 100
		}
		g += 1000
	}
	o[7] = g
}

// GotoCols is the results each thread of Gotos writes.
const GotoCols = 6

// find is the index of the first element of arr over x, or -1, found with
// a goto out of the loop.
func find(arr []int32, x int32) int32 {
	at := int32(-1)
	for j := range arr {
		if arr[j] > x {
			at = int32(j)
			goto found
		}
	}
	return -1
found:
	return at * 10
}

// Gotos writes GotoCols results per thread of gotos forward, each from
// in[i]: out of nested loops, over statements of the same block, out of a
// device switch and an if/else chain, to two labels whose spans overlap,
// and inside a loop's body with break and continue of the loop among the
// statements skipped.
//
//lucent:kernel block=16
func Gotos(in []int32, arr []int32, out []int32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	v := in[i]
	o := out[i*GotoCols : (i+1)*GotoCols]

	// Out of two loops.
	a := int32(0)
	for j := int32(0); j < 6; j++ {
		for k := int32(0); k < 6; k++ {
			if (j*k+v)%11 == 10 {
				a += 1000
				goto done
			}
			a++
		}
	}
	a = -a
done:
	o[0] = a

	// Over statements of the same block, and out of a device switch and
	// an if/else chain.
	b := int32(1)
	if v%3 == 0 {
		goto skip
	}
	b += 10
	switch v % 4 {
	case 1:
		b += 100
		goto skip
	case 2:
		b += 200
	}
	switch {
	case v > 15:
		b *= 3
		goto skip
	case v > 5:
		b *= 5
	}
	b += 7
skip:
	o[1] = b

	// Two labels whose spans overlap.
	c := int32(0)
	if v%2 == 0 {
		goto first
	}
	c += 1
	if v%5 == 0 {
		goto second
	}
	c += 10
first:
	c += 100
	if v%7 == 0 {
		goto second
	}
	c += 1000
second:
	o[2] = c

	// In a loop's body: break and continue of the loop among the
	// statements a goto skips, and a labelled continue.
	d := int32(0)
rows:
	for j := int32(0); j < 10; j++ {
		if (v+j)%4 == 0 {
			goto next
		}
		if (v+j)%9 == 8 {
			break
		}
		if (v+j)%5 == 1 {
			continue
		}
		for k := int32(0); k < 3; k++ {
			if (v+j+k)%7 == 3 {
				continue rows
			}
			if k == 2 {
				goto next
			}
			d += k
		}
		d += 10
	next:
		d *= 2
		d %= 10007
	}
	o[3] = d
	o[4] = find(arr, v)

	// A goto in a switch clause to a later label in the same clause.
	e := int32(0)
	switch v % 3 {
	case 0:
		if v > 10 {
			goto tail
		}
		e += 5
	tail:
		e += 50
	default:
		e -= 1
	}
	o[5] = e
}
