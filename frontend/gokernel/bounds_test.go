package gokernel_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/interp"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

const maxLiteralElems = 1 << 16 // as in bounds.go

const boundsHead = "package k\n\nimport \"github.com/lucent-gpu/lucent/kernel\"\n\n//lucent:kernel block=64\nfunc K(out []uint32) {\n\ti := kernel.DispatchID().X\n"

// nestedIfs is a kernel with n ifs inside one another (or, with chain, one
// if with n-1 else ifs), each on its own line from line 8.
func nestedIfs(n int, chain bool) string {
	var b strings.Builder
	b.WriteString(boundsHead)
	for d := range n {
		if chain && d > 0 {
			fmt.Fprintf(&b, "} else if i == %d {\n", d)
		} else {
			fmt.Fprintf(&b, "if i != %d {\n", d)
		}
	}
	b.WriteString("out[i] = 1\n")
	if chain {
		b.WriteString("}\n")
	} else {
		b.WriteString(strings.Repeat("}\n", n))
	}
	b.WriteString("}\n")
	return b.String()
}

// requireOneError checks that errs is a single positioned *Error at line:col
// saying want.
func requireOneError(t *testing.T, errs []error, line, col int, want string) {
	t.Helper()
	require.Len(t, errs, 1, "%v", errs)
	var ge *gokernel.Error
	require.True(t, errors.As(errs[0], &ge))
	require.ErrorIs(t, errs[0], gokernel.ErrRejected)
	require.Equal(t, fmt.Sprintf("k.go:%d:%d", line, col), ge.Pos.String(), "%v", errs[0])
	require.ErrorContains(t, errs[0], want)
}

func TestCheckBoundsNesting(t *testing.T) {
	t.Run("ifs at the limit", func(t *testing.T) {
		ks, errs := gokernel.Check("k.go", []byte(nestedIfs(ir.MaxNesting, false)))
		require.Empty(t, errs)
		require.Len(t, ks, 1)
	})
	t.Run("ifs past the limit", func(t *testing.T) {
		_, errs := gokernel.Check("k.go", []byte(nestedIfs(ir.MaxNesting+1, false)))
		requireOneError(t, errs, 8+ir.MaxNesting, 1, "an if nested 65 deep, more than 64 (ir.MaxNesting")
	})
	t.Run("else if chain past the limit", func(t *testing.T) {
		_, errs := gokernel.Check("k.go", []byte(nestedIfs(ir.MaxNesting+1, true)))
		requireOneError(t, errs, 8+ir.MaxNesting, 8, "an if nested 65 deep")
	})
	t.Run("10000 ifs", func(t *testing.T) {
		_, errs := gokernel.Check("k.go", []byte(nestedIfs(10000, false)))
		requireOneError(t, errs, 8+ir.MaxNesting, 1, "more than 64")
	})
	t.Run("expression past the limit", func(t *testing.T) {
		src := boundsHead + "out[i] = i" + strings.Repeat("+i", ir.MaxExprDepth) + "\n}\n"
		_, errs := gokernel.Check("k.go", []byte(src))
		requireOneError(t, errs, 8, 10, "expression nested more than 1024 deep (ir.MaxExprDepth)")
	})
	t.Run("50000 terms", func(t *testing.T) {
		// As deep as go/parser allows; the type checker never sees it.
		src := boundsHead + "out[i] = i" + strings.Repeat("+i", 50000) + "\n}\n"
		_, errs := gokernel.Check("k.go", []byte(src))
		requireOneError(t, errs, 8, 10, "more than 1024 deep")
	})
	t.Run("source too large", func(t *testing.T) {
		src := boundsHead + "out[i] = 1\n}\n//" + strings.Repeat("x", ir.MaxSourceSize) + "\n"
		_, errs := gokernel.Check("k.go", []byte(src))
		requireOneError(t, errs, 1, 1, "more than the 4 MiB of source the kernel compiler reads (ir.MaxSourceSize)")
	})
}

func TestCheckBoundsLiterals(t *testing.T) {
	var b strings.Builder
	b.WriteString(boundsHead)
	for d := range maxLiteralElems/1024 + 1 {
		fmt.Fprintf(&b, "a%d := [1024]uint8{%d: 1}\nout[i] += uint32(a%d[i%%1024])\n", d, d, d) // line 8+2d
	}
	b.WriteString("}\n")
	_, errs := gokernel.Check("k.go", []byte(b.String()))
	requireOneError(t, errs, 8+2*(maxLiteralElems/1024), 8, "the array literals of this function build more than 65536 elements")
}

