package gokernel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

var builtinIDs = map[string]ir.BuiltinVar{
	"DispatchID": ir.DispatchID, "ThreadID": ir.ThreadID, "BlockID": ir.BlockID,
	"DispatchSize": ir.DispatchSize, "BlockSize": ir.BlockSize, "DispatchGroups": ir.DispatchGroups,
	"SubgroupLaneID": ir.SubgroupLane, "SubgroupSize": ir.SubgroupSize,
}

// constructors are the positional vector constructors kernel.F3(x, y, z) etc.
var constructors = map[string]*ir.Type{
	"F2": kernelVectors["Float2"], "F3": kernelVectors["Float3"], "F4": kernelVectors["Float4"],
	"I2": kernelVectors["Int2"], "I3": kernelVectors["Int3"], "I4": kernelVectors["Int4"],
	"U2": kernelVectors["Uint2"], "U3": kernelVectors["Uint3"], "U4": kernelVectors["Uint4"],
}

var atomicOps = map[string]ir.Op{
	"AtomicAdd": ir.OpAtomicAdd, "AtomicSub": ir.OpAtomicSub, "AtomicMin": ir.OpAtomicMin,
	"AtomicMax": ir.OpAtomicMax, "AtomicAnd": ir.OpAtomicAnd, "AtomicOr": ir.OpAtomicOr,
	"AtomicXor": ir.OpAtomicXor, "AtomicExchange": ir.OpAtomicExchange,
	"AtomicCompareExchange": ir.OpAtomicCAS, "AtomicLoad": ir.OpAtomicOr, "AtomicStore": ir.OpAtomicExchange,
}

var subgroupOps = map[string]ir.Op{
	"SubgroupElect": ir.OpSubgroupElect, "SubgroupAll": ir.OpSubgroupAll, "SubgroupAny": ir.OpSubgroupAny,
	"SubgroupBallot": ir.OpSubgroupBallot, "SubgroupBroadcast": ir.OpSubgroupBroadcast,
	"SubgroupBroadcastFirst": ir.OpSubgroupBroadcastFirst, "SubgroupShuffle": ir.OpSubgroupShuffle,
	"SubgroupAdd": ir.OpSubgroupAdd, "SubgroupMul": ir.OpSubgroupMul, "SubgroupMin": ir.OpSubgroupMin,
	"SubgroupMax": ir.OpSubgroupMax, "SubgroupInclusiveAdd": ir.OpSubgroupInclusiveAdd,
	"SubgroupExclusiveAdd": ir.OpSubgroupExclusiveAdd,
}

// intrinsic lowers a call of a function or method of package kernel.
func (l *lowerer) intrinsic(e *ast.CallExpr, f *types.Func, stmt bool) ir.Expr {
	name := f.Name()
	if sig := f.Type().(*types.Signature); sig.Recv() != nil {
		return l.method(e, f)
	}
	t := l.goTypeOf(e)
	args := func() []ir.Expr {
		out := make([]ir.Expr, len(e.Args))
		for i, a := range e.Args {
			out[i] = l.expr(a)
		}
		return out
	}
	if b, ok := builtinIDs[name]; ok {
		if !l.kernel {
			l.errorf(e.Pos(), "kernel.%s is available only in the kernel function itself, not in helper functions: read it in the kernel and pass it as a parameter", name)
			return nil
		}
		return &ir.Ref{Var: l.builtin(b)}
	}
	if op, ok := atomicOps[name]; ok {
		return l.atomic(e, name, op)
	}
	if op, ok := subgroupOps[name]; ok {
		a := args()
		if op == ir.OpSubgroupBroadcast {
			if tv := l.info.Types[e.Args[1]]; tv.Value == nil {
				l.errorf(e.Args[1].Pos(), "the lane of kernel.SubgroupBroadcast must be a constant on the device: use kernel.SubgroupShuffle for a computed lane")
				return nil
			}
		}
		rt := ir.TBool
		if t != nil {
			rt = l.typeAt(t, e.Pos())
		}
		if _, err := ir.CallType(op, a); err != nil {
			l.errorf(e.Pos(), "kernel.%s on these operands is not supported on the device: %v", name, err)
			return nil
		}
		return &ir.Call{Op: op, Args: a, T: rt}
	}
	if vt, ok := constructors[name]; ok {
		return &ir.Construct{T: vt, Args: args()}
	}
	if op, ok := kernelMathOps[name]; ok {
		a := args()
		rt, err := ir.CallType(op, a)
		if err != nil {
			l.errorf(e.Pos(), "kernel.%s on these operands is not supported on the device: %v", name, err)
			return nil
		}
		return &ir.Call{Op: op, Args: a, T: rt}
	}
	switch name {
	case "Printf":
		l.printf(e, stmt)
		return nil
	case "Assert":
		l.assert(e, stmt)
		return nil
	case "Barrier":
		return &ir.Call{Op: ir.OpBarrier, T: ir.TVoid}
	case "BallotCount":
		a := args()
		pc := &ir.Call{Op: ir.OpPopCount, Args: a, T: ir.Vector(ir.TU32, 4)}
		return &ir.Call{Op: ir.OpReduceSum, Args: []ir.Expr{pc}, T: ir.TU32}
	case "Shared":
		l.errorf(e.Pos(), "kernel.Shared must initialise a new variable in the kernel function: write name := kernel.Shared[T]()")
		return nil
	case "BindlessBuffer":
		l.errorf(e.Pos(), "a bindless buffer can only be indexed, measured with len, or named (buf := kernel.BindlessBuffer[T](arr, slot))")
		return nil
	}
	l.errorf(e.Pos(), "kernel.%s is host code, not a kernel intrinsic: call it outside the kernel", name)
	return nil
}

