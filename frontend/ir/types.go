package ir

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Kind says what family a Type belongs to.
type Kind uint8

// The kinds of type.
const (
	KindVoid Kind = iota
	KindBool
	KindInt   // signed integer
	KindUint  // unsigned integer
	KindFloat // IEEE float
	KindVector
	KindMatrix
	KindArray
	KindStruct
	KindBuffer
	KindTexture
	KindBindless
	KindAccel
)

var kindNames = [...]string{"void", "bool", "int", "uint", "float", "vector", "matrix", "array", "struct", "buffer", "texture", "bindless", "accel"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Field is one member of a struct type, at its device (= Go) offset.
type Field struct {
	Name   string
	Type   *Type
	Offset int
}

// Type is an interned kernel type: compare types with ==.
type Type struct {
	kind   Kind
	bits   int     // scalar width in bits
	elem   *Type   // vector/array/buffer/texture element; matrix column
	n      int     // vector length, matrix column count, array length, texture dimension
	fields []Field // struct members
	name   string  // struct name
	size   int     // device size in bytes (0 for opaque types)
	format TexelFormat
	addr   bool // a buffer passed by device address
	align  int
	key    string
}

// Kind reports the type's kind.
func (t *Type) Kind() Kind { return t.kind }

// Bits is the width of a scalar type in bits (bool reports 8, its host width).
func (t *Type) Bits() int { return t.bits }

// Elem is the element type of a vector, array, buffer or texture, and the
// column type of a matrix.
func (t *Type) Elem() *Type { return t.elem }

// Len is the length of a vector or array, the column count of a matrix and
// the dimension (2 or 3) of a texture.
func (t *Type) Len() int { return t.n }

// Fields lists a struct's members.
func (t *Type) Fields() []Field { return t.fields }

// HoldsBool reports whether t is a bool or has one in it: a bool vector, or
// an array, matrix or struct with a bool element or field.
func (t *Type) HoldsBool() bool {
	switch t.kind {
	case KindBool:
		return true
	case KindVector, KindArray, KindMatrix:
		return t.elem.HoldsBool()
	case KindStruct:
		for _, f := range t.fields {
			if f.Type.HoldsBool() {
				return true
			}
		}
	}
	return false
}

// Name is a struct's name.
func (t *Type) Name() string { return t.name }

// Size is the device size in bytes, equal to the Go size of the host type.
func (t *Type) Size() int { return t.size }

// Align is the device (scalar layout) alignment in bytes.
func (t *Type) Align() int { return t.align }

func (t *Type) String() string { return t.key }

// IsScalar reports bool, integer and float types.
func (t *Type) IsScalar() bool { return t.kind >= KindBool && t.kind <= KindFloat }

// IsNumeric reports integer and float scalars.
func (t *Type) IsNumeric() bool { return t.kind >= KindInt && t.kind <= KindFloat }

// IsInteger reports signed and unsigned integer scalars.
func (t *Type) IsInteger() bool { return t.kind == KindInt || t.kind == KindUint }

// IsResource reports types passed as bound resources (buffers, textures,
// bindless arrays, acceleration structures).
func (t *Type) IsResource() bool { return t.kind >= KindBuffer }

// Scalar is the scalar type under a vector or matrix, or t itself.
func (t *Type) Scalar() *Type {
	switch t.kind {
	case KindVector:
		return t.elem
	case KindMatrix:
		return t.elem.elem
	}
	return t
}

// Components is the number of scalars of a scalar (1) or vector type.
func (t *Type) Components() int {
	if t.kind == KindVector {
		return t.n
	}
	return 1
}

var (
	internMu sync.Mutex
	interned = map[string]*Type{}
)

func intern(t *Type) *Type {
	internMu.Lock()
	defer internMu.Unlock()
	if u, ok := interned[t.key]; ok {
		return u
	}
	interned[t.key] = t
	return t
}

// Predeclared types.
var (
	TVoid = intern(&Type{kind: KindVoid, key: "void"})
	TBool = intern(&Type{kind: KindBool, bits: 8, size: 1, align: 1, key: "bool"})
	TI8   = Int(8)
	TI16  = Int(16)
	TI32  = Int(32)
	TI64  = Int(64)
	TU8   = Uint(8)
	TU16  = Uint(16)
	TU32  = Uint(32)
	TU64  = Uint(64)
	TF16  = Float(16)
	TF32  = Float(32)
	TF64  = Float(64)
)

func scalar(k Kind, prefix string, bits int) *Type {
	switch bits {
	case 8, 16, 32, 64:
	default:
		panic(fmt.Sprintf("frontend: %s width %d is not 8, 16, 32 or 64", k, bits))
	}
	if k == KindFloat && bits == 8 {
		panic("frontend: there is no 8-bit float")
	}
	return intern(&Type{kind: k, bits: bits, size: bits / 8, align: bits / 8, key: fmt.Sprintf("%s%d", prefix, bits)})
}

// Int is the signed integer type of the given width (8, 16, 32 or 64).
func Int(bits int) *Type { return scalar(KindInt, "i", bits) }

// Uint is the unsigned integer type of the given width.
func Uint(bits int) *Type { return scalar(KindUint, "u", bits) }

// Float is the float type of the given width (16, 32 or 64).
func Float(bits int) *Type { return scalar(KindFloat, "f", bits) }

// Vector is the n-component (2–4) vector of a scalar type.
func Vector(elem *Type, n int) *Type {
	if !elem.IsScalar() || n < 2 || n > 4 {
		panic(fmt.Sprintf("frontend: no vector of %d %s", n, elem))
	}
	return intern(&Type{kind: KindVector, elem: elem, n: n, bits: elem.bits, size: elem.size * n, align: elem.align,
		key: fmt.Sprintf("vec%d<%s>", n, elem)})
}

// Matrix is the float32 matrix of cols columns of rows rows (each 2–4), stored
// column-major with columns packed (stride rows*4).
func Matrix(cols, rows int) *Type {
	if cols < 2 || cols > 4 || rows < 2 || rows > 4 {
		panic(fmt.Sprintf("frontend: no %dx%d matrix", cols, rows))
	}
	col := Vector(TF32, rows)
	return intern(&Type{kind: KindMatrix, elem: col, n: cols, size: col.size * cols, align: 4,
		key: fmt.Sprintf("mat%dx%d", cols, rows)})
}

// Array is the fixed array of n elements. It panics where ArrayType errs (n
// not positive, elem unsized, or more than MaxTypeSize bytes); ArrayType is
// the form for lengths that come from input.
func Array(elem *Type, n int) *Type {
	if n <= 0 || elem.size == 0 || n > MaxTypeSize/elem.size {
		panic(fmt.Sprintf("frontend: no array of %d %s", n, elem))
	}
	return intern(&Type{kind: KindArray, elem: elem, n: n, size: elem.size * n, align: elem.align,
		key: fmt.Sprintf("[%d]%s", n, elem)})
}

// Buffer is a device buffer of elements.
func Buffer(elem *Type) *Type {
	if elem.size == 0 || elem.kind == KindBool {
		panic(fmt.Sprintf("frontend: no buffer of %s", elem))
	}
	return intern(&Type{kind: KindBuffer, elem: elem, key: fmt.Sprintf("buffer<%s>", elem)})
}

// BufferAddress is a device buffer of elements the kernel reaches by device
// address, for views larger than a backend binds directly (the Vulkan
// backend passes the address in the push-constant block instead of a
// descriptor, for buffers beyond maxStorageBufferRange: docs/kernel-abi.md).
func BufferAddress(elem *Type) *Type {
	if elem.size == 0 || elem.kind == KindBool {
		panic(fmt.Sprintf("frontend: no buffer of %s", elem))
	}
	return intern(&Type{kind: KindBuffer, elem: elem, addr: true, key: fmt.Sprintf("buffer_address<%s>", elem)})
}

// ByAddress reports a buffer type passed by device address.
func (t *Type) ByAddress() bool { return t.addr }

// TexelFormat is the storage format a texture type declares; devices need
// it to read a storage texture (reading "any format" is an optional feature).
type TexelFormat uint8

// Texel formats.
const (
	FormatAny      TexelFormat = iota // write-only use on devices without formatless reads
	FormatRGBA32F                     // 4 × f32
	FormatRGBA16F                     // 4 × f16, read as f32
	FormatRGBA8                       // 4 × unorm8, read as f32 in [0, 1]
	FormatR32F                        // f32 in x
	FormatRGBA32UI                    // 4 × u32
	FormatR32UI                       // u32 in x
	FormatRGBA32I                     // 4 × i32
	FormatR32I                        // i32 in x
)

var formatNames = [...]string{"any", "rgba32f", "rgba16f", "rgba8", "r32f", "rgba32ui", "r32ui", "rgba32i", "r32i"}

func (f TexelFormat) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("TexelFormat(%d)", f)
}

