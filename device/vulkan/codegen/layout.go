package codegen

import (
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// PushHeaderSize is the size of the dispatch header at the start of the
// push-constant block (dispatch_size and block_offset, kernel ABI v1).
const PushHeaderSize = 24

// AddressArgSize is the push-constant size of a buffer argument passed by
// device address (kernel ABI v1): the u64 address of the view's first
// element, then the u64 number of elements in the view, which bounds every
// access through the address. An accel takes as much (its two words).
const AddressArgSize = 16

// PrintRingSize is the push-constant size of the print ring (kernel ABI
// v1) of a kernel that prints or is compiled checked: the u64 device
// address of the ring, then a u32 the runtime gives the dispatch (each
// record starts with it), then 4 spare bytes.
const PrintRingSize = 16

// MaxPushSize is the push-constant budget of kernel ABI v1.
const MaxPushSize = 128

// SpillAddressOffset is where the push-constant block of a kernel whose
// arguments pass MaxPushSize holds the u64 device address of its spill
// block.
const SpillAddressOffset = PushHeaderSize

// Member is what Place knows of one kernel argument.
type Member struct {
	// Descriptor: the argument takes the next binding of descriptor set 0
	// (a resource other than a buffer by address or an accel).
	Descriptor bool
	// Address: two u64 words read on every access (a buffer by address,
	// an accel); in a kernel that spills these come before the uniforms.
	Address bool
	// Size and Align are the bytes the argument takes and their alignment
	// (a power of two of at most 16).
	Size, Align int
	// Bound: an Address member that also takes the next binding of set 0
	// (an accel in a kernel with the software traversal: its buffer as a
	// storage buffer).
	Bound bool
}

// Slot is where Place puts one argument.
type Slot struct {
	// Binding is the argument's binding in descriptor set 0, -1 for one in
	// the push constants or the spill block.
	Binding int
	// Offset is its offset in the push-constant block, or in the spill
	// block when Spilled; -1 for a descriptor.
	Offset  int
	Spilled bool
	// Bound is the binding in set 0 that a Bound member also takes, -1 for
	// the others.
	Bound int
}

// PushLayout is where a kernel's arguments and the members the ABI adds go.
type PushLayout struct {
	Args []Slot
	// Size is the push-constant block's size in bytes, at most MaxPushSize.
	Size int
	// Ring is the offset of the print ring (PrintRingSize bytes), -1 in a
	// kernel without one.
	Ring int
	// Spill is the size of the spill block, 0 when nothing spills; else the
	// push constants hold its address at SpillAddressOffset.
	Spill int
}

// Place lays out the push constants of kernel ABI v1, every member of them:
// the one function that does, for codegen (Layout) and the runtime alike.
// Descriptors take bindings of set 0 in argument order. The push-constant
// block starts with the dispatch header; then, when everything fits in
// MaxPushSize bytes, come the arguments in order, each at its alignment,
// and the print ring (when ring) at the next 8-aligned offset. Otherwise
// the block holds the u64 address of a spill block at SpillAddressOffset,
// then the ring, then the arguments by address in order, then the uniforms
// in order: each takes the next offset of the push constants while it
// fits in MaxPushSize, else the next offset of the spill block (from 0, at
// its alignment).
func Place(ms []Member, ring bool) PushLayout {
	if l := placeAll(ms, ring, false); l.Size <= MaxPushSize {
		return l
	}
	return placeAll(ms, ring, true)
}

func placeAll(ms []Member, ring, spill bool) PushLayout {
	l := PushLayout{Args: make([]Slot, len(ms)), Ring: -1}
	binding, off := 0, PushHeaderSize
	next := func(size, align int) int {
		at := alignUp(off, align)
		off = at + size
		return at
	}
	if spill {
		next(8, 8) // SpillAddressOffset
		if ring {
			l.Ring = next(PrintRingSize, 8)
		}
	}
	// Without a spill block one pass places everything in order; with one
	// the first places the addresses, the second the uniforms.
	bound := make([]int, len(ms))
	for pass := range 2 {
		for i, m := range ms {
			if pass == 0 {
				bound[i] = -1
				if m.Bound {
					bound[i] = binding
					binding++
				}
			}
			switch {
			case m.Descriptor:
				if pass == 0 {
					l.Args[i] = Slot{Binding: binding, Offset: -1, Bound: -1}
					binding++
				}
				continue
			case !spill && pass == 1, spill && m.Address != (pass == 0):
				continue
			}
			if at := alignUp(off, m.Align); !spill || at+m.Size <= MaxPushSize {
				l.Args[i] = Slot{Binding: -1, Offset: next(m.Size, m.Align), Bound: bound[i]}
				continue
			}
			at := alignUp(l.Spill, m.Align)
			l.Args[i] = Slot{Binding: -1, Offset: at, Spilled: true, Bound: bound[i]}
			l.Spill = at + m.Size
		}
	}
	if !spill && ring {
		l.Ring = next(PrintRingSize, 8)
	}
	l.Size = off
	return l
}

func alignUp(n, a int) int {
	a = max(a, 1)
	return (n + a - 1) / a * a
}

// Argument is a kernel argument with its placement under kernel ABI v1.
type Argument struct {
	Var *ir.Var
	Slot
}

// MemberOf is how kernel ABI v1 passes an argument of type t, in a kernel
// tracing rays natively or not: an accel of the software traversal also
// takes a binding, its buffer as a storage buffer.
func MemberOf(t *ir.Type, nativeRay bool) Member {
	switch {
	case t == ir.Accel:
		return Member{Address: true, Size: AddressArgSize, Align: 8, Bound: !nativeRay}
	case t.ByAddress():
		return Member{Address: true, Size: AddressArgSize, Align: 8}
	case t.IsResource():
		return Member{Descriptor: true}
	case t == ir.TBool:
		return Member{Size: 4, Align: 4} // bools travel as u32
	}
	return Member{Size: t.Size(), Align: t.Align()}
}

// Layout places kernel f's arguments, and the print ring of a kernel that
// prints (ir.Function.Prints) or is compiled checked (opts.Checked), by
// Place; an accel's binding depends on opts.NativeRayQuery.
func Layout(f *ir.Function, opts Options) ([]Argument, PushLayout) {
	ms := make([]Member, len(f.Params))
	for i, p := range f.Params {
		ms[i] = MemberOf(p.Type, opts.NativeRayQuery)
	}
	l := Place(ms, len(f.Prints()) > 0 || opts.Checked)
	args := make([]Argument, len(f.Params))
	for i, p := range f.Params {
		args[i] = Argument{Var: p, Slot: l.Args[i]}
	}
	return args, l
}