// atomic lowers kernel.Atomic*(&place, …).
func (l *lowerer) atomic(e *ast.CallExpr, name string, op ir.Op) ir.Expr {
	var p ir.Expr
	if id, ok := ast.Unparen(e.Args[0]).(*ast.Ident); ok && l.shared[l.info.Uses[id]] != nil {
		p = &ir.Ref{Var: l.shared[l.info.Uses[id]]} // a scalar kernel.Shared variable
	} else if ok && l.aliases[l.info.Uses[id]] != nil {
		p, _ = l.aliasOf(l.info.Uses[id]) // a pointer local bound to &buf[i]
	} else if u, ok := ast.Unparen(e.Args[0]).(*ast.UnaryExpr); ok && u.Op == token.AND {
		p = l.expr(u.X)
	} else {
		l.errorf(e.Args[0].Pos(), "the first argument of kernel.%s must be &buf[i], &shared[i], a pointer local bound to one, or a kernel.Shared variable: the address of a buffer element or of shared memory", name)
		return nil
	}
	if !ir.IsPlace(p) || !atomicRoot(p) {
		l.errorf(e.Args[0].Pos(), "kernel.%s needs the address of a buffer element or of kernel.Shared memory: locals are private to a thread and need no atomics", name)
		return nil
	}
	args := []ir.Expr{p}
	for _, a := range e.Args[1:] {
		args = append(args, l.expr(a))
	}
	t := p.Type()
	switch name {
	case "AtomicLoad":
		if t == ir.TF32 {
			// Adding -0 leaves every float, -0 included, unchanged.
			return &ir.Call{Op: ir.OpAtomicAdd, Args: []ir.Expr{p, ir.LitFloat(ir.TF32, math.Copysign(0, -1))}, T: t}
		}
		return &ir.Call{Op: ir.OpAtomicOr, Args: []ir.Expr{p, zero(t)}, T: t}
	case "AtomicStore":
		return &ir.Call{Op: ir.OpAtomicExchange, Args: args, T: t}
	}
	if _, err := ir.CallType(op, args); err != nil {
		l.errorf(e.Pos(), "kernel.%s on %s is not supported on the device", name, t)
		return nil
	}
	return &ir.Call{Op: op, Args: args, T: t}
}

// atomicRoot reports whether a place lies in a buffer or shared memory.
func atomicRoot(p ir.Expr) bool {
	for {
		switch x := p.(type) {
		case *ir.Ref:
			return x.Var.Kind == ir.VarShared
		case *ir.Index:
			if x.X.Type().Kind() == ir.KindBuffer {
				return true
			}
			p = x.X
		case *ir.Member:
			p = x.X
		default:
			return false
		}
	}
}

