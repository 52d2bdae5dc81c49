package codegen_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// TestProgramsValidate emits every program of the corpus and runs spirv-val
// on it for Vulkan 1.2 and 1.3, with and without native float atomics.
func TestProgramsValidate(t *testing.T) {
	all := programs.All()
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			f, err := all[name]()
			require.NoError(t, err)
			require.NoError(t, f.Validate())
			emitValid(t, f, codegen.Options{})
			emitValid(t, f, codegen.Options{FloatAtomicAdd: true, Names: true})
		})
	}
}

// TestBuiltinKernelsValidate emits the per-built-in kernels the device
// tests run and validates them.
func TestBuiltinKernelsValidate(t *testing.T) {
	for _, o := range programs.FloatOps {
		t.Run("f32/"+o.Op.String(), func(t *testing.T) {
			f, err := programs.FloatBuiltin(o)
			require.NoError(t, err)
			emitValid(t, f, codegen.Options{})
			require.NotEmpty(t, programs.FloatCases(o))
		})
	}
	for _, o := range programs.IntOps {
		for _, signed := range []bool{true, false} {
			if o.Op == ir.OpSign && !signed {
				continue
			}
			t.Run(fmt.Sprintf("int%v/%s", signed, o.Op), func(t *testing.T) {
				f, err := programs.IntBuiltin(o.Op, o.Arity, signed)
				require.NoError(t, err)
				emitValid(t, f, codegen.Options{})
			})
		}
	}
	for _, op := range programs.IntBinaryOps {
		for _, signed := range []bool{true, false} {
			t.Run(fmt.Sprintf("binary%v/%s", signed, op), func(t *testing.T) {
				f, err := programs.IntBinary(op, signed)
				require.NoError(t, err)
				emitValid(t, f, codegen.Options{})
			})
		}
	}
}

func TestFloatAtomics(t *testing.T) {
	f, err := programs.FloatAtomicAdd()
	require.NoError(t, err)
	emitValid(t, f, codegen.Options{FloatAtomicAdd: true})
	emitValid(t, f, codegen.Options{}) // shared f32 stored as u32 bits, CAS loops

	f, err = programs.FloatAtomics()
	require.NoError(t, err)
	emitValid(t, f, codegen.Options{FloatAtomicAdd: true})
	emitValid(t, f, codegen.Options{})
}

func TestCastKernelsValidate(t *testing.T) {
	for name, build := range map[string]func() (*ir.Function, error){
		"f32<-i8": programs.Cast[float32, int8], "u8<-f32": programs.Cast[uint8, float32], "i16<-u64": programs.Cast[int16, uint64],
		"f64<-i64": programs.Cast[float64, int64], "u32<-i16": programs.Cast[uint32, int16], "f32<-f64": programs.Cast[float32, float64],
		"bits": programs.BitcastKernel[uint32, float32], "bool-uniform": programs.BoolUniform,
		"tex3d": func() (*ir.Function, error) {
			return dsl.Kernel3D(4, 4, 4, func(k *dsl.K, src, dst dsl.Tex3D) {
				id := k.DispatchID()
				uvw := dsl.V3(dsl.Convert[float32](id.X()), dsl.Convert[float32](id.Y()), dsl.Convert[float32](id.Z())).Scale(dsl.F(0.1))
				dst.Write(id, src.Sample(uvw).Add(src.Read(id)))
			})
		},
	} {
		t.Run(name, func(t *testing.T) {
			f, err := build()
			require.NoError(t, err)
			emitValid(t, f, codegen.Options{})
		})
	}
}

func TestMatrixUniformValidates(t *testing.T) {
	f, err := programs.Transform()
	require.NoError(t, err)
	emitValid(t, f, codegen.Options{})
	args, lay := codegen.Layout(f, codegen.Options{})
	require.Equal(t, 24, args[0].Offset)
	require.Equal(t, 24+64, lay.Size)
}

func TestRandomKernelsValidate(t *testing.T) {
	for seed := range uint64(20) {
		f, _, err := programs.RandomInt(seed)
		require.NoError(t, err, "seed %d", seed)
		emitValid(t, f, codegen.Options{})
		g, err := programs.RandomFloat(seed)
		require.NoError(t, err, "seed %d", seed)
		emitValid(t, g, codegen.Options{})
	}
}
