package gokernel

import (
	"fmt"
	"go/types"
	"math/bits"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// kernelPath is the import path of the intrinsics package kernels import.
const kernelPath = "github.com/lucent-gpu/lucent/kernel"

// sizes is the layout of host Go values: device structs take Go's offsets.
var sizes = types.SizesFor("gc", "amd64")

// kernelVectors maps the kernel package's vector and matrix types.
var kernelVectors = map[string]*ir.Type{
	"Float2": ir.Vector(ir.TF32, 2), "Float3": ir.Vector(ir.TF32, 3), "Float4": ir.Vector(ir.TF32, 4),
	"Int2": ir.Vector(ir.TI32, 2), "Int3": ir.Vector(ir.TI32, 3), "Int4": ir.Vector(ir.TI32, 4),
	"Uint2": ir.Vector(ir.TU32, 2), "Uint3": ir.Vector(ir.TU32, 3), "Uint4": ir.Vector(ir.TU32, 4),
	"Float2x2": ir.Matrix(2, 2), "Float3x3": ir.Matrix(3, 3), "Float4x4": ir.Matrix(4, 4),
}

// typeError is a type the kernel language cannot express, with the advice
// the user reads.
type typeError struct{ msg string }

func (e *typeError) Error() string { return e.msg }

func typeErrorf(format string, args ...any) *typeError {
	return &typeError{fmt.Sprintf(format, args...)}
}

// valueType maps a Go type of a value (a local, a parameter, an
// expression) to its device type.
func (c *compiler) valueType(t types.Type) (*ir.Type, *typeError) {
	if ft, ok := c.typeCache[t]; ok {
		return ft, nil
	}
	ft, err := c.mapType(t)
	if err == nil {
		c.typeCache[t] = ft
	}
	return ft, err
}

func (c *compiler) mapType(t types.Type) (*ir.Type, *typeError) {
	t = types.Unalias(t)
	switch t := t.(type) {
	case *types.Basic:
		return basicType(t)
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil && obj.Pkg().Path() == kernelPath {
			if ft, ok := kernelVectors[obj.Name()]; ok {
				return ft, nil
			}
			switch obj.Name() {
			case "Texture2D", "Texture3D":
				dim := 2
				if obj.Name() == "Texture3D" {
					dim = 3
				}
				texel, err := c.valueType(t.TypeArgs().At(0))
				if err != nil {
					return nil, err
				}
				return ir.Texture(dim, texel), nil
			case "Bindless":
				return ir.Bindless, nil
			case "Accel":
				return ir.Accel, nil
			case "Ray":
				return c.structType(obj.Name(), t.Underlying().(*types.Struct))
			case "Hit":
				return c.layoutType(t, ir.RayHit, "the device's ray hit")
			case "Candidate":
				return c.layoutType(t, ir.RayCandidate, "the device's ray-query candidate")
			case "QueryResult":
				return c.layoutType(t, ir.RayCommitted, "the device's ray-query result")
			case "Transform":
				return c.valueType(t.Underlying())
			case "RayQuery":
				return nil, typeErrorf("a kernel.RayQuery is not a value: declare it with q := acc.Query(r), loop over it with for q.Next() { … } and read q.Committed() after the loop")
			case "Tracer":
				return nil, typeErrorf("kernel.Tracer is the host side of a kernel.Accel: kernels take the kernel.Accel")
			case "BindlessTexture2D":
				return nil, typeErrorf("a bindless texture cannot be held in a value: use arr.Texture2D(slot) directly, or name it with tex := arr.Texture2D(slot)")
			}
			return nil, typeErrorf("kernel.%s is not a device type", obj.Name())
		}
		if st, ok := t.Underlying().(*types.Struct); ok {
			return c.structType(obj.Name(), st)
		}
		return c.valueType(t.Underlying())
	case *types.Array:
		if t.Len() == 0 {
			return nil, typeErrorf("zero-length arrays have no device layout: give the array at least one element")
		}
		e, err := c.valueType(t.Elem())
		if err != nil {
			return nil, err
		}
		if e.IsResource() {
			return nil, typeErrorf("arrays of %s are not supported: pass each as its own kernel parameter", e)
		}
		if t.Len() > int64(ir.MaxTypeSize/e.Size()) {
			size := "more than 16 EiB"
			if hi, lo := bits.Mul64(uint64(t.Len()), uint64(e.Size())); hi == 0 {
				size = ir.SizeText(lo)
			}
			return nil, typeErrorf("%s is %s, more than the %s a type may take (ir.MaxTypeSize): keep large data in a buffer parameter", goType(t), size, ir.SizeText(ir.MaxTypeSize))
		}
		return ir.Array(e, int(t.Len())), nil
	case *types.Struct:
		return c.structType("anon", t)
	case *types.Slice:
		return nil, typeErrorf("slices are device buffers, which kernels and their helpers take only as parameters: take the buffer as a parameter and index it there (make, append and slicing allocate, which kernels cannot)")
	case *types.Pointer:
		return nil, typeErrorf("pointers are not supported here: kernels reach host memory only through buffer (slice) parameters; a pointer is a local bound once to a place (p := &buf[i]) or a pointer parameter of a helper function")
	case *types.Map:
		return nil, typeErrorf("maps are not supported in kernels: use a buffer ([]T) indexed by a computed key")
	case *types.Chan:
		return nil, typeErrorf("channels are not supported in kernels: threads of a block communicate through kernel.Shared memory with kernel.Barrier, or through atomics")
	case *types.Interface:
		return nil, typeErrorf("interfaces are not supported in kernels: the device has no dynamic dispatch; use a concrete type, or switch on an integer tag")
	case *types.Signature:
		return nil, typeErrorf("function values are not supported in kernels: call named functions directly")
	case *types.TypeParam:
		return nil, typeErrorf("generic types are not instantiated in kernels (generic functions are): write the type for concrete fields")
	case *types.Tuple:
		return nil, typeErrorf("a multi-value expression is not a single value: assign its results to variables first")
	}
	return nil, typeErrorf("type %s is not supported in kernels", t)
}

func basicType(t *types.Basic) (*ir.Type, *typeError) {
	switch t.Kind() {
	case types.Bool, types.UntypedBool:
		return ir.TBool, nil
	case types.Int8:
		return ir.TI8, nil
	case types.Int16:
		return ir.TI16, nil
	case types.Int32, types.UntypedRune:
		return ir.TI32, nil
	case types.Int, types.Int64, types.UntypedInt:
		return ir.TI64, nil
	case types.Uint8:
		return ir.TU8, nil
	case types.Uint16:
		return ir.TU16, nil
	case types.Uint32:
		return ir.TU32, nil
	case types.Uint, types.Uint64:
		return ir.TU64, nil
	case types.Float32:
		return ir.TF32, nil
	case types.Float64, types.UntypedFloat:
		return ir.TF64, nil
	case types.String, types.UntypedString:
		return nil, typeErrorf("strings are not supported in kernels: the device has no string type; pass numbers instead (e.g. byte codes in a []uint32 buffer)")
	case types.Complex64, types.Complex128, types.UntypedComplex:
		return nil, typeErrorf("complex numbers are not supported in kernels: use a kernel.Float2 holding (re, im)")
	case types.Uintptr, types.UnsafePointer:
		return nil, typeErrorf("unsafe pointers and uintptr are not supported in kernels: kernels reach memory only through buffer (slice) parameters")
	case types.UntypedNil:
		return nil, typeErrorf("nil is not supported in kernels: there are no pointers, slices to allocate, maps or interfaces on the device")
	}
	return nil, typeErrorf("type %s is not supported in kernels", t)
}

// structType maps a Go struct to a device struct at Go's field offsets.
func (c *compiler) structType(name string, st *types.Struct) (*ir.Type, *typeError) {
	vars := make([]*types.Var, st.NumFields())
	fts := make([]*ir.Type, len(vars))
	// Fields map first: each is then within MaxTypeSize, so Go's offsets
	// and size below cannot overflow.
	for i := range vars {
		v := st.Field(i)
		vars[i] = v
		if sizes.Sizeof(v.Type()) == 0 {
			continue
		}
		if b, ok := types.Unalias(v.Type()).Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
			return nil, typeErrorf("field %s.%s is a bool, which has no device layout: use a uint32 (0 or 1)", name, v.Name())
		}
		ft, err := c.valueType(v.Type())
		if err != nil {
			return nil, typeErrorf("field %s.%s: %s", name, v.Name(), err.msg)
		}
		if ft.IsResource() {
			return nil, typeErrorf("field %s.%s is a %s, which has no device layout: %s", name, v.Name(), goTypeName(v.Type()), noLayoutHint(ft))
		}
		fts[i] = ft
	}
	if size := sizes.Sizeof(st); size > ir.MaxTypeSize {
		return nil, typeErrorf("struct %s is %s, more than the %s a type may take (ir.MaxTypeSize): keep large data in a buffer parameter", name, ir.SizeText(uint64(size)), ir.SizeText(ir.MaxTypeSize))
	}
	offs := sizes.Offsetsof(vars)
	var fs []ir.Field
	for i, v := range vars {
		if fts[i] == nil {
			continue
		}
		fs = append(fs, ir.Field{Name: v.Name(), Type: fts[i], Offset: int(offs[i])})
	}
	if len(fs) == 0 {
		return nil, typeErrorf("struct %s has no sized fields: give it at least one field", name)
	}
	ft, err := ir.StructType(name, fs, int(sizes.Sizeof(st)))
	if err != nil {
		return nil, typeErrorf("struct %s has no device layout: %v", name, err)
	}
	return ft, nil
}

// fieldIndex returns the device field index of Go field i of struct st (zero-sized
// fields are skipped on the device).
func fieldIndex(st *types.Struct, i int) int {
	n := 0
	for j := range i {
		if sizes.Sizeof(st.Field(j).Type()) != 0 {
			n++
		}
	}
	return n
}

// layoutType maps a kernel struct of the ray-query ops (kernel.Hit,
// Candidate, QueryResult) to its IR type ir (ir.RayHit, …), after checking
// that Go lays the two out alike (field by field: name, type, offset; and
// the size).
func (c *compiler) layoutType(t *types.Named, ir_ *ir.Type, what string) (*ir.Type, *typeError) {
	name := t.Obj().Name()
	st, err := c.structType(name, t.Underlying().(*types.Struct))
	if err != nil {
		return nil, err
	}
	got, want := st.Fields(), ir_.Fields()
	same := st.Size() == ir_.Size() && len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = got[i].Name == want[i].Name && got[i].Type == want[i].Type && got[i].Offset == want[i].Offset
	}
	if !same {
		return nil, typeErrorf("kernel.%s %v does not have the layout of %s %v", name, got, what, want)
	}
	return ir_, nil
}
