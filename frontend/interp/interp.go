// Package interp executes kernels on the CPU, thread after thread, from
// their AST: the oracle the device's results are diffed against (Go's
// semantics for integers, float32 arithmetic rounded per operation, the
// built-ins' CPU references).
//
// Values are flattened to their scalar leaves, each a uint64 holding the
// scalar's bits at its own width (a float32 as its IEEE bits). Threads run
// one after another, so kernels that synchronise (barriers, shared memory,
// subgroups) or race (atomics) are rejected, as are textures, bindless
// arrays and matrix arithmetic. f16 arithmetic is done wider and rounded
// to f16 after each operation (correctly rounded, as on the GPU). Ray
// queries trace an accel/bvh scene (bvh.Scene.Trace), as the cpu backend
// does.
package interp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// ErrUnsupported is wrapped by errors about kernels the interpreter cannot run.
var ErrUnsupported = errors.New("interp: unsupported")

// Buffer is a buffer argument: Data holds elements of Elem in Go's layout.
type Buffer struct {
	Elem *ir.Type
	Data []byte
}

// NewBuffer makes a buffer of n zero elements.
func NewBuffer(elem *ir.Type, n int) *Buffer {
	return &Buffer{Elem: elem, Data: make([]byte, n*elem.Size())}
}

// Len is the number of elements.
func (b *Buffer) Len() int { return len(b.Data) / b.Elem.Size() }

// Run executes kernel f for every thread of a size[0]×size[1]×size[2]
// dispatch. args are the kernel's arguments in order: *Buffer for buffers,
// *bvh.Scene for accels, and for uniforms a Go value of the argument's type (bool, ints, floats,
// or any value whose bytes have the type's layout, given as []byte).
//
// What the kernel prints goes to slog.Default(), with the kernel's name and
// the thread's dispatch id; RunPrint takes a function instead.
func Run(f *ir.Function, size [3]uint32, args ...any) (err error) {
	return RunPrint(f, size, func(thread [3]uint32, text string) {
		slog.Info("kernel print", "kernel", f.Name, "thread", thread, "text", text)
	}, args...)
}

// RunPrint is Run handing each text the kernel prints (ir.Print, formatted
// as Go's fmt would format the same values) to print, with the printing
// thread's dispatch id, in the order the threads print.
func RunPrint(f *ir.Function, size [3]uint32, print func(thread [3]uint32, text string), args ...any) (err error) {
	if print == nil {
		return errors.New("interp: nil print function")
	}
	if err := f.Validate(); err != nil {
		return err
	}
	if len(args) != len(f.Params) {
		return fmt.Errorf("interp: %s takes %d arguments, got %d", f.Name, len(f.Params), len(args))
	}
	if len(f.Shared) > 0 {
		return fmt.Errorf("%w: %s uses shared memory", ErrUnsupported, f.Name)
	}
	m := &machine{bufs: map[*ir.Var]*Buffer{}, uniforms: map[*ir.Var][]uint64{}, accels: map[*ir.Var]*bvh.Scene{}, print: print}
	for i, p := range f.Params {
		if p.Type == ir.Accel {
			s, ok := args[i].(*bvh.Scene)
			if !ok || s == nil {
				return fmt.Errorf("interp: argument %d (%s) wants an accel (a non-nil *bvh.Scene), got %T", i, p.Name, args[i])
			}
			m.accels[p] = s
			continue
		}
		if p.Type.Kind() == ir.KindBuffer {
			b, ok := args[i].(*Buffer)
			if !ok || b.Elem != p.Type.Elem() {
				return fmt.Errorf("interp: argument %d (%s) wants a buffer of %s, got %T", i, p.Name, p.Type.Elem(), args[i])
			}
			m.bufs[p] = b
			continue
		}
		if p.Type.IsResource() {
			return fmt.Errorf("%w: argument %s of type %s", ErrUnsupported, p.Name, p.Type)
		}
		v, err := uniform(p.Type, args[i])
		if err != nil {
			return fmt.Errorf("interp: argument %d (%s): %w", i, p.Name, err)
		}
		m.uniforms[p] = v
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(interpError); ok {
				err = e.err
				return
			}
			panic(r)
		}
	}()
	for z := uint32(0); z < size[2]; z++ {
		for y := uint32(0); y < size[1]; y++ {
			for x := uint32(0); x < size[0]; x++ {
				m.id = [3]uint32{x, y, z}
				m.size = size
				m.block = f.BlockSize
				m.call(f, nil)
			}
		}
	}
	return nil
}

type interpError struct{ err error }

func fail(format string, args ...any) {
	panic(interpError{fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))})
}

// uniform converts a host value to leaves.
func uniform(t *ir.Type, v any) ([]uint64, error) {
	var raw []byte
	switch x := v.(type) {
	case []byte:
		raw = x
	case bool:
		if t != ir.TBool {
			return nil, fmt.Errorf("bool for %s", t)
		}
		if x {
			return []uint64{1}, nil
		}
		return []uint64{0}, nil
	case float32:
		raw = binary.LittleEndian.AppendUint32(nil, math.Float32bits(x))
	case float64:
		raw = binary.LittleEndian.AppendUint64(nil, math.Float64bits(x))
	case int32:
		raw = binary.LittleEndian.AppendUint32(nil, uint32(x))
	case uint32:
		raw = binary.LittleEndian.AppendUint32(nil, x)
	case int64:
		raw = binary.LittleEndian.AppendUint64(nil, uint64(x))
	case uint64:
		raw = binary.LittleEndian.AppendUint64(nil, x)
	default:
		return nil, fmt.Errorf("give %T as []byte in the type's layout", v)
	}
	if len(raw) != t.Size() {
		return nil, fmt.Errorf("%d bytes for %s of %d", len(raw), t, t.Size())
	}
	return decode(t, raw), nil
}

// decode reads a value of t from its Go layout.
func decode(t *ir.Type, b []byte) []uint64 {
	out := make([]uint64, 0, ir.Leaves(t))
	var rec func(t *ir.Type, off int)
	rec = func(t *ir.Type, off int) {
		switch t.Kind() {
		case ir.KindVector, ir.KindMatrix, ir.KindArray:
			for i := range t.Len() {
				rec(t.Elem(), off+i*t.Elem().Size())
			}
		case ir.KindStruct:
			for _, f := range t.Fields() {
				rec(f.Type, off+f.Offset)
			}
		default:
			var v uint64
			for i := range t.Size() {
				v |= uint64(b[off+i]) << (8 * i)
			}
			out = append(out, v)
		}
	}
	rec(t, 0)
	return out
}

// encode writes a value of t in its Go layout.
func encode(t *ir.Type, v []uint64, b []byte) {
	i := 0
	var rec func(t *ir.Type, off int)
	rec = func(t *ir.Type, off int) {
		switch t.Kind() {
		case ir.KindVector, ir.KindMatrix, ir.KindArray:
			for j := range t.Len() {
				rec(t.Elem(), off+j*t.Elem().Size())
			}
		case ir.KindStruct:
			for _, f := range t.Fields() {
				rec(f.Type, off+f.Offset)
			}
		default:
			x := v[i]
			i++
			for k := range t.Size() {
				b[off+k] = byte(x >> (8 * k))
			}
		}
	}
	rec(t, 0)
}
