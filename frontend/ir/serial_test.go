package ir_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// corpus is every whole kernel of internal/programs plus a few random ones.
func corpus(t *testing.T) map[string]*ir.Function {
	t.Helper()
	ks := map[string]*ir.Function{}
	for name, build := range programs.All() {
		f, err := build()
		require.NoError(t, err, name)
		ks[name] = f
	}
	for _, build := range []func() (*ir.Function, error){programs.FloatAtomics, programs.FloatAtomicsShared,
		programs.Subgroups, programs.Control, programs.BindlessGather, programs.Transform, programs.VectorOps,
		programs.BoolUniform, programs.DispatchInfo, programs.SaxpyAddress, programs.RayQuery} {
		f, err := build()
		require.NoError(t, err)
		ks[f.Name] = f
	}
	for seed := range uint64(4) {
		f, _, err := programs.RandomInt(seed)
		require.NoError(t, err)
		ks[fmt.Sprint("randint", seed)] = f
		g, err := programs.RandomFloat(seed)
		require.NoError(t, err)
		ks[fmt.Sprint("randfloat", seed)] = g
	}
	return ks
}

// names lists every function and variable name of f and its callables.
func names(f *ir.Function) string {
	var b bytes.Buffer
	for _, g := range append([]*ir.Function{f}, f.Callees()...) {
		fmt.Fprintf(&b, "%s@%s(", g.Name, g.Pos)
		for _, list := range [][]*ir.Var{g.Params, g.Locals, g.Shared} {
			for _, v := range list {
				fmt.Fprintf(&b, "%s@%s,", v.Name, v.Pos)
			}
			b.WriteByte(';')
		}
		b.WriteByte(')')
	}
	return b.String()
}

// TestKernelRoundTrip serialises every corpus kernel and reads it back: the
// same kernel (Hash), the same names, and the same bytes when written again.
func TestKernelRoundTrip(t *testing.T) {
	for name, f := range corpus(t) {
		data, err := ir.MarshalKernel(f)
		require.NoError(t, err, name)
		g, err := ir.UnmarshalKernel(data)
		require.NoError(t, err, name)
		require.Equal(t, f.Hash(), g.Hash(), name)
		require.Equal(t, names(f), names(g), name)
		again, err := ir.MarshalKernel(g)
		require.NoError(t, err, name)
		require.Equal(t, data, again, name)
	}
}

// TestUnmarshalKernelDamaged: truncated or altered data is an error wrapping
// ErrBadIR, and so is a payload altered under a recomputed checksum (or it
// reads as some valid kernel); nothing panics.
func TestUnmarshalKernelDamaged(t *testing.T) {
	f, err := programs.Callables()
	require.NoError(t, err)
	data, err := ir.MarshalKernel(f)
	require.NoError(t, err)
	for n := range len(data) {
		_, err := ir.UnmarshalKernel(data[:n])
		require.ErrorIs(t, err, ir.ErrBadIR, "truncated to %d bytes", n)
	}
	body := data[:len(data)-sha256.Size]
	for i := range body {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(data)
			bad[i] ^= x
			_, err := ir.UnmarshalKernel(bad)
			require.ErrorIs(t, err, ir.ErrBadIR, "byte %d ^ %#x", i, x)

			// The same change under a valid checksum reaches the decoder.
			resealed := bytes.Clone(body)
			resealed[i] ^= x
			sum := sha256.Sum256(resealed)
			g, err := ir.UnmarshalKernel(append(resealed, sum[:]...))
			if err != nil {
				require.ErrorIs(t, err, ir.ErrBadIR, "byte %d ^ %#x", i, x)
			} else {
				require.NoError(t, g.Validate())
			}
		}
	}
}

func TestUnmarshalKernelVersion(t *testing.T) {
	f, err := programs.Saxpy()
	require.NoError(t, err)
	data, err := ir.MarshalKernel(f)
	require.NoError(t, err)
	body := bytes.Clone(data[:len(data)-sha256.Size])
	body[4] = ir.IRVersion + 1 // the version follows the magic
	sum := sha256.Sum256(body)
	_, err = ir.UnmarshalKernel(append(body, sum[:]...))
	require.ErrorIs(t, err, ir.ErrBadIR)
	require.ErrorContains(t, err, fmt.Sprintf("IR version %d, made by a newer lucent: this build reads versions 1 to %d; rebuild the kernel with this lucent or upgrade it", ir.IRVersion+1, ir.IRVersion))

	// A version before the first is damage, not age.
	body[4] = 0
	sum = sha256.Sum256(body)
	_, err = ir.UnmarshalKernel(append(body, sum[:]...))
	require.ErrorIs(t, err, ir.ErrBadIR)
	require.ErrorContains(t, err, "IR version 0, which no lucent writes")
}

