package codegen_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// loopExitKernels are kernels out[i] = f(in[i]) leaving loops every way:
// break from nested loops and ifs, continue, break out of a switch in a
// loop, return from a loop in a kernel and (with a value) in a callable,
// and a for loop whose update must not run after the break. Each call
// builds new callables, so a rewrite of one build leaves the others alone.
func loopExitKernels() map[string]func() (*ir.Function, error) {
	return map[string]func() (*ir.Function, error){
		"nested break": func() (*ir.Function, error) {
			return dsl.Kernel1D(32, func(k *dsl.K, in, out dsl.Buf[dsl.I32]) {
				i := k.DispatchID().X()
				x := in.Read(i)
				r := dsl.NewVar(k, dsl.I(0))
				dsl.Range(k, dsl.I(0), dsl.I(8), func(a dsl.I32) {
					k.If(a.Eq(x.And(dsl.I(3))), k.Continue)
					j := dsl.NewVar(k, dsl.I(0))
					k.Loop(func() {
						k.If(j.Get().Mul(a).Add(j.Get()).Gt(x.And(dsl.I(15))), k.Break)
						j.Set(j.Get().Add(dsl.I(1)))
						r.Set(r.Get().Add(j.Get()))
					})
					k.If(r.Get().Gt(x.And(dsl.I(63))), func() {
						r.Set(r.Get().Mul(dsl.I(3)))
						k.Break()
					})
					r.Set(r.Get().Add(a))
				})
				out.Write(i, r.Get())
			})
		},
		"switch in loop": func() (*ir.Function, error) {
			return dsl.Kernel1D(32, func(k *dsl.K, in, out dsl.Buf[dsl.I32]) {
				i := k.DispatchID().X()
				x := in.Read(i)
				r := dsl.NewVar(k, dsl.I(1))
				dsl.Range(k, dsl.I(0), dsl.I(10), func(a dsl.I32) {
					k.Switch(x.Add(a).Rem(dsl.I(3))).
						Case(func() {
							k.If(a.Gt(dsl.I(4)), k.Break)
							r.Set(r.Get().Add(dsl.I(7)))
						}, 0).
						Case(func() { r.Set(r.Get().Mul(dsl.I(2))) }, 1).
						Default(func() { r.Set(r.Get().Sub(a)) })
					k.If(r.Get().Gt(x), k.Break)
				})
				out.Write(i, r.Get())
			})
		},
		"return in loop": func() (*ir.Function, error) {
			find := dsl.Callable("find", func(k *dsl.K, x dsl.I32) dsl.I32 {
				dsl.Range(k, dsl.I(1), dsl.I(20), func(a dsl.I32) {
					k.If(a.Mul(a).Gt(x), func() { k.ReturnValue(a.Mul(dsl.I(10))) })
				})
				return dsl.I(-1)
			})
			return dsl.Kernel1D(32, func(k *dsl.K, in, out dsl.Buf[dsl.I32]) {
				i := k.DispatchID().X()
				x := in.Read(i)
				out.Write(i, find(k, x))
				dsl.Range(k, dsl.I(0), dsl.I(4), func(a dsl.I32) {
					k.If(a.Eq(x.And(dsl.I(3))), func() {
						out.Write(i, out.Read(i).Add(a))
						k.Return()
					})
				})
				out.Write(i, out.Read(i).Add(dsl.I(1000)))
			})
		},
		"condition with effects": func() (*ir.Function, error) {
			// for step(&j) < 40 { if j*j > x { break } }; out = j*100 + n,
			// with step incrementing j and n counting the steps: the
			// condition must not run once more after the break.
			step := ir.NewCallable("step", ir.TI32)
			p := step.AddParam("p", ir.TI32, ir.VarRefParam)
			pr := &ir.Ref{Var: p}
			step.Body.Stmts = []ir.Stmt{
				&ir.Assign{Dst: pr, Src: &ir.Binary{Op: ir.Add, X: pr, Y: ir.LitInt(ir.TI32, 1), T: ir.TI32}},
				&ir.Return{Value: pr},
			}
			f := ir.NewKernel("k", 1, [3]uint32{32, 1, 1})
			in := f.AddParam("in", ir.Buffer(ir.TI32), ir.VarArg)
			out := f.AddParam("out", ir.Buffer(ir.TI32), ir.VarArg)
			j, n := f.AddLocal("j", ir.TI32), f.AddLocal("n", ir.TI32)
			did := &ir.Var{Name: "dispatch_id", Type: ir.DispatchID.Type(), Kind: ir.VarBuiltin, Builtin: ir.DispatchID}
			id := &ir.Swizzle{X: &ir.Ref{Var: did}, Comps: []uint8{0}, T: ir.TU32}
			x := &ir.Index{X: &ir.Ref{Var: in}, I: id, T: ir.TI32}
			jr, nr := &ir.Ref{Var: j}, &ir.Ref{Var: n}
			f.Body.Stmts = []ir.Stmt{
				&ir.Assign{Dst: jr, Src: ir.LitInt(ir.TI32, 0)},
				&ir.Assign{Dst: nr, Src: ir.LitInt(ir.TI32, 0)},
				&ir.For{
					Cond: &ir.Binary{Op: ir.Lt, X: &ir.Call{Func: step, Args: []ir.Expr{jr}, T: ir.TI32}, Y: ir.LitInt(ir.TI32, 40), T: ir.TBool},
					Body: &ir.Block{Stmts: []ir.Stmt{
						&ir.Assign{Dst: nr, Src: &ir.Binary{Op: ir.Add, X: nr, Y: ir.LitInt(ir.TI32, 1), T: ir.TI32}},
						&ir.If{
							Cond: &ir.Binary{Op: ir.Gt, X: &ir.Binary{Op: ir.Mul, X: jr, Y: jr, T: ir.TI32}, Y: x, T: ir.TBool},
							Then: &ir.Block{Stmts: []ir.Stmt{&ir.Break{}}},
						},
					}},
				},
				&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: out}, I: id, T: ir.TI32},
					Src: &ir.Binary{Op: ir.Add, X: &ir.Binary{Op: ir.Mul, X: jr, Y: ir.LitInt(ir.TI32, 100), T: ir.TI32}, Y: nr, T: ir.TI32}},
			}
			return f, f.Validate()
		},
		"break before update": func() (*ir.Function, error) {
			f := ir.NewKernel("k", 1, [3]uint32{32, 1, 1})
			in := f.AddParam("in", ir.Buffer(ir.TI32), ir.VarArg)
			out := f.AddParam("out", ir.Buffer(ir.TI32), ir.VarArg)
			j := f.AddLocal("j", ir.TI32)
			did := &ir.Var{Name: "dispatch_id", Type: ir.DispatchID.Type(), Kind: ir.VarBuiltin, Builtin: ir.DispatchID}
			id := &ir.Swizzle{X: &ir.Ref{Var: did}, Comps: []uint8{0}, T: ir.TU32}
			x := &ir.Index{X: &ir.Ref{Var: in}, I: id, T: ir.TI32}
			ref := &ir.Ref{Var: j}
			f.Body.Stmts = []ir.Stmt{
				&ir.Assign{Dst: ref, Src: ir.LitInt(ir.TI32, 0)},
				&ir.For{
					Cond:   &ir.Binary{Op: ir.Lt, X: ref, Y: ir.LitInt(ir.TI32, 50), T: ir.TBool},
					Update: &ir.Block{Stmts: []ir.Stmt{&ir.Assign{Dst: ref, Src: &ir.Binary{Op: ir.Add, X: ref, Y: ir.LitInt(ir.TI32, 1), T: ir.TI32}}}},
					Body: &ir.Block{Stmts: []ir.Stmt{&ir.If{
						Cond: &ir.Binary{Op: ir.Gt, X: &ir.Binary{Op: ir.Mul, X: ref, Y: ref, T: ir.TI32}, Y: x, T: ir.TBool},
						Then: &ir.Block{Stmts: []ir.Stmt{&ir.Break{}}},
					}}},
				},
				&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: out}, I: id, T: ir.TI32}, Src: ref},
			}
			return f, f.Validate()
		},
	}
}

