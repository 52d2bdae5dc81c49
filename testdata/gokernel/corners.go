package kernels

import "github.com/lucent-gpu/lucent/kernel"

// Particle is a struct with methods, by value and by pointer.
type Particle struct {
	P, V   kernel.Float2
	Age    uint32
	Energy float32
}

// Kinetic is the particle's kinetic energy (a value-receiver method).
func (p Particle) Kinetic() float32 { return 0.5 * p.V.Dot(p.V) }

// Step moves the particle (a pointer-receiver method).
func (p *Particle) Step(dt float32) {
	p.P = p.P.Add(p.V.Scale(dt))
	p.Age++
	p.Energy = p.Kinetic()
}

// Particles steps every particle twice.
//
//lucent:kernel block=32
func Particles(dt float32, ps []Particle) {
	i := kernel.DispatchID().X
	if i >= uint32(len(ps)) {
		return
	}
	p := ps[i]
	p.Step(dt)
	p.Step(dt)
	ps[i] = p
}

// divmod returns the quotient and remainder (multiple results).
func divmod(a, b int32) (q, r int32) {
	q = a / b
	r = a % b
	return
}

// classify maps a value to a class with a switch (with a default).
func classify(v int32) int32 {
	switch {
	case v < 0:
		return -1
	case v == 0:
		return 0
	case v < 10:
		return 1
	}
	return 2
}

// Kind tags for Corners.
const (
	KindA int32 = iota
	KindB
	KindC
)

// collatz counts the steps of the Collatz sequence from n, capped.
func collatz(n uint32) uint32 {
	steps := uint32(0)
	for n != 1 {
		if steps >= 500 {
			break
		}
		if n%2 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		steps++
	}
	return steps
}

// Corners exercises the language's corners: multiple results, switches,
// nested loops with break and continue, constants, casts, arrays, shifts.
//
//lucent:kernel block=64
func Corners(in []int32, out []int32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	v := in[i]
	q, r := divmod(v, 7)
	acc := q*100 + r
	switch v % 3 {
	case 0:
		acc += 1000
	case 1, -1:
		acc += 2000
	default:
		acc += 3000
	}
	acc += classify(v) * 10000
	// nested loops with break and continue
	count := int32(0)
	for a := int32(0); a < 8; a++ {
		if a == 5 {
			break
		}
		for b := int32(0); b < 8; b++ {
			if (a+b)%2 == 1 {
				continue
			}
			if b > a {
				break
			}
			count++
		}
	}
	acc += count * 100000
	var table [4]int32
	for k := range table {
		table[k] = int32(k*k) + v
	}
	acc ^= table[uint32(v)&3] << 2
	f := float32(v) * 0.5
	acc += int32(f) + int32(uint8(v))
	acc += int32(collatz(uint32(v&255) + 1))
	kind := KindA
	if v > 100 {
		kind = KindC
	} else if v > 50 {
		kind = KindB
	}
	switch kind {
	case KindA:
		acc -= 1
	case KindB:
		acc -= 2
	case KindC:
		acc -= 3
	}
	out[i] = acc
}

// Transform applies a 4×4 matrix to points and normalises the result.
//
//lucent:kernel block=64
func Transform(m kernel.Float4x4, in, out []kernel.Float4) {
	i := kernel.DispatchID().X
	if i >= uint32(len(in)) {
		return
	}
	p := m.MulVec(in[i])
	v := kernel.F3(p.X, p.Y, p.Z)
	if v.Length() > 0 {
		v = v.Normalize()
	}
	out[i] = kernel.Float4{X: v.X, Y: v.Y, Z: v.Z, W: p.W}
}
