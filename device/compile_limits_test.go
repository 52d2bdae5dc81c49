package device_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

func TestCheckDeviceLimits(t *testing.T) {
	caps := device.Capabilities{MaxWorkgroupSize: [3]uint32{256, 256, 64}, MaxWorkgroupInvocations: 256, MaxSharedMemory: 32 << 10}
	kernel := func(block [3]uint32, dim int, shared ...int) *ir.Function {
		f := ir.NewKernel("k", dim, block)
		f.Pos = "k.go:3:6"
		for i, n := range shared {
			v := f.AddShared("tile", ir.Array(ir.TF32, n))
			if i == 1 {
				v.Pos = "k.go:5:2"
			}
		}
		return f
	}
	cases := map[string]struct {
		f    *ir.Function
		want string
	}{
		"block too wide":   {kernel([3]uint32{512, 1, 1}, 1), "k.go:3:6: kernel k: its block [512 1 1] is 512 threads in x, more than the device's 256 (maxComputeWorkGroupSize [256 256 64])"},
		"block too deep":   {kernel([3]uint32{1, 1, 128}, 3), "128 threads in z, more than the device's 64"},
		"too many threads": {kernel([3]uint32{32, 32, 1}, 2), "k.go:3:6: kernel k: its block [32 32 1] is 1024 threads, more than the device's 256 (maxComputeWorkGroupInvocations)"},
		"shared too large": {kernel([3]uint32{64, 1, 1}, 1, 4096, 8192+1),
			"k.go:5:2: kernel k: its shared variables take 49156 bytes, more than the device's 32 KiB (maxComputeSharedMemorySize); the largest, tile of type [8193]f32, takes 32772 bytes"},
		"shared together too large": {kernel([3]uint32{64, 1, 1}, 1, 6144, 4096),
			"k.go:3:6: kernel k: its shared variables take 40 KiB, more than the device's 32 KiB"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := device.CheckDeviceLimits(caps, c.f)
			require.ErrorIs(t, err, device.ErrUnsupported)
			require.ErrorContains(t, err, c.want)
		})
	}
	require.NoError(t, device.CheckDeviceLimits(caps, kernel([3]uint32{16, 16, 1}, 2, 4096, 4096)))
	require.NoError(t, device.CheckDeviceLimits(device.Capabilities{}, kernel([3]uint32{1024, 1, 1}, 1, 1<<18)), "unknown limits")
}

func TestCompileSharedPastDevice(t *testing.T) {
	d := openDevice(t)
	caps := d.Capabilities()
	n := int(caps.MaxSharedMemory/4) + 1
	if n*4 > ir.MaxTypeSize {
		t.Skipf("the device's %d bytes of shared memory are more than a type may take", caps.MaxSharedMemory)
	}
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		s := dsl.NewShared[dsl.F32](k, n)
		i := k.DispatchID().X()
		s.Write(i, dsl.F(1))
		out.Write(i, s.Read(i))
	})
	require.NoError(t, err)
	_, err = device.Compile(d, f, device.WithKernelName("tiles"))
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorContains(t, err, "device: Compile tiles: ")
	require.ErrorContains(t, err, "maxComputeSharedMemorySize")
}

// slowKernel nests ifs depth deep, each level holding width loops of
// arithmetic: at depth 24 and width 8 lavapipe spends 0.2-0.8 s building its
// pipeline (against 25 ms of codegen), within every compiler bound. A fresh
// salt keeps driver caches (Mesa's disk cache) from knowing the module.
func slowKernel(t testing.TB, depth, width int) *ir.Function {
	salt := uint32(time.Now().UnixNano())
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		acc := dsl.NewVar(k, out.Read(i))
		var level func(d int)
		level = func(d int) {
			if d == 0 {
				return
			}
			k.If(acc.Get().Ne(dsl.U(uint32(d))), func() {
				for w := range width {
					dsl.Range(k, dsl.U(0), acc.Get().And(dsl.U(7)), func(j dsl.U32) {
						acc.Set(acc.Get().Mul(dsl.U(uint32(2*w + 3))).Add(j).Xor(i).Add(dsl.U(salt)))
					})
				}
				level(d - 1)
			})
		}
		level(depth)
		out.Write(i, acc.Get())
	})
	require.NoError(t, err)
	return f
}

func TestCompileContextAbandons(t *testing.T) {
	// Validation on: Close reports any shader the late compile leaked.
	d, err := device.Open(context.Background(), "vulkan", device.WithValidation(), device.WithValidationLayer(true),
		device.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	testenv.Need(t, "a Vulkan device", err)
	defer func() { require.NoError(t, d.Close(), "nothing leaked") }()
	f := slowKernel(t, 24, 8)

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = device.CompileContext(cancelled, d, f)
	require.ErrorIs(t, err, context.Canceled)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	k, err := device.CompileContext(ctx, d, f)
	took := time.Since(t0)
	require.Nil(t, k)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "device: Compile kernel: ")
	// The driver finishes in the background; its pipeline is destroyed.
	device.WaitCompiles(d)
	done := time.Since(t0)
	t.Logf("returned after %v, the background compile finished after %v", took, done)
	require.Less(t, took, done/2, "the caller waited for the driver")
	v, ok := d.Interface().(*device.Validator)
	require.True(t, ok)
	require.Empty(t, v.Leaks())

	// The same kernel compiles with time to spare.
	k, err = device.CompileContext(context.Background(), d, f)
	require.NoError(t, err)
	require.NoError(t, k.Close())
}

