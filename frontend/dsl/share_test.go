package dsl_test

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// mixKernel folds x into itself rounds times, each round reading x twice:
// as a tree the result has 2^rounds nodes, as values the kernel made it
// has a few per round.
func mixKernel(t testing.TB, rounds int) *ir.Function {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		x := i
		for j := 0; j < rounds; j++ {
			x = x.Add(x.Shr(dsl.U(1))).Xor(dsl.U(uint32(j) * 0x9E3779B9))
		}
		out.Write(i, x)
		k.If(x.Lt(x.Shr(dsl.U(1))), func() { out.Write(i, dsl.U(0)) })
	}, "out")
	require.NoError(t, err)
	return f
}

func mixWant(n, rounds int) []uint32 {
	want := make([]uint32, n)
	for i := range want {
		x := uint32(i)
		for j := 0; j < rounds; j++ {
			x = (x + x>>1) ^ uint32(j)*0x9E3779B9
		}
		if x < x>>1 {
			x = 0
		}
		want[i] = x
	}
	return want
}

// treeSize counts f's expression nodes as trees, giving up past limit.
func treeSize(f *ir.Function, limit int) int {
	n := 0
	var walk func(e ir.Expr)
	walk = func(e ir.Expr) {
		if e == nil || n > limit {
			return
		}
		n++
		switch e := e.(type) {
		case *ir.Unary:
			walk(e.X)
		case *ir.Binary:
			walk(e.X)
			walk(e.Y)
		case *ir.Swizzle:
			walk(e.X)
		case *ir.Index:
			walk(e.X)
			walk(e.I)
		case *ir.Call:
			for _, a := range e.Args {
				walk(a)
			}
		}
	}
	ir.WalkStmts(f.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Assign:
			walk(s.Dst)
			walk(s.Src)
		case *ir.If:
			walk(s.Cond)
		}
	})
	return n
}

// A value whose parts are shared is traced, validated and compiled in time
// linear in the parts: 60 rounds, each reading the last twice, give IR of a
// few nodes per round (not 2^60), and the kernel computes what Go does, on
// the interpreter, the Vulkan device and the cpu backend.
func TestSharedSubexpressionsLinear(t *testing.T) {
	for _, rounds := range []int{20, 40} {
		f := mixKernel(t, rounds)
		if n := treeSize(f, 100*rounds); n > 50*rounds {
			t.Fatalf("%d rounds: the kernel's expressions hold %d nodes as trees, want under %d", rounds, n, 50*rounds)
		}
	}
	const rounds, n = 60, 200
	f := mixKernel(t, rounds)
	want := mixWant(n, rounds)
	out := interp.NewBuffer(ir.TU32, n)
	require.NoError(t, interp.Run(f, [3]uint32{n, 1, 1}, out))
	got := make([]uint32, n)
	for i := range got {
		got[i] = binary.LittleEndian.Uint32(out.Data[4*i:])
	}
	require.Equal(t, want, got)

	for _, backend := range []string{"vulkan", "cpu"} {
		t.Run(backend, func(t *testing.T) {
			d, err := device.Open(context.Background(), backend, device.WithValidationLayer(true))
			testenv.Need(t, backend+" device", err)
			defer d.Close()
			k, err := device.Compile(d, f)
			require.NoError(t, err)
			defer k.Close()
			b, err := device.NewBuffer[uint32](d, n)
			require.NoError(t, err)
			defer b.Close()
			s, err := d.NewStream(device.StreamCompute)
			require.NoError(t, err)
			defer s.Close()
			res := make([]uint32, n)
			require.NoError(t, s.Submit(k.Dispatch([3]uint32{n}, b), b.Download(res)))
			require.NoError(t, s.Synchronize(context.Background()))
			require.Equal(t, want, res)
		})
	}
}

// BenchmarkSharedSubexpressions traces and validates a kernel of 60 rounds
// each reading the last value twice.
func BenchmarkSharedSubexpressions(b *testing.B) {
	for b.Loop() {
		f := mixKernel(b, 60)
		if err := f.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}

// A shared part named for one statement is reused by the later statements
// it reaches (the same block, or one inside it), not named again for each;
// a part named inside a branch is named again after it, where the branch
// may not have run.
func TestSharedPartsNamedOnce(t *testing.T) {
	const rounds, writes, n = 60, 3000, 8
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out, late dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		x := i
		for j := 0; j < rounds; j++ {
			x = x.Add(x.Shr(dsl.U(1))).Xor(dsl.U(uint32(j) * 0x9E3779B9))
		}
		k.If(i.Lt(dsl.U(2)), func() { late.Write(i, x) })
		for j := 0; j < writes; j++ {
			out.Write(i.Mul(dsl.U(writes)).Add(dsl.U(uint32(j))), x.Add(dsl.U(uint32(j))))
		}
		k.Loop(func() {
			late.Write(i.Add(dsl.U(n)), x)
			k.Break()
		})
	}, "out", "late")
	require.NoError(t, err)
	if len(f.Locals) > 4*rounds {
		t.Errorf("%d locals for %d writes of one value of %d rounds, want at most %d", len(f.Locals), writes, rounds, 4*rounds)
	}
	out, late := interp.NewBuffer(ir.TU32, n*writes), interp.NewBuffer(ir.TU32, 2*n)
	require.NoError(t, interp.Run(f, [3]uint32{n, 1, 1}, out, late))
	for i := range n {
		// mixWant zeroes the value where x < x>>1; the kernel does not.
		xi := uint32(i)
		for j := 0; j < rounds; j++ {
			xi = (xi + xi>>1) ^ uint32(j)*0x9E3779B9
		}
		for _, j := range []int{0, 1, writes - 1} {
			if got := binary.LittleEndian.Uint32(out.Data[4*(i*writes+j):]); got != xi+uint32(j) {
				t.Fatalf("thread %d write %d: %#x, want %#x", i, j, got, xi+uint32(j))
			}
		}
		want := uint32(0)
		if i < 2 {
			want = xi
		}
		if got := binary.LittleEndian.Uint32(late.Data[4*i:]); got != want {
			t.Errorf("thread %d, inside the If: %#x, want %#x", i, got, want)
		}
		if got := binary.LittleEndian.Uint32(late.Data[4*(i+n):]); got != xi {
			t.Errorf("thread %d, inside the loop: %#x, want %#x", i, got, xi)
		}
	}
}
