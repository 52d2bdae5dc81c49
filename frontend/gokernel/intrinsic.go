package gokernel

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"

	"github.com/lucent-gpu/lucent/frontend"
)

var builtinIDs = map[string]frontend.BuiltinVar{
	"DispatchID": frontend.DispatchID, "ThreadID": frontend.ThreadID, "BlockID": frontend.BlockID,
	"DispatchSize": frontend.DispatchSize, "BlockSize": frontend.BlockSize, "DispatchGroups": frontend.DispatchGroups,
	"SubgroupLaneID": frontend.SubgroupLane, "SubgroupSize": frontend.SubgroupSize,
}

// constructors are the positional vector constructors kernel.F3(x, y, z) etc.
var constructors = map[string]*frontend.Type{
	"F2": kernelVectors["Float2"], "F3": kernelVectors["Float3"], "F4": kernelVectors["Float4"],
	"I2": kernelVectors["Int2"], "I3": kernelVectors["Int3"], "I4": kernelVectors["Int4"],
	"U2": kernelVectors["Uint2"], "U3": kernelVectors["Uint3"], "U4": kernelVectors["Uint4"],
}

var atomicOps = map[string]frontend.Op{
	"AtomicAdd": frontend.OpAtomicAdd, "AtomicSub": frontend.OpAtomicSub, "AtomicMin": frontend.OpAtomicMin,
	"AtomicMax": frontend.OpAtomicMax, "AtomicAnd": frontend.OpAtomicAnd, "AtomicOr": frontend.OpAtomicOr,
	"AtomicXor": frontend.OpAtomicXor, "AtomicExchange": frontend.OpAtomicExchange,
	"AtomicCompareExchange": frontend.OpAtomicCAS, "AtomicLoad": frontend.OpAtomicOr, "AtomicStore": frontend.OpAtomicExchange,
}

var subgroupOps = map[string]frontend.Op{
	"SubgroupElect": frontend.OpSubgroupElect, "SubgroupAll": frontend.OpSubgroupAll, "SubgroupAny": frontend.OpSubgroupAny,
	"SubgroupBallot": frontend.OpSubgroupBallot, "SubgroupBroadcast": frontend.OpSubgroupBroadcast,
	"SubgroupBroadcastFirst": frontend.OpSubgroupBroadcastFirst, "SubgroupShuffle": frontend.OpSubgroupShuffle,
	"SubgroupAdd": frontend.OpSubgroupAdd, "SubgroupMul": frontend.OpSubgroupMul, "SubgroupMin": frontend.OpSubgroupMin,
	"SubgroupMax": frontend.OpSubgroupMax, "SubgroupInclusiveAdd": frontend.OpSubgroupInclusiveAdd,
	"SubgroupExclusiveAdd": frontend.OpSubgroupExclusiveAdd,
}