func TestCheckBoundsStatements(t *testing.T) {
	var b strings.Builder
	b.WriteString(boundsHead)
	for range ir.MaxStatements {
		b.WriteString("out[i]++\n")
	}
	b.WriteString("}\n")
	_, errs := gokernel.Check("k.go", []byte(b.String()))
	// The limit's error names the first statement past it, as any error of
	// ir.Validate names the statement it is in.
	requireOneError(t, errs, 6, 6, "kernel K: frontend: kernel beyond a compiler limit: k.go:65543:1: K: more than 65536 statements (MaxStatements)")
}

// TestZeroArraysAreSmall: zero values of arrays lower to one element
// repeated, so declaring large arrays costs the compiler no more than small
// ones, and the repeated element runs right on the device and the CPU.
func TestZeroArraysAreSmall(t *testing.T) {
	var b strings.Builder
	b.WriteString(boundsHead)
	const decls = 800
	for d := range decls {
		fmt.Fprintf(&b, "for j := uint32(0); j < 1; j++ {\nvar a%d [1024]uint32\nb%d := [1024]uint32{}\na%d[i%%1024] += b%d[(i+1)%%1024] + 1\nout[i] += a%d[i%%1024]\n}\n", d, d, d, d, d)
	}
	b.WriteString("}\n")
	src := []byte(b.String())
	gokernel.Check("k.go", src) // warm: the kernel and math packages load once
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	ks, errs := gokernel.Check("k.go", src)
	runtime.ReadMemStats(&m1)
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	// Spelled out, the 1600 zero values would be 1.6M expression nodes
	// (over 50 MB); repeated, the whole check allocates a few MB.
	alloc := m1.TotalAlloc - m0.TotalAlloc
	t.Logf("Check allocated %d KiB", alloc>>10)
	require.Less(t, alloc, uint64(32<<20))

	out := interp.NewBuffer(ir.TU32, 2)
	require.NoError(t, interp.Run(ks[0].Func, [3]uint32{2, 1, 1}, out))
	for i := range 2 {
		require.Equal(t, uint32(decls), uint32(out.Data[4*i])|uint32(out.Data[4*i+1])<<8, "out[%d]", i)
	}
	if _, err := spvtools.Path(); err != nil {
		testenv.Need(t, "SPIRV-Tools", err)
	}
	words, err := codegen.Emit(ks[0].Func, codegen.Options{Env: spirv.EnvVulkan1_2})
	require.NoError(t, err)
	require.NoError(t, spvtools.ValidateWith(words, spirv.EnvVulkan1_2, spvtools.ValidateOptions{ScalarBlockLayout: true}))
}

