package ir_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// posKernel is a DSL kernel whose If and Write sit on known lines of this
// file (ifLine, writeLine).
func posKernel(t *testing.T) (f *ir.Function, ifLine, writeLine int) {
	t.Helper()
	f, err := dsl.Kernel1D(64, func(k *dsl.K, x, y dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		_, _, ifLine, _ = runtime.Caller(0)
		k.If(i.Lt(x.Len()), func() {
			_, _, writeLine, _ = runtime.Caller(0)
			y.Write(i, x.Read(i))
		})
	}, "x", "y")
	require.NoError(t, err)
	return f, ifLine + 1, writeLine + 1
}

// TestStmtPositionsDSL: the DSL gives each statement the line of the
// builder's call that made it.
func TestStmtPositionsDSL(t *testing.T) {
	f, ifLine, writeLine := posKernel(t)
	var ifPos, writePos string
	ir.WalkStmts(f.Body, func(s ir.Stmt) {
		switch s.(type) {
		case *ir.If:
			ifPos = ir.StmtPos(s)
		case *ir.Assign:
			if writePos == "" && ifPos != "" {
				writePos = ir.StmtPos(s)
			}
		}
	})
	require.Equal(t, fmt.Sprintf("pos_test.go:%d", ifLine), tail(ifPos))
	require.Equal(t, fmt.Sprintf("pos_test.go:%d", writeLine), tail(writePos))
	sites := f.Sites()
	pos := f.SitePositions()
	require.Len(t, pos, len(sites))
	require.Contains(t, pos, ifPos)
}

// tail is the base name and line of a position.
func tail(pos string) string { return pos[strings.LastIndex(pos, "/")+1:] }

// TestStmtPositionsNotHashed: positions are kept by the serial form, shown
// by the printer only when asked, and take no part in Hash.
func TestStmtPositionsNotHashed(t *testing.T) {
	f, ifLine, _ := posKernel(t)
	h := f.Hash()
	want := fmt.Sprintf("pos_test.go:%d", ifLine)

	require.NotContains(t, f.String(), want)
	var b strings.Builder
	require.NoError(t, ir.FprintWith(&b, f, ir.PrintOptions{Positions: true}))
	require.Contains(t, b.String(), want)

	blob, err := ir.MarshalKernel(f)
	require.NoError(t, err)
	g, err := ir.UnmarshalKernel(blob)
	require.NoError(t, err)
	require.Equal(t, f.SitePositions(), g.SitePositions())
	require.Equal(t, h, g.Hash())

	// Moving every statement elsewhere changes no hash.
	ir.WalkStmts(f.Body, func(s ir.Stmt) {
		if ir.StmtPos(s) != "" {
			switch s := s.(type) {
			case *ir.If:
				s.Pos = "elsewhere.go:1:1"
			case *ir.Assign:
				s.Pos = "elsewhere.go:2:1"
			}
		}
	})
	require.NotEqual(t, g.SitePositions(), f.SitePositions())
	require.Equal(t, h, f.Hash())
}

// TestAssertStmt: an Assert is validated (a bool condition), hashed by its
// condition and message, kept by the serial form and printed.
func TestAssertStmt(t *testing.T) {
	build := func(msg string, cond func(i dsl.U32) dsl.Bool) *ir.Function {
		f, err := dsl.Kernel1D(64, func(k *dsl.K, y dsl.Buf[dsl.U32]) {
			i := k.DispatchID().X()
			k.Assert(cond(i), msg)
			y.Write(i, i)
		}, "y")
		require.NoError(t, err)
		return f
	}
	lt := func(i dsl.U32) dsl.Bool { return i.Lt(dsl.U(9)) }
	f := build("small", lt)
	require.Len(t, f.Asserts(), 1)
	require.Contains(t, f.String(), `assert (`)
	require.Contains(t, f.String(), `"small"`)
	require.NotEqual(t, f.Hash(), build("other", lt).Hash())
	require.NotEqual(t, f.Hash(), build("small", func(i dsl.U32) dsl.Bool { return i.Gt(dsl.U(9)) }).Hash())
	require.Equal(t, f.Hash(), build("small", lt).Hash())

	blob, err := ir.MarshalKernel(f)
	require.NoError(t, err)
	g, err := ir.UnmarshalKernel(blob)
	require.NoError(t, err)
	require.Equal(t, f.Hash(), g.Hash())
	require.Equal(t, "small", g.Asserts()[0].Msg)
	require.Equal(t, ir.StmtPos(f.Asserts()[0]), ir.StmtPos(g.Asserts()[0]))

	g.Asserts()[0].Cond = &ir.Literal{T: ir.TU32}
	require.ErrorContains(t, g.Validate(), "not bool")
}