// component lowers v.At(i) and v.Set(i, x) on a kernel vector: an index
// computed at run time (OpVectorExtractDynamic, or an access chain into the
// variable holding v), clamped to the vector so that no index reaches
// past it.
func (l *lowerer) component(e *ast.CallExpr, sel *ast.SelectorExpr, set bool) ir.Expr {
	before := l.nerrs
	var v ir.Expr
	if set {
		v = l.place(sel.X)
	} else {
		v = l.expr(sel.X)
	}
	i := l.expr(e.Args[0])
	var x ir.Expr
	if set {
		x = l.expr(e.Args[1])
	}
	if l.nerrs > before {
		return nil
	}
	if c, ok := i.(*ir.Cast); ok && c.X.Type().IsInteger() && c.X.Type().Size() == 4 {
		i = c.X // int(axis) of a 32-bit axis: index with the axis itself
	}
	n := v.Type().Len()
	var idx ir.Expr
	if lit, ok := i.(*ir.Literal); ok {
		k := ir.SignExtend(lit.Bits, lit.T)
		if int64(k) < 0 || int64(k) >= int64(n) {
			k = uint64(n - 1)
		}
		idx = ir.LitInt(ir.TU32, int64(k))
	} else {
		// A 32-bit axis as it is (a negative one is a u32 past n-1), any
		// other saturated (index32): clamped alike.
		var j ir.Expr
		switch {
		case i.Type() == ir.TU32:
			j = i
		case i.Type().Bits() == 32:
			j = &ir.Cast{X: i, T: ir.TU32}
		default:
			j = l.index32(i)
		}
		idx = &ir.Call{Op: ir.OpMin, Args: []ir.Expr{j, ir.LitInt(ir.TU32, int64(n-1))}, T: ir.TU32}
	}
	at := &ir.Index{X: v, I: idx, T: v.Type().Elem()}
	if !set {
		return at
	}
	l.emit(&ir.Assign{Dst: at, Src: x})
	return nil
}

// method lowers a method of a kernel vector, matrix or texture type.
func (l *lowerer) method(e *ast.CallExpr, f *types.Func) ir.Expr {
	sel := e.Fun.(*ast.SelectorExpr)
	recvT := f.Type().(*types.Signature).Recv().Type()
	if p, ok := recvT.(*types.Pointer); ok {
		recvT = p.Elem()
	}
	tname := ""
	if n, ok := types.Unalias(recvT).(*types.Named); ok {
		tname = n.Obj().Name()
	}
	switch {
	case tname == "BindlessTexture2D":
		return l.bindlessTexMethod(e, f)
	case tname == "Accel":
		return l.rayQuery(e, f)
	case tname == "RayQuery":
		return l.queryMethod(e, f)
	case tname == "Bindless" && f.Name() == "Texture2D":
		l.errorf(e.Pos(), "a bindless texture can only be read, sized or sampled (arr.Texture2D(slot).Sample(uv)) or named (tex := arr.Texture2D(slot))")
		return nil
	}
	if _, isVec := kernelVectors[tname]; isVec && (f.Name() == "At" || f.Name() == "Set") {
		return l.component(e, sel, f.Name() == "Set")
	}
	before := l.nerrs
	recv := l.expr(sel.X)
	if l.nerrs > before {
		return nil
	}
	var args []ir.Expr
	for _, a := range e.Args {
		args = append(args, l.expr(a))
	}
	rt := recv.Type()
	res := ir.TVoid
	if t := l.goTypeOf(e); t != nil {
		if tup, ok := t.(*types.Tuple); !ok || tup.Len() > 0 {
			res = l.typeAt(t, e.Pos())
		}
	}
	bin := func(op ir.BinaryOp, y ir.Expr) ir.Expr {
		if _, err := ir.BinaryType(op, rt, y.Type()); err != nil {
			l.errorf(e.Pos(), "%s.%s is not supported on the device", tname, f.Name())
			return zero(res)
		}
		return &ir.Binary{Op: op, X: recv, Y: y, T: res}
	}
	op := func(o ir.Op, a ...ir.Expr) ir.Expr {
		all := append([]ir.Expr{recv}, a...)
		if _, err := ir.CallType(o, all); err != nil {
			l.errorf(e.Pos(), "%s.%s is not supported on the device", tname, f.Name())
			return zero(res)
		}
		return &ir.Call{Op: o, Args: all, T: res}
	}
	isFloat := rt.Scalar().Kind() == ir.KindFloat
	switch rt.Kind() {
	case ir.KindVector, ir.KindMatrix:
		switch f.Name() {
		case "Add":
			return bin(ir.Add, args[0])
		case "Sub":
			return bin(ir.Sub, args[0])
		case "Mul", "MulVec":
			return bin(ir.Mul, args[0])
		case "Div":
			return bin(ir.Div, args[0])
		case "Scale":
			if isFloat {
				return bin(ir.Mul, args[0])
			}
			return bin(ir.Mul, &ir.Construct{T: rt, Args: args})
		case "Dot":
			if isFloat {
				return op(ir.OpDot, args[0])
			}
			prod := &ir.Binary{Op: ir.Mul, X: recv, Y: args[0], T: rt}
			return &ir.Call{Op: ir.OpReduceSum, Args: []ir.Expr{prod}, T: res}
		case "Min":
			return op(ir.OpMin, args[0])
		case "Max":
			return op(ir.OpMax, args[0])
		case "Neg":
			return &ir.Unary{Op: ir.Neg, X: recv, T: rt}
		case "Length":
			return op(ir.OpLength)
		case "Distance":
			return op(ir.OpDistance, args[0])
		case "Normalize":
			return op(ir.OpNormalize)
		case "Cross":
			return op(ir.OpCross, args[0])
		case "Transpose":
			return op(ir.OpTranspose)
		}
	case ir.KindTexture:
		n := rt.Len()
		coord := func(a []ir.Expr) ir.Expr {
			return &ir.Construct{T: ir.Vector(ir.TU32, n), Args: a}
		}
		switch f.Name() {
		case "Read":
			return op(ir.OpTextureRead, coord(args))
		case "Write":
			return op(ir.OpTextureWrite, coord(args[:n]), args[n])
		case "Size":
			return op(ir.OpTextureSize)
		case "Sample":
			if rt.Elem().Scalar().Kind() != ir.KindFloat {
				l.errorf(e.Pos(), "%s.Sample needs a texture of Float4 texels: %s textures are read with Read", tname, rt.Elem())
				return zero(res)
			}
			return op(ir.OpTextureSample, args[0])
		}
	}
	l.errorf(e.Pos(), "%s.%s is host code, not a kernel intrinsic: call it outside the kernel", tname, f.Name())
	return nil
}

