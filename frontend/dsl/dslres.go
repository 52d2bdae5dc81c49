package dsl

import (
	"fmt"
	"reflect"
	"runtime"
	"sync"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Local is a mutable local variable holding a V.
type Local[V Value] struct {
	k *K
	v *ir.Var
}

// NewVar declares a local initialised to init.
func NewVar[V Value](k *K, init V) *Local[V] {
	e := init.Expr()
	if !k.check(e) {
		return &Local[V]{k: k, v: k.fn.AddLocal("bad", ir.TVoid)}
	}
	k.n++
	v := k.fn.AddLocal(fmt.Sprintf("v%d", k.n), e.Type())
	k.emit(&ir.Assign{Dst: &ir.Ref{Var: v}, Src: e})
	return &Local[V]{k: k, v: v}
}

// Get reads the variable's current value.
func (x *Local[V]) Get() V { return wrapAs[V](x.k.let(&ir.Ref{Var: x.v})) }

// Set stores v.
func (x *Local[V]) Set(v V) {
	if x.k.check(v.Expr()) {
		x.k.emit(&ir.Assign{Dst: &ir.Ref{Var: x.v}, Src: v.Expr()})
	}
}

// SetAt stores c in component i (0 is X, computed at run time) of the
// vector the variable holds; an i past the end writes the last component.
// The variable must hold a vector whose components have c's type.
func (x *Local[V]) SetAt(i U32, c Value) {
	if !x.k.check(i.e, c.Expr()) {
		return
	}
	t := x.v.Type
	if t.Kind() != ir.KindVector || c.Expr().Type() != t.Elem() {
		x.k.failf("SetAt of a %s component in a variable of type %s: the variable must hold a vector of %s", c.Expr().Type(), t, c.Expr().Type())
		return
	}
	x.k.emit(&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: x.v}, I: clampComp(i.e, t.Len()), T: t.Elem()}, Src: c.Expr()})
}

// Buf is a buffer argument of elements V (e.g. Buf[F32], Buf[F32x4],
// Buf[Struct[Particle]]).
type Buf[V Value] struct {
	k *K
	v *ir.Var
}

func (Buf[V]) paramType() (*ir.Type, error) {
	t, err := typeOfValue[V]()
	if err != nil {
		return nil, err
	}
	if t.Size() == 0 || t.Kind() == ir.KindBool {
		return nil, fmt.Errorf("%w: no buffer of %s", ir.ErrType, t)
	}
	return ir.Buffer(t), nil
}

func (Buf[V]) bind(k *K, v *ir.Var) any { return Buf[V]{k: k, v: v} }

// BigBuf is a buffer argument passed by device address rather than a
// descriptor (kernel ABI v1's form for buffers past maxStorageBufferRange,
// 128 MiB on lavapipe). It reads, writes, takes atomics and has a Len like
// Buf, and is bounds-checked like it: the view's element count travels with
// the address, reads past it give zero and writes and atomics past it are
// dropped.
type BigBuf[V Value] struct{ Buf[V] }

func (BigBuf[V]) paramType() (*ir.Type, error) {
	t, err := Buf[V]{}.paramType()
	if err != nil {
		return nil, err
	}
	return ir.BufferAddress(t.Elem()), nil
}

func (BigBuf[V]) bind(k *K, v *ir.Var) any { return BigBuf[V]{Buf[V]{k: k, v: v}} }

func (b Buf[V]) elem(i U32) (ir.Expr, bool) {
	if b.k == nil {
		return poison(fmt.Errorf("%w: use of an unbound buffer", ErrDSL)), false
	}
	if b.k.suspended("buffer " + b.v.Name) {
		return nil, false
	}
	if !b.k.check(i.Expr()) {
		return nil, false
	}
	return &ir.Index{X: &ir.Ref{Var: b.v}, I: i.e, T: b.v.Type.Elem()}, true
}

// Read loads element i (out of range reads yield zero under robust access).
func (b Buf[V]) Read(i U32) V {
	e, ok := b.elem(i)
	if !ok {
		return wrapAs[V](poison(fmt.Errorf("%w: bad buffer index", ErrDSL)))
	}
	return wrapAs[V](b.k.let(e))
}

// Write stores x at element i.
func (b Buf[V]) Write(i U32, x V) {
	e, ok := b.elem(i)
	if ok && b.k.check(x.Expr()) {
		b.k.emit(&ir.Assign{Dst: e, Src: x.Expr()})
	}
}

