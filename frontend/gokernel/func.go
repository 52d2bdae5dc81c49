package gokernel

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// callable is a Go function lowered to a frontend callable. A function with
// several results returns them through by-reference parameters appended
// after its own (frontend callables return at most one value).
type callable struct {
	fn       *ir.Function
	results  int  // Go result count
	outs     bool // results travel in the trailing by-reference parameters
	refs     []bool
	views    int  // view arguments, each with two hidden parameters after the callable's own
	lowering bool // on the current call path: a call now is recursion
	failed   bool
}

// lowerKernel lowers a //lucent:kernel function.
func (c *compiler) lowerKernel(fd *ast.FuncDecl, info *types.Info, d directive) *ir.Function {
	fn := ir.NewKernel(fd.Name.Name, d.dim, d.block)
	fn.Pos = c.fset.Position(fd.Name.Pos()).String()
	l := c.newLowerer(info, fn, true)
	if fd.Recv != nil {
		l.errorf(fd.Name.Pos(), "kernel %s is a method: a kernel must be a plain function", fd.Name.Name)
	}
	if fd.Type.TypeParams != nil {
		l.errorf(fd.Name.Pos(), "kernel %s is generic: write the kernel for concrete types", fd.Name.Name)
	}
	if fd.Type.Results != nil && len(fd.Type.Results.List) > 0 {
		l.errorf(fd.Type.Results.Pos(), "kernel %s returns results: a kernel returns nothing; write its output to a buffer parameter", fd.Name.Name)
	}
	asg := assigned(info, fd.Body)
	l.asg = asg
	for _, field := range fd.Type.Params.List {
		for _, name := range field.Names {
			obj := info.Defs[name]
			if obj == nil {
				continue
			}
			l.kernelParam(name, obj, asg[obj], d.formats)
		}
		if len(field.Names) == 0 {
			l.errorf(field.Pos(), "kernel parameters must be named")
		}
	}
	for p := range d.formats {
		found := false
		for _, v := range fn.Params {
			found = found || v.Name == p && v.Type.Kind() == ir.KindTexture
		}
		if !found {
			l.errorf(d.comment.Pos(), "format=%s:… names no texture parameter of %s", p, fd.Name.Name)
		}
	}
	l.body(fd.Body)
	if l.nerrs > 0 {
		// Some errors stayed quiet, their cause reported elsewhere (in
		// another kernel, say): the kernel fails all the same.
		return nil
	}
	return fn
}

// kernelParam declares one kernel argument: a slice is a buffer, a texture a
// texture, anything else a uniform value.
func (l *lowerer) kernelParam(name *ast.Ident, obj types.Object, isAssigned bool, formats map[string]ir.TexelFormat) {
	t := obj.Type()
	if sl, ok := types.Unalias(t).Underlying().(*types.Slice); ok {
		et, err := l.c.valueType(sl.Elem())
		if err != nil {
			l.typeErrorf(sl.Elem(), name.Pos(), "buffer parameter %s: element %s", name.Name, err.msg)
			l.bad[obj] = true
			return
		}
		if et == ir.TBool || et.IsResource() {
			l.errorf(name.Pos(), "buffer parameter %s has elements of type %s, which have no device layout: %s", name.Name, goTypeName(sl.Elem()), noLayoutHint(et))
			l.bad[obj] = true
			return
		}
		if isAssigned {
			l.errorf(name.Pos(), "buffer parameter %s is reassigned or its address is taken: a kernel cannot change which buffer a parameter names", name.Name)
		}
		l.vars[obj] = l.fn.AddParam(name.Name, ir.Buffer(et), ir.VarArg)
		return
	}
	if _, ok := types.Unalias(t).Underlying().(*types.Pointer); ok {
		l.errorf(name.Pos(), "kernel parameter %s is a pointer, which would point into host memory: pass a buffer ([]T) or a value", name.Name)
		l.bad[obj] = true
		return
	}
	before := l.nerrs
	ft := l.typeAt(t, name.Pos())
	if l.nerrs > before {
		l.bad[obj] = true
	}
	if ft.Kind() == ir.KindTexture {
		ft = l.textureFormat(name, ft, formats[name.Name])
	}
	if ft != ir.TBool && ft.HoldsBool() {
		l.errorf(name.Pos(), "kernel parameter %s of type %s holds bools, which have no device layout: use uint32 for flags (a bool parameter of its own is passed)", name.Name, goTypeName(t))
		l.bad[obj] = true
	}
	v := l.fn.AddParam(name.Name, ft, ir.VarArg)
	l.vars[obj] = v
	if isAssigned && !ft.IsResource() {
		local := l.fn.AddLocal(name.Name, ft)
		l.emit(&ir.Assign{Dst: &ir.Ref{Var: local}, Src: &ir.Ref{Var: v}})
		l.vars[obj] = local
	}
}