// texelKind is the scalar kind a format reads as.
func (f TexelFormat) texelKind() Kind {
	switch f {
	case FormatRGBA32UI, FormatR32UI:
		return KindUint
	case FormatRGBA32I, FormatR32I:
		return KindInt
	}
	return KindFloat
}

// Format is a texture type's texel format.
func (t *Type) Format() TexelFormat { return t.format }

// TextureOf is the 2D or 3D storage texture of the given texel format; its
// texels read and write as 4-vectors of f32, u32 or i32 per the format.
func TextureOf(dim int, f TexelFormat) *Type {
	var elem *Type
	switch f.texelKind() {
	case KindUint:
		elem = Vector(TU32, 4)
	case KindInt:
		elem = Vector(TI32, 4)
	default:
		elem = Vector(TF32, 4)
	}
	if dim != 2 && dim != 3 || int(f) >= len(formatNames) {
		panic(fmt.Sprintf("frontend: no %dD texture of format %s", dim, f))
	}
	return intern(&Type{kind: KindTexture, elem: elem, n: dim, format: f, key: fmt.Sprintf("texture%dd<%s>", dim, f)})
}

// Texture is a 2D or 3D storage texture of any format whose texels read as
// elem (a 4-vector of f32, i32 or u32); prefer TextureOf, as reading a
// texture of unspecified format is an optional device feature.
func Texture(dim int, elem *Type) *Type {
	if dim != 2 && dim != 3 {
		panic(fmt.Sprintf("frontend: no %dD texture", dim))
	}
	if elem.kind != KindVector || elem.n != 4 || elem.elem.bits != 32 || elem.elem.kind == KindBool {
		panic(fmt.Sprintf("frontend: texture texel %s is not a 4-vector of 32-bit scalars", elem))
	}
	return intern(&Type{kind: KindTexture, elem: elem, n: dim, key: fmt.Sprintf("texture%dd<%s>", dim, elem)})
}

