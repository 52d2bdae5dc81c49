package dsl_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// A candidate op that escapes its loop's body (a Query kept past Accel.Query)
// is refused where it is written, naming the line; inside the body it is
// accepted. So is a query inside another's body.
func TestQueryOpsOutsideTheLoop(t *testing.T) {
	build := func(escape bool) error {
		_, err := dsl.Kernel1D(64, func(k *dsl.K, scene dsl.Accel, out dsl.Buf[dsl.QueryResult]) {
			var kept dsl.Query
			o := dsl.V3(dsl.F(0), dsl.F(0), dsl.F(0))
			res := scene.Query(o, dsl.F(0), dsl.V3(dsl.F(0), dsl.F(0), dsl.F(1)), dsl.F(10), dsl.U(0xff), func(q dsl.Query) {
				kept = q
				q.CommitProcedural(dsl.F(1))
			})
			if escape {
				kept.Terminate()
			}
			out.Write(dsl.U(0), res)
		}, "scene", "out")
		return err
	}
	require.NoError(t, build(false))
	err := build(true)
	require.ErrorIs(t, err, dsl.ErrDSL)
	require.ErrorContains(t, err, "rayquery_test.go:25: q.Terminate after its Query returned: q is valid in the query's body only")

	_, err = dsl.Kernel1D(64, func(k *dsl.K, scene dsl.Accel) {
		o, d := dsl.V3(dsl.F(0), dsl.F(0), dsl.F(0)), dsl.V3(dsl.F(0), dsl.F(0), dsl.F(1))
		scene.Query(o, dsl.F(0), d, dsl.F(10), dsl.U(0xff), func(q dsl.Query) {
			scene.Query(o, dsl.F(0), d, dsl.F(10), dsl.U(0xff), func(q dsl.Query) {})
		})
	}, "scene")
	require.ErrorIs(t, err, dsl.ErrDSL)
	require.ErrorContains(t, err, "rayquery_test.go:39: Query inside another query's body: trace the inner ray after the outer Query returns")
	require.PanicsWithValue(t, "dsl: Query.Candidate on a zero Query: use the q Accel.Query passes to its body", func() { dsl.Query{}.Candidate() })
}

// An error of ir.Validate names the statement it is in: for a DSL kernel,
// the line of the builder's call that made it.
func TestValidateErrorNamesTheStatement(t *testing.T) {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.F32]) {
		out.Write(dsl.U(0), dsl.F(1))
	}, "out")
	require.NoError(t, err)
	s := f.Body.Stmts[len(f.Body.Stmts)-1]
	require.Regexp(t, `rayquery_test\.go:\d+$`, ir.StmtPos(s))
	a := s.(*ir.Assign)
	a.Src = &ir.Ref{Var: &ir.Var{Name: "stray", Type: ir.TF32, Kind: ir.VarLocal}} // a local the function does not declare
	err = f.Validate()
	require.ErrorIs(t, err, ir.ErrInvalid)
	require.ErrorContains(t, err, ir.StmtPos(s)+": kernel: ")
}