// textureFormat gives a texture parameter its storage format: the declared
// one, which must read as the Go texel type, or the texel type's 32-bit
// four-channel format.
func (l *lowerer) textureFormat(name *ast.Ident, t *ir.Type, declared ir.TexelFormat) *ir.Type {
	def := map[ir.Kind]ir.TexelFormat{
		ir.KindFloat: ir.FormatRGBA32F, ir.KindInt: ir.FormatRGBA32I, ir.KindUint: ir.FormatRGBA32UI,
	}[t.Elem().Scalar().Kind()]
	if declared == ir.FormatAny {
		return ir.TextureOf(t.Len(), def)
	}
	ft := ir.TextureOf(t.Len(), declared)
	if ft.Elem() != t.Elem() {
		l.errorf(name.Pos(), "texture %s is declared %s, whose texels read as %s, but its Go texels are %s", name.Name, declared, ft.Elem(), t.Elem())
		return ir.TextureOf(t.Len(), def)
	}
	return ft
}

// callableFor lowers (once per list of type arguments) the Go function obj
// called at pos.
//
// views marks the arguments that are views (viewMask), "" for none.
func (c *compiler) callableFor(obj *types.Func, pos token.Pos, targs []types.Type, views string) *callable {
	if r := c.resolve(obj); r != nil {
		obj = r
	}
	key := keyOf(obj, targs)
	key.targs += "|" + views
	if cl, ok := c.callables[key]; ok {
		if cl.lowering {
			c.errorf(pos, "%s is called recursively: the device has no call stack; rewrite the recursion as a loop", obj.Name())
			return nil
		}
		if cl.failed {
			return nil
		}
		return cl
	}
	fd := c.decls[obj]
	if fd == nil || fd.Body == nil {
		c.errorf(pos, "%s has no Go body the compiler can read: kernels may call Go functions of non-standard packages, math, math/bits and kernel", obj.FullName())
		return nil
	}
	info := c.infos[obj]
	sig := obj.Type().(*types.Signature)
	name := obj.Name()
	if r := sig.Recv(); r != nil {
		rt := r.Type()
		if p, ok := rt.(*types.Pointer); ok {
			rt = p.Elem()
		}
		if n, ok := types.Unalias(rt).(*types.Named); ok {
			name = n.Obj().Name() + "." + name
		}
	}
	if sig.RecvTypeParams() != nil {
		c.errorf(fd.Name.Pos(), "%s is a method of a generic type: generic types are not supported in kernels; write the type for concrete fields (generic functions are)", name)
		c.callables[key] = &callable{failed: true}
		return nil
	}
	if sig.Variadic() {
		last := fd.Type.Params.List[len(fd.Type.Params.List)-1]
		c.errorf(last.Type.Pos(), "%s is variadic: variadic parameters are not supported in kernels (a ...T parameter is a slice, which the device has only as a buffer); take a fixed-size array ([N]T) or separate parameters", name)
		c.callables[key] = &callable{failed: true}
		return nil
	}
	var subst map[*types.TypeParam]types.Type
	if tps := sig.TypeParams(); tps != nil {
		if tps.Len() != len(targs) {
			c.errorf(pos, "%s is generic and its type arguments are unknown here: call it directly with its arguments", name)
			c.callables[key] = &callable{failed: true}
			return nil
		}
		subst = map[*types.TypeParam]types.Type{}
		names := make([]string, len(targs))
		for i, t := range targs {
			subst[tps.At(i)] = t
			names[i] = types.TypeString(t, func(p *types.Package) string { return p.Name() })
		}
		name += "[" + strings.Join(names, ",") + "]"
	}
	cl := &callable{results: sig.Results().Len(), lowering: true}
	c.callables[key] = cl
	before := len(c.errs)
	if !c.checkNesting(fd.Body) {
		cl.lowering, cl.failed = false, true
		return nil
	}

	result := ir.TVoid
	fn := ir.NewCallable(name, result)
	l := c.newLowerer(info, fn, false)
	l.subst = subst
	asg := assigned(info, fd.Body)
	l.asg = asg
	var params []*ast.Ident
	var ptypes []types.Type
	if fd.Recv != nil {
		for _, f := range fd.Recv.List {
			for _, n := range f.Names {
				params, ptypes = append(params, n), append(ptypes, info.Defs[n].Type())
			}
			if len(f.Names) == 0 {
				params, ptypes = append(params, nil), append(ptypes, info.TypeOf(f.Type))
			}
		}
	}
	for _, f := range fd.Type.Params.List {
		for _, n := range f.Names {
			params, ptypes = append(params, n), append(ptypes, info.Defs[n].Type())
		}
		if len(f.Names) == 0 {
			params, ptypes = append(params, nil), append(ptypes, info.TypeOf(f.Type))
		}
	}
	var viewParams []types.Object // the view parameters, whose hidden parameters follow
	if views != "" {
		names := make([]string, len(params))
		for i, n := range params {
			if n != nil {
				names[i] = n.Name
			}
		}
		fn.Name = viewName(fn.Name, views, names)
	}
	for i, n := range params {
		pname, pos := fmt.Sprintf("p%d", i), fd.Pos()
		var obj types.Object
		if n != nil {
			pname, pos, obj = n.Name, n.Pos(), info.Defs[n]
		}
		t := ptypes[i]
		if rt, ok := l.resourceOf(t, pos); ok {
			// A resource parameter makes the helper a template, specialised
			// per call for the kernel arguments passed (ir.Specialize).
			if rt == nil {
				rt = ir.Buffer(ir.TU32) // its element was reported
				if obj != nil {
					l.bad[obj] = true
				}
			}
			v := fn.AddParam(pname, rt, ir.VarParam)
			cl.refs = append(cl.refs, false)
			if i < len(views) && views[i] == 'v' && rt.Kind() == ir.KindBuffer {
				viewParams = append(viewParams, obj)
				cl.views++
				if obj != nil {
					l.views[obj] = &view{buf: &ir.Ref{Var: v}}
				}
			}
			if obj != nil {
				l.vars[obj] = v
				if asg[obj] {
					l.errorf(pos, "%s parameter %s of %s is reassigned or its address is taken: a helper cannot change which %s a parameter names", resourceWord(rt), pname, name, resourceWord(rt))
					l.bad[obj] = true // reported: its uses stay quiet
				}
			}
			continue
		}
		if p, ok := types.Unalias(t).(*types.Pointer); ok {
			if rt, isRes := l.resourceOf(p.Elem(), pos); isRes {
				if rt == nil {
					rt = ir.Buffer(ir.TU32)
				}
				l.errorf(pos, "%s", ir.ResourcePointerMsg(pname, name, rt))
				fn.AddParam(pname, ir.TI32, ir.VarParam)
				cl.refs = append(cl.refs, false)
				if obj != nil {
					l.bad[obj] = true
				}
				continue
			}
			before := l.nerrs
			v := fn.AddParam(pname, l.typeAt(p.Elem(), pos), ir.VarRefParam)
			cl.refs = append(cl.refs, true)
			if obj != nil {
				l.vars[obj], l.refs[obj] = v, true
				if l.nerrs > before {
					l.bad[obj] = true // reported: its uses stay quiet
				}
				if asg[obj] {
					l.errorf(pos, "pointer parameter %s of %s is reassigned or its address is taken: assign through it (*%s = …) instead", pname, name, pname)
					l.bad[obj] = true // reported: its uses stay quiet
				}
			}
			continue
		}
		before := l.nerrs
		ft := l.typeAt(t, pos)
		if l.nerrs > before && obj != nil {
			l.bad[obj] = true // reported: its uses stay quiet
		}
		if !l.fitsThread(ft, pos, "parameter "+pname+" of "+name+" of type "+goType(t)) {
			ft = ir.TI32
			if obj != nil {
				l.bad[obj] = true
			}
		}
		v := fn.AddParam(pname, ft, ir.VarParam)
		cl.refs = append(cl.refs, false)
		if obj != nil {
			l.vars[obj] = v
			if asg[obj] {
				local := fn.AddLocal(pname, ft)
				l.emit(&ir.Assign{Dst: &ir.Ref{Var: local}, Src: &ir.Ref{Var: v}})
				l.vars[obj] = local
			}
		}
	}
	for i, obj := range viewParams {
		lo := fn.AddParam(fmt.Sprintf("view%d_lo", i), ir.TU32, ir.VarParam)
		n := fn.AddParam(fmt.Sprintf("view%d_len", i), ir.TU32, ir.VarParam)
		cl.refs = append(cl.refs, false, false)
		if v := l.views[obj]; v != nil {
			v.lo, v.n = &ir.Ref{Var: lo}, &ir.Ref{Var: n}
		}
	}
	// Results: one unnamed result is the callable's value; named results are
	// locals; several results travel in by-reference parameters.
	res := sig.Results()
	for i := range res.Len() {
		if rt, ok := l.resourceOf(res.At(i).Type(), fd.Type.Results.Pos()); ok && rt != nil {
			l.errorf(fd.Type.Results.Pos(), "%s", ir.ResourceResultMsg(name, rt))
			cl.lowering, cl.failed = false, true
			return nil
		}
	}
	switch {
	case res.Len() == 1:
		fn.Result = l.typeAt(res.At(0).Type(), fd.Type.Results.Pos())
		if !l.fitsThread(fn.Result, fd.Type.Results.Pos(), "the result of "+name+" of type "+goType(res.At(0).Type())) {
			fn.Result = ir.TI32
		}
		if res.At(0).Name() != "" && res.At(0).Name() != "_" {
			v := fn.AddLocal(res.At(0).Name(), fn.Result)
			l.results = []*ir.Var{v}
			l.vars[res.At(0)] = v
			l.zeroInit(&ir.Ref{Var: v}, fn.Result)
		}
	case res.Len() > 1:
		cl.outs, l.outs = true, true
		for i := range res.Len() {
			r := res.At(i)
			rname := r.Name()
			if rname == "" || rname == "_" {
				rname = fmt.Sprintf("r%d", i)
			}
			rt := l.typeAt(r.Type(), fd.Type.Results.Pos())
			if !l.fitsThread(rt, fd.Type.Results.Pos(), "result "+rname+" of "+name+" of type "+goType(r.Type())) {
				rt = ir.TI32
			}
			v := fn.AddParam(rname, rt, ir.VarRefParam)
			cl.refs = append(cl.refs, true)
			l.results = append(l.results, v)
			if r.Name() != "" && r.Name() != "_" {
				l.vars[r] = v
				l.zeroInit(&ir.Ref{Var: v}, v.Type)
			}
		}
	}
	l.body(fd.Body)
	if res.Len() == 1 && !endsInReturn(fd.Body) {
		// Go requires a terminating statement; a function ending in a loop
		// without a return still needs one for SPIR-V's structured exits.
		l.emit(&ir.Return{Value: zero(fn.Result)})
	}
	cl.lowering = false
	cl.fn = fn
	if len(c.errs) > before || l.nerrs > 0 { // quiet errors count: their cause was reported
		cl.failed = true
		return nil
	}
	return cl
}