// Len is the number of elements.
func (b Buf[V]) Len() U32 {
	if b.k == nil {
		return U32{poison(fmt.Errorf("%w: use of an unbound buffer", ErrDSL))}
	}
	if b.k.suspended("buffer " + b.v.Name) {
		return U32{&ir.Poison{Err: b.k.err}}
	}
	return U32{b.k.let(&ir.Call{Op: ir.OpBufferSize, Args: []ir.Expr{&ir.Ref{Var: b.v}}, T: ir.TU32})}
}

// Atomic applies an atomic op (OpAtomicAdd …) to element i with operands and
// returns the element's old value.
func (b Buf[V]) Atomic(op ir.Op, i U32, operands ...V) V {
	e, ok := b.elem(i)
	if !ok {
		return wrapAs[V](poison(fmt.Errorf("%w: bad buffer index", ErrDSL)))
	}
	return atomic(b.k, op, e, operands)
}

// AtomicAdd adds x to element i and returns the old value.
func (b Buf[V]) AtomicAdd(i U32, x V) V { return b.Atomic(ir.OpAtomicAdd, i, x) }

func atomic[V Value](k *K, op ir.Op, place ir.Expr, operands []V) V {
	args := []ir.Expr{place}
	for _, o := range operands {
		args = append(args, o.Expr())
	}
	if p := poisoned(args...); p != nil {
		k.check(p)
		return wrapAs[V](p)
	}
	t, err := ir.CallType(op, args)
	if err != nil {
		k.fail(fmt.Errorf("%s: %s: %w", k.fn.Name, site(), err))
		return wrapAs[V](poison(err))
	}
	return wrapAs[V](k.let(&ir.Call{Op: op, Args: args, T: t}))
}

// Shared is a workgroup-shared array of V.
type Shared[V Value] struct {
	k *K
	v *ir.Var
}

// NewShared declares a shared array of n elements (kernels only).
func NewShared[V Value](k *K, n int) Shared[V] {
	t, err := typeOfValue[V]()
	if err == nil && (n <= 0 || k.fn.Kind != ir.KernelFunc || t.Size() == 0) {
		err = fmt.Errorf("%w: shared array of %d %s in %s", ErrDSL, n, t, k.fn.Name)
	}
	var at *ir.Type
	if err == nil {
		if at, err = ir.ArrayType(t, n); err != nil {
			err = fmt.Errorf("%w: NewShared in %s: %w", ErrDSL, k.fn.Name, err)
		}
	}
	if err != nil {
		k.fail(fmt.Errorf("%s: %w", site(), err))
		return Shared[V]{}
	}
	k.n++
	return Shared[V]{k: k, v: k.fn.AddShared(fmt.Sprintf("shared%d", k.n), at)}
}

func (s Shared[V]) elem(i U32) (ir.Expr, bool) {
	if s.k == nil {
		return nil, false
	}
	if !s.k.check(i.Expr()) || !s.k.constIndexOK("shared array", i.e, s.v.Type.Len()) {
		return nil, false
	}
	return &ir.Index{X: &ir.Ref{Var: s.v}, I: i.e, T: s.v.Type.Elem()}, true
}

// Read loads element i.
func (s Shared[V]) Read(i U32) V {
	e, ok := s.elem(i)
	if !ok {
		return wrapAs[V](poison(fmt.Errorf("%w: bad shared access", ErrDSL)))
	}
	return wrapAs[V](s.k.let(e))
}

// Write stores x at element i.
func (s Shared[V]) Write(i U32, x V) {
	if e, ok := s.elem(i); ok && s.k.check(x.Expr()) {
		s.k.emit(&ir.Assign{Dst: e, Src: x.Expr()})
	}
}

// Atomic applies an atomic op to element i.
func (s Shared[V]) Atomic(op ir.Op, i U32, operands ...V) V {
	e, ok := s.elem(i)
	if !ok {
		return wrapAs[V](poison(fmt.Errorf("%w: bad shared access", ErrDSL)))
	}
	return atomic(s.k, op, e, operands)
}

// constIndexOK reports whether index i of an array of n elements is in
// range where it is a constant, and records the error where it is not (a
// run-time index past the end is the checked mode's to catch).
func (k *K) constIndexOK(what string, i ir.Expr, n int) bool {
	if l, ok := i.(*ir.Literal); ok && l.Bits >= uint64(n) {
		k.failf("constant index %d past the end of a %s of %d elements", l.Bits, what, n)
		return false
	}
	return true
}

