package ir_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

func TestPrintKernel(t *testing.T) {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, a dsl.F32, x, y dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		k.If(i.Lt(x.Len()), func() {
			y.Write(i, dsl.Sqrt(a.Mul(x.Read(i))).Add(dsl.F(1.5)))
		})
	}, "a", "x", "y")
	require.NoError(t, err)
	text := f.String()
	for _, want := range []string{
		"kernel ",
		"(a f32, x ",
		"dim 1 block 64×1×1 {",
		"if (",
		"sqrt<f32>(",
		"1.5:f32",
		"dispatch_id",
	} {
		require.Contains(t, text, want, "in\n%s", text)
	}
	require.Equal(t, strings.Count(text, "{"), strings.Count(text, "}"), "balanced blocks in\n%s", text)
	var b strings.Builder
	require.NoError(t, ir.Fprint(&b, f))
	require.Equal(t, text, b.String())
}

// TestPrintSwitch: each case of a switch, and its default, is a block
// closed where it ends.
func TestPrintSwitch(t *testing.T) {
	f := ir.NewKernel("k", 1, [3]uint32{1, 1, 1})
	v := f.AddLocal("v", ir.TI32)
	f.Body.Stmts = []ir.Stmt{
		&ir.Loop{Body: &ir.Block{Stmts: []ir.Stmt{
			&ir.Switch{Tag: &ir.Ref{Var: v}, Cases: []ir.Case{
				{Values: []int64{1}, Body: &ir.Block{Stmts: []ir.Stmt{&ir.Continue{}}}},
				{Values: []int64{2, 3}, Body: &ir.Block{Stmts: []ir.Stmt{&ir.Break{}}}},
			}, Default: &ir.Block{}},
			&ir.Break{},
		}}},
	}
	text := f.String()
	require.Contains(t, text, "\t\t\tcontinue\n\t\t}\n\t\tcase 2, 3: {\n\t\t\tbreak\n\t\t}\n\t\tdefault: {\n\t\t}\n\t\t}\n", "in\n%s", text)
	require.Equal(t, strings.Count(text, "{"), strings.Count(text, "}"), "balanced blocks in\n%s", text)
}