// intrinsic lowers a call of a function or method of package kernel.
func (l *lowerer) intrinsic(e *ast.CallExpr, f *types.Func, stmt bool) frontend.Expr {
	name := f.Name()
	if sig := f.Type().(*types.Signature); sig.Recv() != nil {
		return l.method(e, f)
	}
	t := l.goTypeOf(e)
	args := func() []frontend.Expr {
		out := make([]frontend.Expr, len(e.Args))
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
		return &frontend.Ref{Var: l.builtin(b)}
	}
	if op, ok := atomicOps[name]; ok {
		return l.atomic(e, name, op)
	}
	if op, ok := subgroupOps[name]; ok {
		a := args()
		if op == frontend.OpSubgroupBroadcast {
			if tv := l.info.Types[e.Args[1]]; tv.Value == nil {
				l.errorf(e.Args[1].Pos(), "the lane of kernel.SubgroupBroadcast must be a constant on the device: use kernel.SubgroupShuffle for a computed lane")
				return nil
			}
		}
		rt := frontend.TBool
		if t != nil {
			rt = l.typeAt(t, e.Pos())
		}
		if _, err := frontend.CallType(op, a); err != nil {
			l.errorf(e.Pos(), "kernel.%s on these operands is not supported on the device: %v", name, err)
			return nil
		}
		return &frontend.Call{Op: op, Args: a, T: rt}
	}
	if vt, ok := constructors[name]; ok {
		return &frontend.Construct{T: vt, Args: args()}
	}
	if op, ok := kernelMathOps[name]; ok {
		a := args()
		rt, err := frontend.CallType(op, a)
		if err != nil {
			l.errorf(e.Pos(), "kernel.%s on these operands is not supported on the device: %v", name, err)
			return nil
		}
		return &frontend.Call{Op: op, Args: a, T: rt}
	}
	switch name {
	case "Barrier":
		return &frontend.Call{Op: frontend.OpBarrier, T: frontend.TVoid}
	case "BallotCount":
		a := args()
		pc := &frontend.Call{Op: frontend.OpPopCount, Args: a, T: frontend.Vector(frontend.TU32, 4)}
		return &frontend.Call{Op: frontend.OpReduceSum, Args: []frontend.Expr{pc}, T: frontend.TU32}
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
func (l *lowerer) atomic(e *ast.CallExpr, name string, op frontend.Op) frontend.Expr {
	var p frontend.Expr
	if id, ok := ast.Unparen(e.Args[0]).(*ast.Ident); ok && l.shared[l.info.Uses[id]] != nil {
		p = &frontend.Ref{Var: l.shared[l.info.Uses[id]]} // a scalar kernel.Shared variable
	} else if u, ok := ast.Unparen(e.Args[0]).(*ast.UnaryExpr); ok && u.Op == token.AND {
		p = l.expr(u.X)
	} else {
		l.errorf(e.Args[0].Pos(), "the first argument of kernel.%s must be &buf[i], &shared[i] or a kernel.Shared variable: the address of a buffer element or of shared memory", name)
		return nil
	}
	if !frontend.IsPlace(p) || !atomicRoot(p) {
		l.errorf(e.Args[0].Pos(), "kernel.%s needs the address of a buffer element or of kernel.Shared memory: locals are private to a thread and need no atomics", name)
		return nil
	}
	args := []frontend.Expr{p}
	for _, a := range e.Args[1:] {
		args = append(args, l.expr(a))
	}
	t := p.Type()
	switch name {
	case "AtomicLoad":
		if t == frontend.TF32 {
			// Adding -0 leaves every float, -0 included, unchanged.
			return &frontend.Call{Op: frontend.OpAtomicAdd, Args: []frontend.Expr{p, frontend.LitFloat(frontend.TF32, math.Copysign(0, -1))}, T: t}
		}
		return &frontend.Call{Op: frontend.OpAtomicOr, Args: []frontend.Expr{p, zero(t)}, T: t}
	case "AtomicStore":
		return &frontend.Call{Op: frontend.OpAtomicExchange, Args: args, T: t}
	}
	if _, err := frontend.CallType(op, args); err != nil {
		l.errorf(e.Pos(), "kernel.%s on %s is not supported on the device", name, t)
		return nil
	}
	return &frontend.Call{Op: op, Args: args, T: t}
}

// atomicRoot reports whether a place lies in a buffer or shared memory.
func atomicRoot(p frontend.Expr) bool {
	for {
		switch x := p.(type) {
		case *frontend.Ref:
			return x.Var.Kind == frontend.VarShared
		case *frontend.Index:
			if x.X.Type().Kind() == frontend.KindBuffer {
				return true
			}
			p = x.X
		case *frontend.Member:
			p = x.X
		default:
			return false
		}
	}
}

// method lowers a method of a kernel vector, matrix or texture type.
func (l *lowerer) method(e *ast.CallExpr, f *types.Func) frontend.Expr {
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
	case tname == "Bindless" && f.Name() == "Texture2D":
		l.errorf(e.Pos(), "a bindless texture can only be read, sized or sampled (arr.Texture2D(slot).Sample(uv)) or named (tex := arr.Texture2D(slot))")
		return nil
	}
	before := l.nerrs
	recv := l.expr(sel.X)
	if l.nerrs > before {
		return nil
	}
	var args []frontend.Expr
	for _, a := range e.Args {
		args = append(args, l.expr(a))
	}
	rt := recv.Type()
	res := frontend.TVoid
	if t := l.goTypeOf(e); t != nil {
		if tup, ok := t.(*types.Tuple); !ok || tup.Len() > 0 {
			res = l.typeAt(t, e.Pos())
		}
	}
	bin := func(op frontend.BinaryOp, y frontend.Expr) frontend.Expr {
		if _, err := frontend.BinaryType(op, rt, y.Type()); err != nil {
			l.errorf(e.Pos(), "%s.%s is not supported on the device", tname, f.Name())
			return zero(res)
		}
		return &frontend.Binary{Op: op, X: recv, Y: y, T: res}
	}
	op := func(o frontend.Op, a ...frontend.Expr) frontend.Expr {
		all := append([]frontend.Expr{recv}, a...)
		if _, err := frontend.CallType(o, all); err != nil {
			l.errorf(e.Pos(), "%s.%s is not supported on the device", tname, f.Name())
			return zero(res)
		}
		return &frontend.Call{Op: o, Args: all, T: res}
	}
	isFloat := rt.Scalar().Kind() == frontend.KindFloat
	switch rt.Kind() {
	case frontend.KindVector, frontend.KindMatrix:
		switch f.Name() {
		case "Add":
			return bin(frontend.Add, args[0])
		case "Sub":
			return bin(frontend.Sub, args[0])
		case "Mul", "MulVec":
			return bin(frontend.Mul, args[0])
		case "Div":
			return bin(frontend.Div, args[0])
		case "Scale":
			if isFloat {
				return bin(frontend.Mul, args[0])
			}
			return bin(frontend.Mul, &frontend.Construct{T: rt, Args: args})
		case "Dot":
			if isFloat {
				return op(frontend.OpDot, args[0])
			}
			prod := &frontend.Binary{Op: frontend.Mul, X: recv, Y: args[0], T: rt}
			return &frontend.Call{Op: frontend.OpReduceSum, Args: []frontend.Expr{prod}, T: res}
		case "Min":
			return op(frontend.OpMin, args[0])
		case "Max":
			return op(frontend.OpMax, args[0])
		case "Neg":
			return &frontend.Unary{Op: frontend.Neg, X: recv, T: rt}
		case "Length":
			return op(frontend.OpLength)
		case "Distance":
			return op(frontend.OpDistance, args[0])
		case "Normalize":
			return op(frontend.OpNormalize)
		case "Cross":
			return op(frontend.OpCross, args[0])
		case "Transpose":
			return op(frontend.OpTranspose)
		}
	case frontend.KindTexture:
		n := rt.Len()
		coord := func(a []frontend.Expr) frontend.Expr {
			return &frontend.Construct{T: frontend.Vector(frontend.TU32, n), Args: a}
		}
		switch f.Name() {
		case "Read":
			return op(frontend.OpTextureRead, coord(args))
		case "Write":
			return op(frontend.OpTextureWrite, coord(args[:n]), args[n])
		case "Size":
			return op(frontend.OpTextureSize)
		case "Sample":
			if rt.Elem().Scalar().Kind() != frontend.KindFloat {
				l.errorf(e.Pos(), "%s.Sample needs a texture of Float4 texels: %s textures are read with Read", tname, rt.Elem())
				return zero(res)
			}
			return op(frontend.OpTextureSample, args[0])
		}
	}
	l.errorf(e.Pos(), "%s.%s is host code, not a kernel intrinsic: call it outside the kernel", tname, f.Name())
	return nil
}

var mathOps = map[string]frontend.Op{
	"Abs": frontend.OpAbs, "Floor": frontend.OpFloor, "Ceil": frontend.OpCeil, "Round": frontend.OpRound,
	"Trunc": frontend.OpTrunc, "Sqrt": frontend.OpSqrt, "Exp": frontend.OpExp, "Exp2": frontend.OpExp2,
	"Log": frontend.OpLog, "Log2": frontend.OpLog2, "Sin": frontend.OpSin, "Cos": frontend.OpCos,
	"Tan": frontend.OpTan, "Asin": frontend.OpAsin, "Acos": frontend.OpAcos, "Atan": frontend.OpAtan,
	"Sinh": frontend.OpSinh, "Cosh": frontend.OpCosh, "Tanh": frontend.OpTanh, "Asinh": frontend.OpAsinh,
	"Acosh": frontend.OpAcosh, "Atanh": frontend.OpAtanh, "Pow": frontend.OpPow, "Atan2": frontend.OpAtan2,
	"Min": frontend.OpMin, "Max": frontend.OpMax, "FMA": frontend.OpFma,
}

// kernelMathOps are the float32 math functions of package kernel, one
// built-in each.
var kernelMathOps = map[string]frontend.Op{
	"Abs": frontend.OpAbs, "Sign": frontend.OpSign, "Floor": frontend.OpFloor, "Ceil": frontend.OpCeil,
	"Round": frontend.OpRound, "Trunc": frontend.OpTrunc, "Fract": frontend.OpFract, "Sqrt": frontend.OpSqrt,
	"InverseSqrt": frontend.OpInverseSqrt, "Exp": frontend.OpExp, "Exp2": frontend.OpExp2, "Log": frontend.OpLog,
	"Log2": frontend.OpLog2, "Sin": frontend.OpSin, "Cos": frontend.OpCos, "Tan": frontend.OpTan,
	"Asin": frontend.OpAsin, "Acos": frontend.OpAcos, "Atan": frontend.OpAtan, "Atan2": frontend.OpAtan2,
	"Sinh": frontend.OpSinh, "Cosh": frontend.OpCosh, "Tanh": frontend.OpTanh, "Asinh": frontend.OpAsinh,
	"Acosh": frontend.OpAcosh, "Atanh": frontend.OpAtanh, "Radians": frontend.OpRadians, "Degrees": frontend.OpDegrees,
	"Pow": frontend.OpPow, "Min": frontend.OpMin, "Max": frontend.OpMax, "Clamp": frontend.OpClamp,
	"Saturate": frontend.OpSaturate, "Step": frontend.OpStep, "SmoothStep": frontend.OpSmoothStep,
	"Lerp": frontend.OpLerp, "Fma": frontend.OpFma, "IsNaN": frontend.OpIsNaN, "IsInf": frontend.OpIsInf,
}

// only32 lists the GLSL.std.450 instructions defined for 16- and 32-bit
// floats only.
var only32 = map[frontend.Op]bool{
	frontend.OpExp: true, frontend.OpExp2: true, frontend.OpLog: true, frontend.OpLog2: true,
	frontend.OpSin: true, frontend.OpCos: true, frontend.OpTan: true, frontend.OpAsin: true,
	frontend.OpAcos: true, frontend.OpAtan: true, frontend.OpSinh: true, frontend.OpCosh: true,
	frontend.OpTanh: true, frontend.OpAsinh: true, frontend.OpAcosh: true, frontend.OpAtanh: true,
	frontend.OpPow: true, frontend.OpAtan2: true,
}

// mathCall lowers math.F(args). With f32 set, the call sits in float32(…):
// when every argument is float64(x) of a float32 x (or a constant), the
// operation is emitted on float32 directly, which is what such Go code means
// on a GPU.
func (l *lowerer) mathCall(e *ast.CallExpr, f *types.Func, f32 bool) frontend.Expr {
	name := f.Name()
	switch name {
	case "Float32bits", "Float32frombits", "Float64bits", "Float64frombits":
		return &frontend.Cast{X: l.expr(e.Args[0]), T: l.typeOf(e), Bit: true}
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
			return frontend.LitFloat(frontend.TF32, v)
		}
		return frontend.LitFloat(frontend.TF64, v)
	case "Signbit":
		x := l.predicateArg(e.Args[0])
		it := frontend.TI32
		if x.Type() == frontend.TF64 {
			it = frontend.TI64
		}
		bits := &frontend.Cast{X: x, T: it, Bit: true}
		return &frontend.Binary{Op: frontend.Lt, X: bits, Y: zero(it), T: frontend.TBool}
	case "IsNaN":
		x := l.predicateArg(e.Args[0])
		return &frontend.Call{Op: frontend.OpIsNaN, Args: []frontend.Expr{x}, T: frontend.TBool}
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
			return &frontend.Call{Op: frontend.OpIsInf, Args: []frontend.Expr{x}, T: frontend.TBool}
		case sign > 0:
			return &frontend.Binary{Op: frontend.Eq, X: x, Y: frontend.LitFloat(x.Type(), math.Inf(1)), T: frontend.TBool}
		default:
			return &frontend.Binary{Op: frontend.Eq, X: x, Y: frontend.LitFloat(x.Type(), math.Inf(-1)), T: frontend.TBool}
		}
	}
	op, ok := mathOps[name]
	if !ok {
		l.errorf(e.Pos(), "math.%s is not supported in kernels: the device offers the GLSL.std.450 set (Abs, Floor, Ceil, Round, Trunc, Sqrt, Exp, Exp2, Log, Log2, Sin … Atanh, Pow, Atan2, Min, Max, FMA), math.Inf, NaN, IsNaN, IsInf and Signbit, and their float32 forms in package kernel (kernel.Sqrt, kernel.Clamp, kernel.Lerp …)", name)
		return nil
	}
	var args []frontend.Expr
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
	if op == frontend.OpIsNaN {
		res = frontend.TBool
	}
	if only32[op] && res == frontend.TF64 {
		l.errorf(e.Pos(), "math.%s on float64 has no device instruction: compute in float32 with kernel.%s(x), x a float32", name, name)
		return nil
	}
	if _, err := frontend.CallType(op, args); err != nil {
		l.errorf(e.Pos(), "math.%s is not supported on the device for these operands", name)
		return nil
	}
	return &frontend.Call{Op: op, Args: args, T: res}
}

// predicateArg lowers the argument of a float test (IsNaN, IsInf, Signbit):
// float64(x) of a float32 x is tested as x, which is exact and needs no
// float64 on the device.
func (l *lowerer) predicateArg(a ast.Expr) frontend.Expr {
	if tv := l.info.Types[a]; tv.Value == nil {
		if x, ok := l.narrow(a); ok {
			return x
		}
	}
	return l.expr(a)
}

// narrow returns a float64 argument as float32: float64(x) with x a float32,
// or a constant.
func (l *lowerer) narrow(a ast.Expr) (frontend.Expr, bool) {
	if tv := l.info.Types[a]; tv.Value != nil {
		v, _ := constant.Float64Val(constant.ToFloat(tv.Value))
		return frontend.LitFloat(frontend.TF32, v), true
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
