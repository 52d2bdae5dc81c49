package vulkan

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Helpers taking buffers, specialised per call (ir.Specialize, the default)
// against passed by reference (codegen.Options.HelpersByReference): the
// same kernel, whose helper takes four buffers and is called with three
// tuples of them (three clones, or one function taking pointers and
// counts), measured for SPIR-V words, codegen, pipeline creation with the
// first dispatch (lavapipe compiles there) and run time
// (docs/PERFORMANCE.md, "Helpers taking buffers"). Three variants:
//
//	bound        buffers bound to descriptors (dsl.Buf, the default form), specialised
//	specialised  buffers by address (dsl.BigBuf), specialised
//	byref        buffers by address, passed by reference
//
// byref against specialised is the cost of the passing alone; against
// bound, what passing by reference would cost as the default, since only
// buffers by address can be passed so.

const blendTaps = 32 // loop trips of blend per call

// blendKernel is
//
//	blend(w, x, y, z, i) = Σ_{j<taps} w[(i+j)%len w]·x[j%len x] + y[(i·j)%len y]·z[(i+3j)%len z]
//	out[i] = blend(a, b, c, d, i) + 2·blend(b, c, d, a, i) + 3·blend(c, d, a, b, i)
//
// over buffers a, b, c, d, out, by address but in variant bound;
// specialised (three clones of blend) but in variant byref (blend a
// template).
func blendKernel(variant string) *ir.Function {
	return blendKernelOf(variant == "bound", variant != "byref")
}

func blendKernelOf(bound, specialise bool) *ir.Function {
	bt := ir.BufferAddress(ir.TF32)
	if bound {
		bt = ir.Buffer(ir.TF32)
	}
	g := ir.NewCallable("blend", ir.TF32)
	var ps [4]*ir.Var
	for k, n := range []string{"w", "x", "y", "z"} {
		ps[k] = g.AddParam(n, bt, ir.VarParam)
	}
	i := g.AddParam("i", ir.TU32, ir.VarParam)
	j, acc := g.AddLocal("j", ir.TU32), g.AddLocal("acc", ir.TF32)
	u := func(x int64) ir.Expr { return ir.LitInt(ir.TU32, x) }
	bin := func(op ir.BinaryOp, x, y ir.Expr) ir.Expr {
		t := x.Type()
		if op.IsCompare() {
			t = ir.TBool
		}
		return &ir.Binary{Op: op, X: x, Y: y, T: t}
	}
	at := func(b *ir.Var, idx ir.Expr) ir.Expr {
		n := &ir.Call{Op: ir.OpBufferSize, Args: []ir.Expr{&ir.Ref{Var: b}}, T: ir.TU32}
		return &ir.Index{X: &ir.Ref{Var: b}, I: bin(ir.Rem, idx, n), T: ir.TF32}
	}
	ri, rj := &ir.Ref{Var: i}, &ir.Ref{Var: j}
	term := bin(ir.Add, bin(ir.Mul, at(ps[0], bin(ir.Add, ri, rj)), at(ps[1], rj)),
		bin(ir.Mul, at(ps[2], bin(ir.Mul, ri, rj)), at(ps[3], bin(ir.Add, ri, bin(ir.Mul, rj, u(3))))))
	g.Body.Stmts = []ir.Stmt{
		&ir.Assign{Dst: &ir.Ref{Var: acc}, Src: ir.LitFloat(ir.TF32, 0)},
		&ir.Assign{Dst: rj, Src: u(0)},
		&ir.For{Cond: bin(ir.Lt, rj, u(blendTaps)),
			Update: &ir.Block{Stmts: []ir.Stmt{&ir.Assign{Dst: rj, Src: bin(ir.Add, rj, u(1))}}},
			Body:   &ir.Block{Stmts: []ir.Stmt{&ir.Assign{Dst: &ir.Ref{Var: acc}, Src: bin(ir.Add, &ir.Ref{Var: acc}, term)}}}},
		&ir.Return{Value: &ir.Ref{Var: acc}},
	}

	k := ir.NewKernel("blend3", 1, [3]uint32{64, 1, 1})
	var as [4]*ir.Var
	for n, name := range []string{"a", "b", "c", "d"} {
		as[n] = k.AddParam(name, bt, ir.VarArg)
	}
	out := k.AddParam("out", bt, ir.VarArg)
	did := &ir.Var{Name: "dispatch_id", Type: ir.DispatchID.Type(), Kind: ir.VarBuiltin, Builtin: ir.DispatchID}
	x := &ir.Swizzle{X: &ir.Ref{Var: did}, Comps: []uint8{0}, T: ir.TU32}
	call := func(r int) ir.Expr {
		args := []ir.Expr{}
		for n := range 4 {
			args = append(args, &ir.Ref{Var: as[(n+r)%4]})
		}
		c := &ir.Call{Func: g, Args: append(args, x), T: ir.TF32}
		return bin(ir.Mul, c, ir.LitFloat(ir.TF32, float64(r+1)))
	}
	k.Body.Stmts = []ir.Stmt{&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: out}, I: x, T: ir.TF32}, Src: bin(ir.Add, bin(ir.Add, call(0), call(1)), call(2))}}
	if specialise {
		if err := ir.Specialize(k); err != nil {
			panic(err)
		}
	}
	return k
}