func endsInReturn(b *ast.BlockStmt) bool {
	if len(b.List) == 0 {
		return false
	}
	_, ok := b.List[len(b.List)-1].(*ast.ReturnStmt)
	return ok
}

// resourceOf reports whether Go type t is a resource a helper may take (a
// buffer slice, a texture, a bindless array), with its IR type (nil when its
// element has no device type, reported here).
func (l *lowerer) resourceOf(t types.Type, pos token.Pos) (*ir.Type, bool) {
	t = l.substType(t)
	if t == nil {
		return nil, false
	}
	if sl, ok := types.Unalias(t).Underlying().(*types.Slice); ok {
		et, err := l.c.valueType(sl.Elem())
		if err != nil {
			l.typeErrorf(sl.Elem(), pos, "buffer element %s", err.msg)
			return nil, true
		}
		if et == ir.TBool || et.IsResource() {
			l.errorf(pos, "buffers of %s have no device layout: %s", goTypeName(sl.Elem()), noLayoutHint(et))
			return nil, true
		}
		return ir.Buffer(et), true
	}
	if ft, err := l.c.valueType(t); err == nil && ft.IsResource() {
		return ft, true
	}
	return nil, false
}

// resourceWord names the kind of resource t is.
func resourceWord(t *ir.Type) string {
	switch t.Kind() {
	case ir.KindBuffer:
		return "buffer"
	case ir.KindTexture:
		return "texture"
	case ir.KindBindless:
		return "bindless array"
	}
	return t.String()
}

// noLayoutHint says what to write instead of a buffer of t, a bool or a
// resource.
func noLayoutHint(t *ir.Type) string {
	if t.IsResource() {
		return "a resource is a parameter of its own (kernel.Accel, a texture, kernel.Bindless), not an element or a field"
	}
	return "use uint32 for flags"
}

// goTypeName is t as a kernel's source spells it (kernel.Accel, bool).
func goTypeName(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}