// TestMarshalKernelRefuses: a callable, an invalid kernel and a kernel that
// captures a host value are errors naming the fault.
func TestMarshalKernelRefuses(t *testing.T) {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		s := dsl.Capture[dsl.F32](k, float32(2))
		out.Write(k.DispatchID().X(), s)
	}, "out")
	require.NoError(t, err)
	_, err = ir.MarshalKernel(f)
	require.True(t, errors.Is(err, ir.ErrInvalid), "%v", err)
	require.ErrorContains(t, err, "captures a host value")

	_, err = ir.MarshalKernel(ir.NewCallable("c", ir.TVoid))
	require.ErrorContains(t, err, "is a callable")
	_, err = ir.MarshalKernel(nil)
	require.True(t, errors.Is(err, ir.ErrInvalid))
}

// FuzzUnmarshalKernel: whatever the bytes (sealed with a valid checksum, so
// the decoder sees them), UnmarshalKernel returns a valid kernel or an error
// wrapping ErrBadIR, and never panics.
func FuzzUnmarshalKernel(f *testing.F) {
	random := func(seed uint64) func() (*ir.Function, error) {
		return func() (*ir.Function, error) { k, _, err := programs.RandomInt(seed); return k, err }
	}
	ray := func(k func() *ir.Function) func() (*ir.Function, error) {
		return func() (*ir.Function, error) { return k(), nil }
	}
	// A helper that takes a buffer and prints, specialised.
	printing := func() (*ir.Function, error) {
		show := dsl.Callable("show", func(k *dsl.K, b dsl.Buf[dsl.F32], i dsl.U32) {
			k.Printf("%d %g", i, b.Read(i))
		})
		return dsl.Kernel1D(64, func(k *dsl.K, x dsl.Buf[dsl.F32]) { show(k, x, k.DispatchID().X()) }, "x")
	}
	for _, build := range []func() (*ir.Function, error){programs.Saxpy, programs.Callables, programs.Control, programs.Blur,
		// the newer forms: specialised helpers over random trees, ray
		// queries and candidate loops, float atomics, bindless arrays, prints
		random(0), random(1), random(2), programs.RayQuery, ray(programs.RayTrace), programs.FloatAtomics,
		programs.BindlessGather, printing} {
		k, err := build()
		require.NoError(f, err)
		data, err := ir.MarshalKernel(k)
		require.NoError(f, err)
		f.Add(data[:len(data)-sha256.Size])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sum := sha256.Sum256(body)
		g, err := ir.UnmarshalKernel(append(bytes.Clone(body), sum[:]...))
		if err != nil {
			require.ErrorIs(t, err, ir.ErrBadIR)
			return
		}
		require.NoError(t, g.Validate())
	})
}

// TestUnmarshalKernelExponentialTree: sharing each level twice, 22 levels
// are a few bytes and a tree of 2^23 nodes, past the bound on what is read
// back (Validate would walk the whole tree; at 60 levels, without end): the
// read is refused.
func TestUnmarshalKernelExponentialTree(t *testing.T) {
	f := ir.NewKernel("k", 1, [3]uint32{64, 1, 1})
	out := f.AddParam("out", ir.Buffer(ir.TU32), ir.VarArg)
	var x ir.Expr = ir.LitInt(ir.TU32, 1)
	for range 22 {
		x = &ir.Binary{Op: ir.Add, X: x, Y: x, T: ir.TU32}
	}
	f.Body.Stmts = []ir.Stmt{&ir.Assign{Dst: &ir.Index{X: &ir.Ref{Var: out}, I: ir.LitInt(ir.TU32, 0), T: ir.TU32}, Src: x}}
	data, err := ir.MarshalKernel(f)
	require.NoError(t, err)
	require.Less(t, len(data), 200, "sharing keeps the bytes few")
	_, err = ir.UnmarshalKernel(data)
	require.ErrorIs(t, err, ir.ErrBadIR)
	require.ErrorContains(t, err, "as trees")
}