// Bindless is the bindless array type.
var Bindless = intern(&Type{kind: KindBindless, key: "bindless"})

// RayHit is what OpRayClosest yields, laid out as kernel.Hit: the hit
// instance's user id and the primitive's index in its mesh or procedural,
// the triangle's barycentrics (u, v: the hit is (1-u-v)·A + u·B + v·C), the
// distance t along the ray, and Kind (HitMiss, HitTriangle or
// HitProcedural; the other fields are zero on a miss).
var RayHit = mustStruct("RayHit", []Field{
	{Name: "Instance", Type: TU32, Offset: 0},
	{Name: "Prim", Type: TU32, Offset: 4},
	{Name: "Bary", Type: Vector(TF32, 2), Offset: 8},
	{Name: "T", Type: TF32, Offset: 16},
	{Name: "Kind", Type: TU32, Offset: 20},
}, 24)

// The kinds of a RayHit.
const (
	HitMiss       = 0
	HitTriangle   = 1
	HitProcedural = 2 // a procedural box hit, at the distance the ray enters it
)

func mustStruct(name string, fields []Field, size int) *Type {
	t, err := StructType(name, fields, size)
	if err != nil {
		panic(err)
	}
	return t
}

// Accel is the acceleration-structure type (docs/accel.md): a kernel
// argument that ray queries (OpRayClosest, OpRayAny) trace.
var Accel = intern(&Type{kind: KindAccel, key: "accel"})

// ErrType is wrapped by errors about types the kernel language cannot express.
var ErrType = errors.New("frontend: unsupported type")

// StructType builds a struct type from fields with explicit offsets; size is the
// total size (with trailing padding). Offsets must be increasing, aligned and
// non-overlapping.
func StructType(name string, fields []Field, size int) (*Type, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "struct %s{", name)
	align, end := 1, 0
	for i, f := range fields {
		if f.Type == nil || f.Type.size == 0 || f.Type.kind == KindBool {
			return nil, fmt.Errorf("%w: struct %s field %s has type %v", ErrType, name, f.Name, f.Type)
		}
		if f.Offset < end || f.Offset%f.Type.align != 0 {
			return nil, fmt.Errorf("%w: struct %s field %s at offset %d overlaps or is misaligned", ErrType, name, f.Name, f.Offset)
		}
		end = f.Offset + f.Type.size
		align = max(align, f.Type.align)
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, "%s %s@%d", f.Name, f.Type, f.Offset)
	}
	if size < end || size%align != 0 {
		return nil, fmt.Errorf("%w: struct %s size %d is too small or misaligned", ErrType, name, size)
	}
	if size > MaxTypeSize {
		return nil, fmt.Errorf("%w: struct %s is %s, more than the %s a type may take", ErrType, name, SizeText(uint64(size)), SizeText(MaxTypeSize))
	}
	fmt.Fprintf(&b, "}#%d", size)
	return intern(&Type{kind: KindStruct, fields: append([]Field(nil), fields...), name: name, size: size, align: align, key: b.String()}), nil
}