// LocalArray is a local fixed array of V.
type LocalArray[V Value] struct {
	k *K
	v *ir.Var
}

// NewArray declares a local array of n zero elements.
func NewArray[V Value](k *K, n int) *LocalArray[V] {
	t, err := typeOfValue[V]()
	if err != nil {
		k.failf("NewArray: %v", err)
		return &LocalArray[V]{}
	}
	if n <= 0 {
		k.failf("NewArray of %d elements: an array holds at least one", n)
		return &LocalArray[V]{}
	}
	at, err := ir.ArrayType(t, n)
	if err == nil && at.Size() > ir.MaxValueSize {
		err = fmt.Errorf("a local array of %d %s is %s, more than the %s a thread may hold (MaxValueSize): use NewShared or a buffer", n, t, ir.SizeText(uint64(at.Size())), ir.SizeText(ir.MaxValueSize))
	} else if err == nil && ir.Parts(at) > ir.MaxValueParts {
		err = fmt.Errorf("a local array of %d %s has %d parts, more than the %d a thread's value may have (MaxValueParts): use NewShared or a buffer", n, t, ir.Parts(at), ir.MaxValueParts)
	}
	if err != nil {
		k.failf("NewArray: %v", err)
		return &LocalArray[V]{}
	}
	k.n++
	v := k.fn.AddLocal(fmt.Sprintf("a%d", k.n), at)
	for _, s := range ir.ZeroInit(k.fn, &ir.Ref{Var: v}, at) {
		k.emit(s)
	}
	return &LocalArray[V]{k: k, v: v}
}

// At loads element i.
func (a *LocalArray[V]) At(i U32) V {
	if a.k == nil || !a.k.check(i.Expr()) || !a.k.constIndexOK("local array", i.e, a.v.Type.Len()) {
		return wrapAs[V](poison(fmt.Errorf("%w: bad array access", ErrDSL)))
	}
	return wrapAs[V](a.k.let(&ir.Index{X: &ir.Ref{Var: a.v}, I: i.e, T: a.v.Type.Elem()}))
}

// Set stores x at element i.
func (a *LocalArray[V]) Set(i U32, x V) {
	if a.k != nil && a.k.check(i.Expr(), x.Expr()) && a.k.constIndexOK("local array", i.e, a.v.Type.Len()) {
		a.k.emit(&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: a.v}, I: i.e, T: a.v.Type.Elem()}, Src: x.Expr()})
	}
}

// Tex2D is a 2D RGBA32F texture argument (texels read as F32x4).
type Tex2D struct {
	k *K
	v *ir.Var
}

func (Tex2D) paramType() (*ir.Type, error) { return ir.TextureOf(2, ir.FormatRGBA32F), nil }
func (Tex2D) bind(k *K, v *ir.Var) any     { return Tex2D{k: k, v: v} }

// Tex3D is a 3D RGBA32F texture argument.
type Tex3D struct {
	k *K
	v *ir.Var
}

func (Tex3D) paramType() (*ir.Type, error) { return ir.TextureOf(3, ir.FormatRGBA32F), nil }
func (Tex3D) bind(k *K, v *ir.Var) any     { return Tex3D{k: k, v: v} }

func (t Tex3D) call(op ir.Op, args ...ir.Expr) ir.Expr { return Tex2D(t).call(op, args...) }

// Read loads the texel at integer coordinates.
func (t Tex3D) Read(xyz U32x3) F32x4 { return F32x4{t.call(ir.OpTextureRead, xyz.Expr())} }

// Write stores a texel.
func (t Tex3D) Write(xyz U32x3, v F32x4) { t.call(ir.OpTextureWrite, xyz.Expr(), v.Expr()) }

// Size is the texture's extent.
func (t Tex3D) Size() U32x3 { return U32x3{t.call(ir.OpTextureSize)} }

// Sample filters trilinearly at normalised coordinates, clamping to the edge.
func (t Tex3D) Sample(uvw F32x3) F32x4 { return F32x4{t.call(ir.OpTextureSample, uvw.Expr())} }

// Tex2DRGBA8 is a 2D RGBA8 (unorm) texture argument whose texels read and
// write as F32x4 in [0, 1].
type Tex2DRGBA8 struct{ Tex2D }