var mathOps = map[string]ir.Op{
	"Abs": ir.OpAbs, "Floor": ir.OpFloor, "Ceil": ir.OpCeil, "Round": ir.OpRound,
	"Trunc": ir.OpTrunc, "Sqrt": ir.OpSqrt, "Exp": ir.OpExp, "Exp2": ir.OpExp2,
	"Log": ir.OpLog, "Log2": ir.OpLog2, "Sin": ir.OpSin, "Cos": ir.OpCos,
	"Tan": ir.OpTan, "Asin": ir.OpAsin, "Acos": ir.OpAcos, "Atan": ir.OpAtan,
	"Sinh": ir.OpSinh, "Cosh": ir.OpCosh, "Tanh": ir.OpTanh, "Asinh": ir.OpAsinh,
	"Acosh": ir.OpAcosh, "Atanh": ir.OpAtanh, "Pow": ir.OpPow, "Atan2": ir.OpAtan2,
	"Min": ir.OpMin, "Max": ir.OpMax, "FMA": ir.OpFma,
}

// kernelMathOps are the float32 math functions of package kernel, one
// built-in each.
var kernelMathOps = map[string]ir.Op{
	"Abs": ir.OpAbs, "Sign": ir.OpSign, "Floor": ir.OpFloor, "Ceil": ir.OpCeil,
	"Round": ir.OpRound, "Trunc": ir.OpTrunc, "Fract": ir.OpFract, "Sqrt": ir.OpSqrt,
	"InverseSqrt": ir.OpInverseSqrt, "Exp": ir.OpExp, "Exp2": ir.OpExp2, "Log": ir.OpLog,
	"Log2": ir.OpLog2, "Sin": ir.OpSin, "Cos": ir.OpCos, "Tan": ir.OpTan,
	"Asin": ir.OpAsin, "Acos": ir.OpAcos, "Atan": ir.OpAtan, "Atan2": ir.OpAtan2,
	"Sinh": ir.OpSinh, "Cosh": ir.OpCosh, "Tanh": ir.OpTanh, "Asinh": ir.OpAsinh,
	"Acosh": ir.OpAcosh, "Atanh": ir.OpAtanh, "Radians": ir.OpRadians, "Degrees": ir.OpDegrees,
	"Pow": ir.OpPow, "Min": ir.OpMin, "Max": ir.OpMax, "Clamp": ir.OpClamp,
	"Saturate": ir.OpSaturate, "Step": ir.OpStep, "SmoothStep": ir.OpSmoothStep,
	"Lerp": ir.OpLerp, "Fma": ir.OpFma, "IsNaN": ir.OpIsNaN, "IsInf": ir.OpIsInf,
}

