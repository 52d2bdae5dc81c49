package codegen

import (
	"fmt"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Argument is a kernel argument with its placement under kernel ABI v1.
type Argument struct {
	Var     *ir.Var
	Binding int // descriptor binding for resources, -1 for uniforms and buffers by address
	Offset  int // push-constant offset for uniforms and buffers by address, -1 for descriptors
}

// PushHeaderSize is the size of the dispatch header at the start of the
// push-constant block (dispatch_size and block_offset, kernel ABI v1).
const PushHeaderSize = 24

// AddressArgSize is the push-constant size of a buffer argument passed by
// device address (kernel ABI v1): the u64 address of the view's first
// element, then the u64 number of elements in the view, which bounds every
// access through the address.
const AddressArgSize = 16

// MaxPushSize is the push-constant budget of kernel ABI v1.
const MaxPushSize = 128

// Layout places kernel f's arguments per kernel ABI v1: resources take
// descriptor bindings in order, uniforms follow the dispatch header in the
// push-constant block at their alignment. It returns the push block's size;
// a kernel whose uniforms exceed MaxPushSize is refused (wrapping
// ir.ErrUnsupported).
func Layout(f *ir.Function) ([]Argument, int, error) {
	args, _, size, err := layout(f)
	return args, size, err
}

// PrintRingSize is the push-constant size of the print ring (kernel ABI
// v1), at the first 8-aligned offset after the uniform arguments, in kernels
// that print: the u64 device address of the ring, then a u32 the runtime
// gives the dispatch (each record starts with it), then 4 spare bytes.
const PrintRingSize = 16

// LayoutPrint is Layout, with the push-constant offset of the print ring's
// address in a kernel that prints (ir.Function.Prints) or is compiled
// checked (Options.Checked), -1 in others.
func LayoutPrint(f *ir.Function, checked bool) (args []Argument, ring, size int, err error) {
	return layout(f, checked)
}

func layout(f *ir.Function, checked ...bool) ([]Argument, int, int, error) {
	args := make([]Argument, len(f.Params))
	binding, off := 0, PushHeaderSize
	for i, p := range f.Params {
		t := p.Type
		if t.IsResource() && !t.ByAddress() && t != ir.Accel {
			args[i] = Argument{Var: p, Binding: binding, Offset: -1}
			binding++
			continue
		}
		a := t.Align()
		if t.ByAddress() || t == ir.Accel {
			a = 8 // a u64 device address, then the u64 element count (an accel's: its box table)
		}
		if t == ir.TBool {
			a = 4 // bools travel as u32 in push constants
		}
		off = (off + a - 1) / a * a
		args[i] = Argument{Var: p, Binding: -1, Offset: off}
		off += pushSize(t)
	}
	ring := -1
	if len(f.Prints()) > 0 || len(checked) > 0 && checked[0] {
		off = (off + 7) / 8 * 8
		ring = off
		off += PrintRingSize
	}
	if off > MaxPushSize {
		return nil, 0, 0, fmt.Errorf("%w: kernel %s: uniform arguments need %d push-constant bytes, ABI v1 allows %d", ir.ErrUnsupported, f.Name, off, MaxPushSize)
	}
	return args, ring, off, nil
}

func pushSize(t *ir.Type) int {
	if t == ir.TBool {
		return 4
	}
	if t.ByAddress() || t == ir.Accel {
		return AddressArgSize
	}
	return t.Size()
}