// TestLongListsCheckInLinearSpace: a statement list's gotos are found with
// one walk of each statement, and only in lists that hold a label, so four
// times the statements (with a goto over all of them, or none) cost the
// check about four times the memory, not sixteen.
func TestLongListsCheckInLinearSpace(t *testing.T) {
	src := func(n int, jump bool) []byte {
		var b strings.Builder
		b.WriteString(boundsHead)
		if jump {
			b.WriteString("if i > 1 {\ngoto end\n}\n")
		}
		for d := range n {
			fmt.Fprintf(&b, "if i != %d {\nout[i] += %d\n}\n", d, d%7)
		}
		if jump {
			b.WriteString("end:\n")
		}
		b.WriteString("out[i]++\n}\n")
		return []byte(b.String())
	}
	alloc := func(n int, jump bool) uint64 {
		b := src(n, jump)
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		ks, errs := gokernel.Check("k.go", b)
		runtime.ReadMemStats(&m1)
		require.Empty(t, errs)
		require.Len(t, ks, 1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	gokernel.Check("k.go", src(1, true)) // warm: the kernel package loads once
	for _, jump := range []bool{false, true} {
		small, large := alloc(1000, jump), alloc(4000, jump)
		t.Logf("goto %v: 1000 statements %d KiB, 4000 statements %d KiB", jump, small>>10, large>>10)
		require.Less(t, large, 6*small, "goto %v", jump)
	}
	ks, errs := gokernel.Check("k.go", src(3, true))
	require.Empty(t, errs)
	out := interp.NewBuffer(ir.TU32, 3)
	require.NoError(t, interp.Run(ks[0].Func, [3]uint32{3, 1, 1}, out))
	// Threads 0 and 1 add 1 and 2 (the cases they are not) and 1 after
	// the label; thread 2 jumps over the list to the label.
	for i, want := range []uint32{1 + 2 + 1, 0 + 2 + 1, 1} {
		require.Equal(t, want, binary.LittleEndian.Uint32(out.Data[4*i:]), "out[%d]", i)
	}
}

// TestSharedPastDeviceNamesTheLine: a Go kernel whose shared memory the
// device cannot hold is refused by device.Compile at its declaration.
func TestSharedPastDeviceNamesTheLine(t *testing.T) {
	d := openDevice(t)
	n := d.Capabilities().MaxSharedMemory/4 + 1
	if n*4 > ir.MaxTypeSize {
		t.Skip("the device has more shared memory than a type may take")
	}
	src := boundsHead + fmt.Sprintf("\tsmall := kernel.Shared[[64]uint32]()\n\ttile := kernel.Shared[[%d]uint32]()\n", n) +
		"\ttile[i] = i\n\tsmall[i] = i\n\tkernel.Barrier()\n\tout[i] = tile[i] + small[i]\n}\n"
	ks, errs := gokernel.Check("k.go", []byte(src))
	require.Empty(t, errs)
	_, err := device.Compile(d, ks[0].Func)
	require.ErrorIs(t, err, device.ErrUnsupported)
	require.ErrorContains(t, err, "device: Compile K: unsupported: k.go:9:2: kernel K: its shared variables take")
	require.ErrorContains(t, err, "(maxComputeSharedMemorySize); the largest, tile of type")
}

// TestLongZeroArraysLoop: zero values of arrays longer than 64 elements are
// stored by a loop, never as one whole-array store (which lavapipe compiles in
// time square in the length), and read back as zeros on the CPU and the device.
func TestLongZeroArraysLoop(t *testing.T) {
	src := `package k

import "github.com/lucent-gpu/lucent/kernel"

type rec struct {
	N uint32
	A [100]float32
}

func ramp() (r [128]float32) {
	r[3] = 3
	return r
}

//lucent:kernel block=64
func K(out []float32) {
	i := kernel.DispatchID().X
	var a [1024]float32
	b := [256]uint32{}
	var s rec
	var small [4]float32
	a[i%1024] = float32(i)
	out[i] = a[i%1024] + a[(i+1)%1024] + float32(b[i%256]) + s.A[i%100] + float32(s.N) + ramp()[3] + small[i%4]
}
`
	ks, errs := gokernel.Check("k.go", []byte(src))
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	f := ks[0].Func
	loops := 0
	var stmts func(b *ir.Block)
	stmts = func(b *ir.Block) {
		if b == nil {
			return
		}
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ir.Assign:
				if s.Src.Type().Kind() == ir.KindArray {
					require.LessOrEqual(t, s.Src.Type().Len(), 64, "a whole-array store of %s", s.Src.Type())
				}
			case *ir.For:
				loops++
				stmts(s.Body)
			case *ir.If:
				stmts(s.Then)
				stmts(s.Else)
			case *ir.Block:
				stmts(s)
			}
		}
	}
	for _, g := range append([]*ir.Function{f}, f.Callees()...) {
		stmts(g.Body)
	}
	require.Equal(t, 4, loops, "a, b, s.A and r are zeroed by loops")

	want := make([]float32, 256)
	for i := range want {
		want[i] = float32(i) + 3
	}
	out := interp.NewBuffer(ir.TF32, len(want))
	require.NoError(t, interp.Run(f, [3]uint32{uint32(len(want)), 1, 1}, out))
	got := make([]float32, len(want))
	for i := range got {
		got[i] = math.Float32frombits(binary.LittleEndian.Uint32(out.Data[4*i:]))
	}
	require.Equal(t, want, got, "interp")

	d := openDevice(t)
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	buf, err := device.NewBuffer[float32](d, len(want))
	require.NoError(t, err)
	defer buf.Close()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Submit(k.Dispatch([3]uint32{uint32(len(want))}, buf), buf.Download(got)))
	require.NoError(t, s.Synchronize(context.Background()))
	require.Equal(t, want, got, "device")
}