// lowerLoopExits rewrites f and the callables it reaches in place, as
// Options.LoopExitFlags has codegen emit them.
func lowerLoopExits(t *testing.T, f *ir.Function) {
	for _, g := range append([]*ir.Function{f}, f.Callees()...) {
		body, flags := codegen.LoopExits(g)
		g.Body, g.Locals = body, append(g.Locals, flags...)
	}
	require.NoError(t, f.Validate())
}

func i32Buffer(v []int32) *interp.Buffer {
	b := interp.NewBuffer(ir.TI32, len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b.Data[4*i:], uint32(x))
	}
	return b
}

// TestLoopExitsKeepMeaning: the flag form of every kernel computes what the
// kernel does (the interpreter runs both), and its module passes spirv-val.
func TestLoopExitsKeepMeaning(t *testing.T) {
	var in []int32
	for x := int32(-40); x <= 90; x++ {
		in = append(in, x)
	}
	for name, build := range loopExitKernels() {
		t.Run(name, func(t *testing.T) {
			f, err := build()
			require.NoError(t, err)
			want := interp.NewBuffer(ir.TI32, len(in))
			require.NoError(t, interp.Run(f, [3]uint32{uint32(len(in)), 1, 1}, i32Buffer(in), want))
			emitValid(t, f, codegen.Options{LoopExitFlags: true})

			g, err := build()
			require.NoError(t, err)
			lowerLoopExits(t, g)
			got := interp.NewBuffer(ir.TI32, len(in))
			require.NoError(t, interp.Run(g, [3]uint32{uint32(len(in)), 1, 1}, i32Buffer(in), got))
			require.Equal(t, want.Data, got.Data)
		})
	}
}