func TestCompileLimitIsInvalidArgument(t *testing.T) {
	d := openDevice(t)
	f := ir.NewKernel("deep", 1, [3]uint32{64, 1, 1})
	var s ir.Stmt = &ir.Block{}
	for range ir.MaxNesting + 1 {
		s = &ir.If{Cond: ir.LitBool(true), Then: &ir.Block{Stmts: []ir.Stmt{s}}}
	}
	f.Body.Stmts = []ir.Stmt{s}
	_, err := device.Compile(d, f)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	require.ErrorIs(t, err, ir.ErrLimit)
	require.False(t, errors.Is(err, device.ErrUnsupported))
}

// TestCompileContextThenClose: closing the device right after giving up on a
// compile waits for the driver and destroys the late pipeline.
func TestCompileContextThenClose(t *testing.T) {
	d, err := device.Open(context.Background(), "vulkan", device.WithValidation(), device.WithValidationLayer(true),
		device.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	testenv.Need(t, "a Vulkan device", err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = device.CompileContext(ctx, d, slowKernel(t, 24, 8))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	time.Sleep(100 * time.Millisecond) // past codegen: the driver is building
	t0 := time.Now()
	require.NoError(t, d.Close(), "nothing leaked")
	t.Logf("Close waited %v", time.Since(t0))
	_, err = device.CompileContext(ctx, d, slowKernel(t, 1, 1))
	require.Error(t, err)
	_, err = device.CompileContext(context.Background(), d, slowKernel(t, 1, 1))
	require.ErrorIs(t, err, device.ErrClosed)
}

// TestCompilePastPushBudget: the push-constant budget is the Vulkan
// backend's (kernel ABI v1, 128 bytes), not the kernel language's, and it
// is no limit: what does not fit spills to a per-dispatch block reached by
// address. Seven vec4 uniforms (136 bytes with the header), and seven
// buffers by address (24 + 8 + 7×16 bytes), compile and run.
func TestCompilePastPushBudget(t *testing.T) {
	d := openVulkan(t)
	f := ir.NewKernel("wide", 1, [3]uint32{64, 1, 1})
	out := f.AddParam("out", ir.Buffer(ir.TF32), ir.VarArg)
	var sum ir.Expr = ir.LitFloat(ir.TF32, 0)
	var vals []any
	for i := range 7 {
		v := f.AddParam(string(rune('a'+i)), ir.Vector(ir.TF32, 4), ir.VarArg)
		sum = &ir.Binary{Op: ir.Add, X: sum, Y: &ir.Swizzle{X: &ir.Ref{Var: v}, Comps: []uint8{uint8(i % 4)}, T: ir.TF32}, T: ir.TF32}
		vals = append(vals, [4]float32{float32(i), float32(10 * i), float32(100 * i), float32(1000 * i)})
	}
	f.Body.Stmts = []ir.Stmt{&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: out}, I: ir.LitInt(ir.TU32, 0), T: ir.TF32}, Src: sum}}
	require.NoError(t, f.Validate(), "the kernel language has no push-constant budget")
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	o := upload(t, d, []float32{0})
	run(t, d, k.Dispatch([3]uint32{1}, append([]any{o}, vals...)...))
	require.Equal(t, []float32{0 + 10 + 200 + 3000 + 4 + 50 + 600}, download(t, d, o))

	// Buffers by address: out[i] = Σ_j (j+1)·b_j[i], every one read and the
	// last written.
	g := ir.NewKernel("addresses", 1, [3]uint32{64, 1, 1})
	did := &ir.Var{Name: "dispatch_id", Type: ir.DispatchID.Type(), Kind: ir.VarBuiltin, Builtin: ir.DispatchID}
	i := &ir.Swizzle{X: &ir.Ref{Var: did}, Comps: []uint8{0}, T: ir.TU32}
	var bs []*ir.Var
	var acc ir.Expr = ir.LitInt(ir.TU32, 0)
	for j := range 7 {
		b := g.AddParam(string(rune('a'+j)), ir.BufferAddress(ir.TU32), ir.VarArg)
		bs = append(bs, b)
		acc = &ir.Binary{Op: ir.Add, X: acc, Y: &ir.Binary{Op: ir.Mul, X: &ir.Index{X: &ir.Ref{Var: b}, I: i, T: ir.TU32}, Y: ir.LitInt(ir.TU32, int64(j+1)), T: ir.TU32}, T: ir.TU32}
	}
	g.Body.Stmts = []ir.Stmt{&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: bs[6]}, I: i, T: ir.TU32}, Src: acc}}
	require.NoError(t, g.Validate())
	kg, err := device.Compile(d, g)
	require.NoError(t, err)
	defer kg.Close()
	const n = 100
	var args []any
	var bufs []*device.Buffer[uint32]
	for j := range 7 {
		data := make([]uint32, n)
		for e := range data {
			data[e] = uint32(e*(j+3)) % 97
		}
		b := upload(t, d, data)
		bufs, args = append(bufs, b), append(args, b)
	}
	want := make([]uint32, n)
	for e := range want {
		for j := range 7 {
			want[e] += uint32(j+1) * (uint32(e*(j+3)) % 97)
		}
	}
	run(t, d, kg.Dispatch([3]uint32{n}, args...))
	require.Equal(t, want, download(t, d, bufs[6]))
}