// Host vector types: Go arrays that map to device vectors (not arrays) in
// TypeOf, with the same layout on both sides.
type (
	Float2 [2]float32
	Float3 [3]float32
	Float4 [4]float32
	Int2   [2]int32
	Int3   [3]int32
	Int4   [4]int32
	Uint2  [2]uint32
	Uint3  [3]uint32
	Uint4  [4]uint32
	// Float4x4 is a column-major 4×4 matrix.
	Float4x4 [4]Float4
	Float3x3 [3]Float3
	Float2x2 [2]Float2
)

var hostTypes = map[reflect.Type]*Type{
	reflect.TypeFor[Float2]():   Vector(TF32, 2),
	reflect.TypeFor[Float3]():   Vector(TF32, 3),
	reflect.TypeFor[Float4]():   Vector(TF32, 4),
	reflect.TypeFor[Int2]():     Vector(TI32, 2),
	reflect.TypeFor[Int3]():     Vector(TI32, 3),
	reflect.TypeFor[Int4]():     Vector(TI32, 4),
	reflect.TypeFor[Uint2]():    Vector(TU32, 2),
	reflect.TypeFor[Uint3]():    Vector(TU32, 3),
	reflect.TypeFor[Uint4]():    Vector(TU32, 4),
	reflect.TypeFor[Float2x2](): Matrix(2, 2),
	reflect.TypeFor[Float3x3](): Matrix(3, 3),
	reflect.TypeFor[Float4x4](): Matrix(4, 4),
}

// TypeOf maps a Go type to its device type: sized numeric kinds to scalars
// (int and uint to 64 bits), the Float*/Int*/Uint* host types to vectors and
// matrices, arrays to arrays and structs to structs at Go's offsets. It
// rejects pointers, slices, maps, strings, interfaces, channels, functions
// and bool inside structs (bool has no storage layout in SPIR-V).
func TypeOf(rt reflect.Type) (*Type, error) { return typeOf(rt, false) }

func typeOf(rt reflect.Type, inAggregate bool) (*Type, error) {
	if t, ok := hostTypes[rt]; ok {
		return t, nil
	}
	switch rt.Kind() {
	case reflect.Bool:
		if inAggregate {
			return nil, fmt.Errorf("%w: bool inside a struct or array (%s); use uint8 or uint32", ErrType, rt)
		}
		return TBool, nil
	case reflect.Int8:
		return TI8, nil
	case reflect.Int16:
		return TI16, nil
	case reflect.Int32:
		return TI32, nil
	case reflect.Int64, reflect.Int:
		return TI64, nil
	case reflect.Uint8:
		return TU8, nil
	case reflect.Uint16:
		return TU16, nil
	case reflect.Uint32:
		return TU32, nil
	case reflect.Uint64, reflect.Uint:
		return TU64, nil
	case reflect.Float32:
		return TF32, nil
	case reflect.Float64:
		return TF64, nil
	case reflect.Array:
		if rt.Len() == 0 {
			return nil, fmt.Errorf("%w: zero-length array %s", ErrType, rt)
		}
		e, err := typeOf(rt.Elem(), true)
		if err != nil {
			return nil, err
		}
		return ArrayType(e, rt.Len())
	case reflect.Struct:
		fs := make([]Field, 0, rt.NumField())
		for i := range rt.NumField() {
			sf := rt.Field(i)
			if sf.Type.Size() == 0 {
				continue
			}
			ft, err := typeOf(sf.Type, true)
			if err != nil {
				return nil, fmt.Errorf("field %s.%s: %w", rt, sf.Name, err)
			}
			fs = append(fs, Field{Name: sf.Name, Type: ft, Offset: int(sf.Offset)})
		}
		if len(fs) == 0 {
			return nil, fmt.Errorf("%w: struct %s has no sized fields", ErrType, rt)
		}
		name := rt.Name()
		if name == "" {
			name = "anon"
		}
		if rt.Size() > MaxTypeSize {
			return nil, fmt.Errorf("%w: struct %s is %s, more than the %s a type may take", ErrType, rt, SizeText(uint64(rt.Size())), SizeText(MaxTypeSize))
		}
		return StructType(name, fs, int(rt.Size()))
	}
	return nil, fmt.Errorf("%w: Go type %s has no device layout", ErrType, rt)
}