// TestLoopExitFlagsChangeOnlyLoopExits: over the corpus, the option changes
// the module of a kernel only where a loop is left by break or return, and
// every module made with it passes spirv-val.
func TestLoopExitFlagsChangeOnlyLoopExits(t *testing.T) {
	changed := 0
	for name, build := range programs.All() {
		f, err := build()
		require.NoError(t, err, name)
		plain, err := codegen.Emit(f, codegen.Options{})
		require.NoError(t, err, name)
		emitValid(t, f, codegen.Options{LoopExitFlags: true})
		flags, err := codegen.Emit(f, codegen.Options{LoopExitFlags: true})
		require.NoError(t, err, name)
		_, added := codegen.LoopExits(f)
		exits := len(added) > 0
		for _, c := range f.Callees() {
			_, a := codegen.LoopExits(c)
			exits = exits || len(a) > 0
		}
		if exits {
			changed++
			require.NotEqual(t, plain, flags, name)
		} else {
			require.Equal(t, plain, flags, name)
		}
	}
	require.NotZero(t, changed, "the corpus has loops left by break")
}

// TestWorkaroundTable: the loop-exit-flags and loop-limit entries cover
// Mesa's lavapipe before 25.0 and nothing else, and set their options.
func TestWorkaroundTable(t *testing.T) {
	names := func(ws []codegen.Workaround) []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.Name)
		}
		return out
	}
	require.Equal(t, []string{"loop-exit-flags", "loop-limit"}, names(codegen.Workarounds(codegen.DriverMesaLLVMpipe, codegen.MesaVersion(22, 3, 6))))
	require.Empty(t, codegen.Workarounds(codegen.DriverMesaLLVMpipe, codegen.MesaVersion(25, 0, 7)))
	require.Empty(t, codegen.Workarounds(4 /* NVIDIA proprietary */, codegen.MesaVersion(22, 3, 6)))
	var o codegen.Options
	for _, w := range codegen.Workarounds(codegen.DriverMesaLLVMpipe, codegen.MesaVersion(22, 0, 0)) {
		w.Apply(&o)
	}
	require.Equal(t, codegen.Options{LoopExitFlags: true, LoopLimit: 65535}, o)
	require.Len(t, codegen.AllWorkarounds(), 2)
	for _, w := range codegen.AllWorkarounds() {
		require.Contains(t, w.String(), "Mesa llvmpipe 0.0.0 to 25.0.0")
	}
}