// only32 lists the GLSL.std.450 instructions defined for 16- and 32-bit
// floats only.
var only32 = map[ir.Op]bool{
	ir.OpExp: true, ir.OpExp2: true, ir.OpLog: true, ir.OpLog2: true,
	ir.OpSin: true, ir.OpCos: true, ir.OpTan: true, ir.OpAsin: true,
	ir.OpAcos: true, ir.OpAtan: true, ir.OpSinh: true, ir.OpCosh: true,
	ir.OpTanh: true, ir.OpAsinh: true, ir.OpAcosh: true, ir.OpAtanh: true,
	ir.OpPow: true, ir.OpAtan2: true,
}

// mathCall lowers math.F(args). With f32 set, the call sits in float32(…):
// when every argument is float64(x) of a float32 x (or a constant), the
// operation is emitted on float32 directly, which is what such Go code means
// on a GPU.
func (l *lowerer) mathCall(e *ast.CallExpr, f *types.Func, f32 bool) ir.Expr {
	name := f.Name()
	switch name {
	case "Float32bits", "Float32frombits", "Float64bits", "Float64frombits":
		return &ir.Cast{X: l.expr(e.Args[0]), T: l.typeOf(e), Bit: true}
	case "Inf", "NaN":
		v := math.NaN()
		if name == "Inf" {
			tv := l.info.Types[e.Args[0]]
			if tv.Value == nil {
				l.errorf(e.Args[0].Pos(), "the sign argument of math.Inf must be a constant in kernels")
				return nil
			}
			sign, _ := constant.Int64Val(constant.ToInt(tv.Value))
			v = math.Inf(1)
			if sign < 0 {
				v = math.Inf(-1)
			}
		}
		if f32 {
			return ir.LitFloat(ir.TF32, v)
		}
		return ir.LitFloat(ir.TF64, v)
	case "Signbit":
		x := l.predicateArg(e.Args[0])
		it := ir.TI32
		if x.Type() == ir.TF64 {
			it = ir.TI64
		}
		bits := &ir.Cast{X: x, T: it, Bit: true}
		return &ir.Binary{Op: ir.Lt, X: bits, Y: zero(it), T: ir.TBool}
	case "IsNaN":
		x := l.predicateArg(e.Args[0])
		return &ir.Call{Op: ir.OpIsNaN, Args: []ir.Expr{x}, T: ir.TBool}
	case "IsInf":
		x := l.predicateArg(e.Args[0])
		tv := l.info.Types[e.Args[1]]
		if tv.Value == nil {
			l.errorf(e.Args[1].Pos(), "the sign argument of math.IsInf must be a constant in kernels")
			return nil
		}
		sign, _ := constant.Int64Val(constant.ToInt(tv.Value))
		switch {
		case sign == 0:
			return &ir.Call{Op: ir.OpIsInf, Args: []ir.Expr{x}, T: ir.TBool}
		case sign > 0:
			return &ir.Binary{Op: ir.Eq, X: x, Y: ir.LitFloat(x.Type(), math.Inf(1)), T: ir.TBool}
		default:
			return &ir.Binary{Op: ir.Eq, X: x, Y: ir.LitFloat(x.Type(), math.Inf(-1)), T: ir.TBool}
		}
	}
	op, ok := mathOps[name]
	if !ok {
		l.errorf(e.Pos(), "math.%s is not supported in kernels: the device offers the GLSL.std.450 set (Abs, Floor, Ceil, Round, Trunc, Sqrt, Exp, Exp2, Log, Log2, Sin … Atanh, Pow, Atan2, Min, Max, FMA), math.Inf, NaN, IsNaN, IsInf and Signbit, and their float32 forms in package kernel (kernel.Sqrt, kernel.Clamp, kernel.Lerp …)", name)
		return nil
	}
	var args []ir.Expr
	if f32 {
		for _, a := range e.Args {
			x, ok := l.narrow(a)
			if !ok {
				args = nil
				break
			}
			args = append(args, x)
		}
	}
	if args == nil {
		for _, a := range e.Args {
			args = append(args, l.expr(a))
		}
	}
	res := args[0].Type()
	if op == ir.OpIsNaN {
		res = ir.TBool
	}
	if only32[op] && res == ir.TF64 {
		l.errorf(e.Pos(), "math.%s on float64 has no device instruction: compute in float32 with kernel.%s(x), x a float32", name, name)
		return nil
	}
	if _, err := ir.CallType(op, args); err != nil {
		l.errorf(e.Pos(), "math.%s is not supported on the device for these operands", name)
		return nil
	}
	return &ir.Call{Op: op, Args: args, T: res}
}

