package gokernel_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/interp"
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
		ks, errs := gokernel.Check("k.go", []byte(nestedIfs(frontend.MaxNesting, false)))
		require.Empty(t, errs)
		require.Len(t, ks, 1)
	})
	t.Run("ifs past the limit", func(t *testing.T) {
		_, errs := gokernel.Check("k.go", []byte(nestedIfs(frontend.MaxNesting+1, false)))
		requireOneError(t, errs, 8+frontend.MaxNesting, 1, "an if nested 65 deep, more than 64 (frontend.MaxNesting")
	})
	t.Run("else if chain past the limit", func(t *testing.T) {
		_, errs := gokernel.Check("k.go", []byte(nestedIfs(frontend.MaxNesting+1, true)))
		requireOneError(t, errs, 8+frontend.MaxNesting, 8, "an if nested 65 deep")
	})
	t.Run("10000 ifs", func(t *testing.T) {
		_, errs := gokernel.Check("k.go", []byte(nestedIfs(10000, false)))
		requireOneError(t, errs, 8+frontend.MaxNesting, 1, "more than 64")
	})
	t.Run("expression past the limit", func(t *testing.T) {
		src := boundsHead + "out[i] = i" + strings.Repeat("+i", frontend.MaxExprDepth) + "\n}\n"
		_, errs := gokernel.Check("k.go", []byte(src))
		requireOneError(t, errs, 8, 10, "expression nested more than 1024 deep (frontend.MaxExprDepth)")
	})
	t.Run("50000 terms", func(t *testing.T) {
		// As deep as go/parser allows; the type checker never sees it.
		src := boundsHead + "out[i] = i" + strings.Repeat("+i", 50000) + "\n}\n"
		_, errs := gokernel.Check("k.go", []byte(src))
		requireOneError(t, errs, 8, 10, "more than 1024 deep")
	})
	t.Run("source too large", func(t *testing.T) {
		src := boundsHead + "out[i] = 1\n}\n//" + strings.Repeat("x", frontend.MaxSourceSize) + "\n"
		_, errs := gokernel.Check("k.go", []byte(src))
		requireOneError(t, errs, 1, 1, "more than the 4 MiB of source the kernel compiler reads (frontend.MaxSourceSize)")
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
	for range frontend.MaxStatements {
		b.WriteString("out[i]++\n")
	}
	b.WriteString("}\n")
	_, errs := gokernel.Check("k.go", []byte(b.String()))
	requireOneError(t, errs, 6, 6, "kernel K: frontend: kernel beyond a compiler limit: K: more than 65536 statements (MaxStatements)")
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

	out := interp.NewBuffer(frontend.TU32, 64)
	require.NoError(t, interp.Run(ks[0].Func, [3]uint32{64, 1, 1}, out))
	for i := range 64 {
		require.Equal(t, uint32(decls), uint32(out.Data[4*i])|uint32(out.Data[4*i+1])<<8, "out[%d]", i)
	}
	if _, err := spvtools.Path(); err != nil {
		testenv.Need(t, "SPIRV-Tools", err)
	}
	words, err := frontend.Emit(ks[0].Func, frontend.Options{Env: spirv.EnvVulkan1_2})
	require.NoError(t, err)
	require.NoError(t, spvtools.ValidateWith(words, spirv.EnvVulkan1_2, spvtools.ValidateOptions{ScalarBlockLayout: true}))
}

// TestSharedPastDeviceNamesTheLine: a Go kernel whose shared memory the
// device cannot hold is refused by device.Compile at its declaration.
func TestSharedPastDeviceNamesTheLine(t *testing.T) {
	d := openDevice(t)
	n := d.Capabilities().MaxSharedMemory/4 + 1
	if n*4 > frontend.MaxTypeSize {
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