// blendRef is blendKernel on the host.
func blendRef(bufs [4][]float32, n int) []float32 {
	blend := func(w, x, y, z []float32, i uint32) float32 {
		acc := float32(0)
		for j := range uint32(blendTaps) {
			acc += w[(i+j)%uint32(len(w))]*x[j%uint32(len(x))] + y[(i*j)%uint32(len(y))]*z[(i+j*3)%uint32(len(z))]
		}
		return acc
	}
	out := make([]float32, n)
	for e := range out {
		i := uint32(e)
		out[e] = blend(bufs[0], bufs[1], bufs[2], bufs[3], i) + 2*blend(bufs[1], bufs[2], bufs[3], bufs[0], i) + 3*blend(bufs[2], bufs[3], bufs[0], bufs[1], i)
	}
	return out
}

// blendFixture is a device with the blend inputs uploaded.
type blendFixture struct {
	d        *Device
	st       device.Handle
	bufs     [5]device.Handle // a, b, c, d, out
	data     [4][]float32
	n        int
	sigs     map[string]device.Signature // by variant
	modules  map[string][]uint32
	emitOpts codegen.Options
}

func newBlendFixture(t testing.TB, d *Device, n int) *blendFixture {
	f := &blendFixture{d: d, n: n, sigs: map[string]device.Signature{}, modules: map[string][]uint32{}, emitOpts: d.codegenOptions(device.KernelOptions{})}
	var err error
	f.st, err = d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	t.Cleanup(func() { d.DestroyStream(f.st) })
	var cmds []device.Command
	for k := range f.bufs {
		size := n
		if k < 4 {
			size = 37 + 11*k // lengths prime to each other: the indices wrap differently
			f.data[k] = make([]float32, size)
			for e := range f.data[k] {
				f.data[k][e] = float32((e*(k+2))%13) - 6
			}
		}
		h, err := d.CreateBuffer(device.BufferDesc{Size: uint64(4 * size)})
		require.NoError(t, err)
		t.Cleanup(func() { d.DestroyBuffer(h) })
		f.bufs[k] = h
		if k < 4 {
			cmds = append(cmds, &device.BufferUpload{Buffer: h, Data: bytesOfF32(f.data[k])})
		}
	}
	require.NoError(t, d.Dispatch(f.st, &device.CommandList{Commands: cmds}))
	require.NoError(t, d.SynchronizeStream(context.Background(), f.st))
	for _, v := range blendVariants {
		sigOf := v
		if v == "byref" {
			sigOf = "specialised" // the same kernel arguments; a template does not validate
		}
		f.sigs[v], _, err = device.KernelSignature(blendKernel(sigOf))
		require.NoError(t, err)
		f.modules[v], err = f.emit(v)
		require.NoError(t, err)
	}
	return f
}

var blendVariants = []string{"bound", "specialised", "byref"}

func (f *blendFixture) emit(variant string) ([]uint32, error) {
	opts := f.emitOpts
	opts.HelpersByReference = variant == "byref"
	return codegen.Emit(blendKernel(variant), opts)
}

func (f *blendFixture) shader(variant string, trusted bool) (device.Handle, error) {
	sig := f.sigs[variant]
	sh, _, err := f.d.CreateShader(device.ShaderDesc{SPIRV: f.modules[variant], Signature: &sig, Name: "blend3", Trusted: trusted})
	return sh, err
}