// predicateArg lowers the argument of a float test (IsNaN, IsInf, Signbit):
// float64(x) of a float32 x is tested as x, which is exact and needs no
// float64 on the device.
func (l *lowerer) predicateArg(a ast.Expr) ir.Expr {
	if tv := l.info.Types[a]; tv.Value == nil {
		if x, ok := l.narrow(a); ok {
			return x
		}
	}
	return l.expr(a)
}

// narrow returns a float64 argument as float32: float64(x) with x a float32,
// or a constant.
func (l *lowerer) narrow(a ast.Expr) (ir.Expr, bool) {
	if tv := l.info.Types[a]; tv.Value != nil {
		v, _ := constant.Float64Val(constant.ToFloat(tv.Value))
		return ir.LitFloat(ir.TF32, v), true
	}
	c, ok := ast.Unparen(a).(*ast.CallExpr)
	if !ok || len(c.Args) != 1 || !l.info.Types[c.Fun].IsType() {
		return nil, false
	}
	if b, ok := l.goTypeOf(c.Args[0]).Underlying().(*types.Basic); !ok || b.Kind() != types.Float32 {
		return nil, false
	}
	return l.expr(c.Args[0]), true
}

// assert lowers kernel.Assert(cond, msg) to an Assert statement: msg must
// be a constant string.
func (l *lowerer) assert(e *ast.CallExpr, stmt bool) {
	if !stmt {
		l.errorf(e.Pos(), "kernel.Assert returns nothing: call it as a statement")
		return
	}
	tv := l.info.Types[e.Args[1]]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		l.errorf(e.Args[1].Pos(), "the message of kernel.Assert must be a constant string")
		return
	}
	msg := constant.StringVal(tv.Value)
	if len(msg) > ir.MaxAssertMsg {
		l.errorf(e.Args[1].Pos(), "the message of kernel.Assert has %d bytes, more than %d", len(msg), ir.MaxAssertMsg)
		return
	}
	if c := l.expr(e.Args[0]); c != nil {
		l.emit(&ir.Assert{Cond: c, Msg: msg})
	}
}

// printf lowers kernel.Printf(format, args…) to a Print statement: the
// format must be a constant string, the arguments scalars or vectors whose
// types its verbs fit (ir.CheckPrint).
func (l *lowerer) printf(e *ast.CallExpr, stmt bool) {
	if !stmt {
		l.errorf(e.Pos(), "kernel.Printf returns nothing: call it as a statement")
		return
	}
	if e.Ellipsis.IsValid() {
		l.errorf(e.Ellipsis, "kernel.Printf takes its arguments one by one on the device, not as a slice (args...)")
		return
	}
	tv := l.info.Types[e.Args[0]]
	if tv.Value == nil || tv.Value.Kind() != constant.String {
		l.errorf(e.Args[0].Pos(), "the format of kernel.Printf must be a constant string")
		return
	}
	p := &ir.Print{Format: constant.StringVal(tv.Value)}
	for _, a := range e.Args[1:] {
		x := l.expr(a)
		if x == nil {
			return
		}
		p.Args = append(p.Args, x)
	}
	if err := ir.CheckPrint(p); err != nil {
		l.errorf(e.Pos(), "kernel.Printf: %v", err)
		return
	}
	l.emit(p)
}
