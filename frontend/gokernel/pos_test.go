package gokernel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// TestStmtPositions: each lowered statement carries the file:line:col of
// the Go statement it came from, and those inside a branch their own.
func TestStmtPositions(t *testing.T) {
	src := "package k\n\nimport \"github.com/lucent-gpu/lucent/kernel\"\n\n//lucent:kernel block=64\nfunc K(a, out []uint32) {\n" +
		"\ti := kernel.DispatchID().X\n" + // line 7
		"\tif i < uint32(len(out)) {\n" + // line 8
		"\t\tout[i] = a[i] / 3\n" + // line 9
		"\t}\n}\n"
	ks, errs := gokernel.Check("k.go", []byte(src))
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	var got []string
	ir.WalkStmts(ks[0].Func.Body, func(s ir.Stmt) {
		switch s.(type) {
		case *ir.If:
			got = append(got, "if@"+ir.StmtPos(s))
		case *ir.Assign:
			got = append(got, "assign@"+ir.StmtPos(s))
		}
	})
	require.Contains(t, got, "if@k.go:8:2")
	require.Contains(t, got, "assign@k.go:9:3")
	require.Contains(t, got, "assign@k.go:7:2")
}
