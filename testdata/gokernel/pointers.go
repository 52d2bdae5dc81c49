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