func (Tex2DRGBA8) paramType() (*ir.Type, error) { return ir.TextureOf(2, ir.FormatRGBA8), nil }
func (Tex2DRGBA8) bind(k *K, v *ir.Var) any     { return Tex2DRGBA8{Tex2D{k: k, v: v}} }

func (t Tex2D) call(op ir.Op, args ...ir.Expr) ir.Expr {
	if t.k == nil {
		return poison(fmt.Errorf("%w: use of an unbound texture", ErrDSL))
	}
	if t.k.suspended("texture " + t.v.Name) {
		return &ir.Poison{Err: t.k.err}
	}
	args = append([]ir.Expr{&ir.Ref{Var: t.v}}, args...)
	if !t.k.check(args...) {
		return &ir.Poison{Err: t.k.err}
	}
	r, err := ir.CallType(op, args)
	if err != nil {
		t.k.fail(fmt.Errorf("%s: %s: %w", t.k.fn.Name, site(), err))
		return poison(err)
	}
	c := &ir.Call{Op: op, Args: args, T: r}
	if r == ir.TVoid {
		t.k.emit(&ir.ExprStmt{X: c})
		return nil
	}
	return t.k.let(c)
}

// Read loads the texel at integer coordinates.
func (t Tex2D) Read(xy U32x2) F32x4 { return F32x4{t.call(ir.OpTextureRead, xy.Expr())} }

// Write stores a texel.
func (t Tex2D) Write(xy U32x2, v F32x4) { t.call(ir.OpTextureWrite, xy.Expr(), v.Expr()) }

// Size is the texture's extent.
func (t Tex2D) Size() U32x2 { return U32x2{t.call(ir.OpTextureSize)} }

// Sample filters bilinearly at normalised coordinates uv, clamping to the edge.
func (t Tex2D) Sample(uv F32x2) F32x4 { return F32x4{t.call(ir.OpTextureSample, uv.Expr())} }