// run dispatches sh over n threads and waits.
func (f *blendFixture) run(sh device.Handle, n int) error {
	args := make([]device.Arg, len(f.bufs))
	for k, h := range f.bufs {
		args[k] = device.Arg{Kind: device.ArgBuffer, Handle: h, Size: device.WholeSize}
	}
	if err := f.d.Dispatch(f.st, &device.CommandList{Commands: []device.Command{
		&device.ShaderDispatch{Shader: sh, Size: [3]uint32{uint32(n), 1, 1}, Args: args}}}); err != nil {
		return err
	}
	return f.d.SynchronizeStream(context.Background(), f.st)
}

// TestHelpersByReference: the by-reference module of blendKernel passes
// spirv-val, computes what the specialised ones do (and the host), and is
// smaller; the figures are BenchmarkHelperBuffers'.
func TestHelpersByReference(t *testing.T) {
	d, _ := openDevice(t)
	if !d.caps.BufferDeviceAddress {
		t.Skip("buffers by address need bufferDeviceAddress")
	}
	const n = 300
	f := newBlendFixture(t, d, n)
	require.Less(t, len(f.modules["byref"]), len(f.modules["specialised"]), "one blend instead of three")
	want := blendRef(f.data, n)
	for _, v := range blendVariants {
		sh, err := f.shader(v, false) // spirv-val
		require.NoError(t, err, v)
		require.NoError(t, f.run(sh, n))
		got := make([]byte, 4*n)
		require.NoError(t, d.Dispatch(f.st, &device.CommandList{Commands: []device.Command{&device.BufferDownload{Buffer: f.bufs[4], Data: got}}}))
		require.NoError(t, d.SynchronizeStream(context.Background(), f.st))
		for e, w := range want {
			g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*e:]))
			require.InDelta(t, w, g, 1e-3*max(1, math.Abs(float64(w))), "%s, element %d", v, e)
		}
		require.NoError(t, d.DestroyShader(sh))
	}
	// Only buffers by address pass by reference.
	_, err := codegen.Emit(blendKernelOf(true, false), codegen.Options{HelpersByReference: true})
	require.ErrorContains(t, err, "callable blend takes w of type buffer<f32>: only a buffer by address passes by reference")
	_, err = codegen.Emit(blendKernel("byref"), codegen.Options{HelpersByReference: true, Checked: true})
	require.ErrorIs(t, err, ir.ErrUnsupported)
}

// BenchmarkHelperBuffers measures blendKernel's variants:
// words (SPIR-V words of the module), emit (IR build, Specialize where
// specialised, codegen), pipeline (vkCreateComputePipelines and the first
// dispatch of one thread, where lavapipe compiles) and run (a dispatch of
// 16Ki threads).
func BenchmarkHelperBuffers(b *testing.B) {
	d, _ := openBenchDevice(b)
	if !d.caps.BufferDeviceAddress {
		b.Skip("buffers by address need bufferDeviceAddress")
	}
	const n = 1 << 14
	f := newBlendFixture(b, d, n)
	for _, phase := range []string{"emit", "pipeline", "run"} {
		for _, v := range blendVariants {
			b.Run(phase+"/"+v, func(b *testing.B) {
				// Process CPU time per op, reported after b.Loop (which
				// clears metrics): lavapipe does all its work on this
				// process's threads, and on a shared machine wall time
				// measures the neighbours too.
				var cpu float64
				defer func() {
					b.ReportMetric(float64(len(f.modules[v])), "words")
					b.ReportMetric(cpu*1000/float64(b.N), "cpu-ms/op")
				}()
				var sh device.Handle
				if phase == "run" {
					var err error
					if sh, err = f.shader(v, true); err == nil {
						err = f.run(sh, n)
					}
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { d.DestroyShader(sh) })
				}
				c0 := cpuSeconds()
				for b.Loop() {
					var err error
					switch phase {
					case "emit":
						_, err = f.emit(v)
					case "pipeline":
						var p device.Handle
						if p, err = f.shader(v, true); err == nil {
							err = f.run(p, 1)
							d.DestroyShader(p)
						}
					case "run":
						err = f.run(sh, n)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				cpu = cpuSeconds() - c0
			})
		}
	}
}
