package kernels

import "github.com/lucent-gpu/lucent/kernel"

// Mote is a particle of the pointer kernels.
type Mote struct {
	Pos, Vel kernel.Float3
	Hits     uint32
	Life     float32
}

// bounce reflects a mote off the floor, through a pointer to it.
func bounce(m *Mote, floor float32) {
	if m.Pos.Y < floor {
		m.Pos.Y = floor
		m.Vel.Y = -m.Vel.Y
		m.Hits++
	}
}

// PointerStep advances each mote through pointers into the buffer: a
// pointer to the element, one to a field, and the element passed to a
// helper taking *Mote.
//
//lucent:kernel block=64
func PointerStep(dt float32, ms []Mote, ages []float32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(ms)) {
		return
	}
	p := &ms[i]
	p.Vel = p.Vel.Add(kernel.F3(0, -9.8*dt, 0))
	x := p.Pos
	p.Pos = x.Add(p.Vel.Scale(dt))
	bounce(&ms[i], 0)
	bounce(p, -1)
	life := &ms[i].Life
	*life -= dt
	i++ // the pointers keep the element they were bound to
	a := &ages[i-1]
	*a += p.Life
}

// push and pop work a stack held in a local array, through pointers to the
// array and to its top.
func push(stack *[16]uint32, sp *uint32, v uint32) {
	stack[*sp] = v
	*sp++
}

func pop(stack *[16]uint32, sp *uint32) uint32 {
	*sp--
	return (*stack)[*sp]
}

// StackEval evaluates a postfix program of digits (0..9), '+' (10) and '*'
// (11) per thread, with an explicit stack.
//
//lucent:kernel block=64
func StackEval(progs []uint32, out []uint32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(out)) {
		return
	}
	var stack [16]uint32
	sp := uint32(0)
	for k := uint32(0); k < 8; k++ {
		op := progs[i*8+k]
		switch op {
		case 10:
			b, a := pop(&stack, &sp), pop(&stack, &sp)
			push(&stack, &sp, a+b)
		case 11:
			b, a := pop(&stack, &sp), pop(&stack, &sp)
			push(&stack, &sp, a*b)
		default:
			push(&stack, &sp, op)
		}
	}
	out[i] = pop(&stack, &sp)
}

// total adds the elements of b, a whole buffer or a view of one.
func total(b []float32) float32 {
	s := float32(0)
	for _, x := range b {
		s += x
	}
	return s
}

// scaleAll multiplies each element of b by k.
func scaleAll(b []float32, k float32) {
	for i := range b {
		b[i] *= k
	}
}

// Windows sums a window of w elements of x per thread through views: a
// view local, a view of a view, views passed to helpers and sliced there.
//
//lucent:kernel block=64
func Windows(x, out []float32, w uint32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(out)) {
		return
	}
	win := x[i : i+w]
	inner := win[1 : w-1]
	out[i] = total(win) + 100*float32(len(inner)) + 1000*inner[0] + total(inner[1:])
	scaleAll(out[i:i+1], 2)
	if i == 0 {
		out[0] += total(x) + total(x[:w])
	}
}

// bump adds one to component k of the vector v points to.
func bump(v *kernel.Float3, k int) { v.Set(k, v.At(k)+1) }

// Axes finds the axis of largest magnitude of each vector with run-time
// component indices (At, Set) on a local, through a pointer and on a buffer
// element.
//
//lucent:kernel block=64
func Axes(vs, out []kernel.Float3, axes []uint32) {
	i := kernel.DispatchID().X
	if i >= uint32(len(vs)) {
		return
	}
	v := vs[i]
	axis := uint32(0)
	for a := uint32(1); a < 3; a++ {
		if kernel.Abs(v.At(int(a))) > kernel.Abs(v.At(int(axis))) {
			axis = a
		}
	}
	axes[i] = axis
	v.Set(int(axis), 0)
	bump(&v, int(2-axis))
	var h kernel.Uint4
	h.Set(int(axis)+1, 7)
	out[i] = v
	vs[i].Set(int(axis), float32(h.At(int(axis)+1)))
}