// Callable turns fn, a func(*K, params…) [result] whose parameters are DSL
// values (by value), *Local (by reference) or resources (Buf, BigBuf, Tex2D,
// Tex3D and the texture types of the other formats, BindlessArray), into a function of the same type that,
// called while tracing, emits a call of a function traced once from fn.
//
// A resource parameter takes the kernel's argument (or the calling
// callable's parameter, passed on) and is read and written in place: fn is
// traced once, and the kernel gets one copy of it per distinct tuple of
// resources it is called with (ir.Specialize), so callables never pass
// resources at run time. A Tex2D parameter also takes a Tex2DRGBA8's Tex2D,
// a Buf a BigBuf's. A callable cannot return a resource or take one by
// pointer, and uses the resources it is given: one of a kernel that is used
// in the callable's body without being passed is an error.
func Callable[F any](name string, fn F) F {
	fv := reflect.ValueOf(fn)
	if fv.Kind() != reflect.Func || fv.IsNil() || fv.Type().NumIn() == 0 || fv.Type().In(0) != kType || fv.Type().NumOut() > 1 {
		// There is no kernel to report it to: the call while tracing
		// panics with it, and the kernel's constructor returns it.
		bad := fmt.Errorf("%w: callable %s is not a func(*dsl.K, params…) with at most one result, got %T", ErrDSL, name, fn)
		if fv.Kind() != reflect.Func {
			panic(bad)
		}
		return reflect.MakeFunc(fv.Type(), func([]reflect.Value) []reflect.Value { panic(bad) }).Interface().(F)
	}
	ft := fv.Type()
	self := new(int) // identifies this callable in the chain of those being traced
	var (
		g      *ir.Function
		err    error
		caller *K // the function being traced when fn is traced
	)
	define := func() {
		result := ir.TVoid
		if ft.NumOut() == 1 {
			z, ok := reflect.New(ft.Out(0)).Elem().Interface().(Value)
			if t, res := resourceType(ft.Out(0)); !ok && res {
				err = fmt.Errorf("%w: %s", ErrDSL, ir.ResourceResultMsg("callable "+name, t))
				return
			}
			if !ok {
				err = fmt.Errorf("%w: callable %s returns %s, not a DSL value", ErrDSL, name, ft.Out(0))
				return
			}
			if result, err = z.valueType(); err != nil {
				return
			}
		}
		g = ir.NewCallable(name, result)
		k := &K{fn: g, cur: g.Body, outer: caller, def: self}
		args := []reflect.Value{reflect.ValueOf(k)}
		for i := 1; i < ft.NumIn(); i++ {
			if pt := ft.In(i); pt.Kind() == reflect.Pointer {
				if t, ok := resourceType(pt.Elem()); ok {
					err = fmt.Errorf("%w: %s", ErrDSL, ir.ResourcePointerMsg(fmt.Sprintf("p%d", i-1), "callable "+name, t))
					return
				}
			}
			z := reflect.New(ft.In(i)).Elem().Interface()
			switch p := z.(type) {
			case Value:
				t, terr := p.valueType()
				if terr != nil {
					err = terr
					return
				}
				args = append(args, reflect.ValueOf(p.wrap(&ir.Ref{Var: g.AddParam(fmt.Sprintf("p%d", i-1), t, ir.VarParam)})))
			case refParam:
				t, terr := p.refType()
				if terr != nil {
					err = terr
					return
				}
				args = append(args, reflect.ValueOf(p.bindRef(k, g.AddParam(fmt.Sprintf("p%d", i-1), t, ir.VarRefParam))))
			case resource:
				t, terr := p.paramType()
				if terr != nil {
					err = fmt.Errorf("%w: parameter %d of callable %s: %w", ErrDSL, i, name, terr)
					return
				}
				args = append(args, reflect.ValueOf(p.bind(k, g.AddParam(fmt.Sprintf("p%d", i-1), t, ir.VarParam))))
			default:
				err = fmt.Errorf("%w: parameter %d of callable %s has type %s, which is not a DSL value, *Local or resource", ErrDSL, i, name, ft.In(i))
				return
			}
		}
		// The caller is suspended while fn is traced: a resource of its
		// used in fn's body without being passed is refused (K.suspended).
		caller.inner = k
		defer func() { caller.inner = nil }()
		err = k.run(func() {
			out := fv.Call(args)
			if len(out) == 1 {
				r := out[0].Interface().(Value).Expr()
				if k.check(r) {
					// fn has returned: the return is at fn's line.
					ret := &ir.Return{Value: r}
					if file, line := runtime.FuncForPC(fv.Pointer()).FileLine(fv.Pointer()); line > 0 {
						ret.Pos = fmt.Sprintf("%s:%d", file, line)
					}
					k.emit(ret)
				}
			}
		})
		if err == nil {
			if verr := g.ValidateOne(); verr != nil {
				err = fmt.Errorf("%w: %w", ErrDSL, verr)
			}
		}
	}
	var once sync.Once // kernels may be traced from several goroutines
	return reflect.MakeFunc(ft, func(in []reflect.Value) []reflect.Value {
		k := in[0].Interface().(*K)
		if k == nil {
			panic(fmt.Errorf("%w: callable %s called with a nil *dsl.K: call it while tracing, with the kernel's or callable's k", ErrDSL, name))
		}
		for o := k; o != nil; o = o.outer {
			if o.def == self {
				// Called while fn itself is being traced (on this
				// goroutine: k descends from fn's own K).
				k.failf("callable %s is called recursively: the device has no call stack; rewrite the recursion as a loop", name)
				if ft.NumOut() == 1 {
					return []reflect.Value{reflect.New(ft.Out(0)).Elem()}
				}
				return nil
			}
		}
		once.Do(func() { caller = k; define() })
		var out []reflect.Value
		if ft.NumOut() == 1 {
			out = []reflect.Value{reflect.New(ft.Out(0)).Elem()}
		}
		if err == nil && k.suspended("the *K") {
			return out
		}
		if err != nil {
			k.fail(fmt.Errorf("%s: %w", site(), err))
			return out
		}
		args := make([]ir.Expr, 0, len(in)-1)
		for i, a := range in[1:] {
			switch a := a.Interface().(type) {
			case Value:
				args = append(args, a.Expr())
			case refParam:
				args = append(args, a.refExpr())
			case resource:
				rk, v := a.resource()
				switch {
				case rk == nil:
					t, _ := a.paramType()
					k.failf("argument %d of callable %s is an unbound %s (a zero value): pass a kernel's or callable's parameter", i+1, name, t)
					return out
				case rk != k:
					k.failf("argument %d of callable %s is %s of %s, not of %s: pass it down as a parameter", i+1, name, v.Name, rk.fn.Name, k.fn.Name)
					return out
				}
				args = append(args, &ir.Ref{Var: v})
			}
		}
		if !k.check(args...) {
			return out
		}
		c := &ir.Call{Func: g, Args: args, T: g.Result}
		if len(out) == 1 {
			out[0] = reflect.ValueOf(out[0].Interface().(Value).wrap(k.let(c)))
		} else {
			k.emit(&ir.ExprStmt{X: c})
		}
		return out
	}).Interface().(F)
}

type refParam interface {
	refType() (*ir.Type, error)
	bindRef(k *K, v *ir.Var) any
	refExpr() ir.Expr
}

func (*Local[V]) refType() (*ir.Type, error)  { return typeOfValue[V]() }
func (*Local[V]) bindRef(k *K, v *ir.Var) any { return &Local[V]{k: k, v: v} }
func (x *Local[V]) refExpr() ir.Expr {
	if x == nil || x.v == nil {
		return poison(fmt.Errorf("%w: nil variable passed by reference", ErrDSL))
	}
	return &ir.Ref{Var: x.v}
}

// BindlessArray is a bindless array argument: a table of buffers (and,
// later, textures) indexed by slot at run time.
type BindlessArray struct {
	k *K
	v *ir.Var
}

func (BindlessArray) paramType() (*ir.Type, error) { return ir.Bindless, nil }
func (BindlessArray) bind(k *K, v *ir.Var) any     { return BindlessArray{k: k, v: v} }

func (a BindlessArray) call(op ir.Op, t *ir.Type, args ...ir.Expr) ir.Expr {
	if a.k == nil {
		return poison(fmt.Errorf("%w: use of an unbound bindless array", ErrDSL))
	}
	if a.k.suspended("bindless array " + a.v.Name) {
		return &ir.Poison{Err: a.k.err}
	}
	args = append([]ir.Expr{&ir.Ref{Var: a.v}}, args...)
	if !a.k.check(args...) {
		return &ir.Poison{Err: a.k.err}
	}
	c := &ir.Call{Op: op, Args: args, T: t}
	r, err := ir.CallResult(c)
	if err != nil {
		a.k.fail(fmt.Errorf("%s: %s: %w", a.k.fn.Name, site(), err))
		return poison(err)
	}
	c.T = r
	if r == ir.TVoid {
		a.k.emit(&ir.ExprStmt{X: c})
		return nil
	}
	return a.k.let(c)
}

// ReadBuffer loads element i of the buffer in slot, as V (zero when i is past
// the buffer or the slot is empty or holds a texture; in the checked
// mode a past index or an empty slot faults).
func ReadBuffer[V Value](a BindlessArray, slot, i U32) V {
	t, err := typeOfValue[V]()
	if err != nil {
		return wrapAs[V](poison(err))
	}
	return wrapAs[V](a.call(ir.OpBindlessRead, t, slot.Expr(), i.Expr()))
}

// WriteBuffer stores x at element i of the buffer in slot (ignored past its
// end, or where the slot holds no buffer).
func WriteBuffer[V Value](a BindlessArray, slot, i U32, x V) {
	a.call(ir.OpBindlessWrite, ir.TVoid, slot.Expr(), i.Expr(), x.Expr())
}

// BufferLen is the number of V elements of the buffer in slot (0 when the
// slot is empty or holds a texture).
func BufferLen[V Value](a BindlessArray, slot U32) U32 {
	t, err := typeOfValue[V]()
	if err != nil {
		return U32{poison(err)}
	}
	return U32{a.call(ir.OpBindlessSize, ir.TU32, slot.Expr(), ir.LitInt(ir.TU32, int64(t.Size())))}
}

// resource is implemented by the DSL's resource types: what they stand for
// (the function being traced that has them, and its variable).
type resource interface {
	kernelParam
	resource() (*K, *ir.Var)
}

func (b Buf[V]) resource() (*K, *ir.Var)        { return b.k, b.v }
func (t Tex2D) resource() (*K, *ir.Var)         { return t.k, t.v }
func (t Tex3D) resource() (*K, *ir.Var)         { return t.k, t.v }
func (a BindlessArray) resource() (*K, *ir.Var) { return a.k, a.v }

// resourceType is the IR type of DSL resource type rt, if it is one.
func resourceType(rt reflect.Type) (*ir.Type, bool) {
	p, ok := reflect.New(rt).Elem().Interface().(resource)
	if !ok {
		return nil, false
	}
	t, err := p.paramType()
	return t, err == nil
}
