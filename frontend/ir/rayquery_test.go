package ir_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// Validate holds a ray query's structure: candidate ops inside its body
// only, no break, continue or return out of the body, no query inside
// another's body, a RayCommitted place for the result.
func TestValidateRayQuery(t *testing.T) {
	query := func(f *ir.Function) *ir.RayQuery {
		for _, s := range f.Body.Stmts {
			if q, ok := s.(*ir.RayQuery); ok {
				return q
			}
		}
		t.Fatal("no ray query")
		return nil
	}
	for _, c := range []struct {
		name, want string
		edit       func(f *ir.Function, q *ir.RayQuery)
	}{
		{"candidate outside", "ray_candidate outside a ray query's candidate loop", func(f *ir.Function, q *ir.RayQuery) {
			f.Body.Stmts = append(f.Body.Stmts, &ir.ExprStmt{X: &ir.Call{Op: ir.OpRayCandidate, T: ir.RayCandidate}})
		}},
		{"terminate outside", "ray_terminate outside", func(f *ir.Function, q *ir.RayQuery) {
			f.Body.Stmts = append(f.Body.Stmts, &ir.ExprStmt{X: &ir.Call{Op: ir.OpRayTerminate, T: ir.TVoid}})
		}},
		{"break", "break out of a ray query's candidate loop", func(f *ir.Function, q *ir.RayQuery) {
			q.Body.Stmts = append(q.Body.Stmts, &ir.Break{})
		}},
		{"break in an outer loop", "break out of a ray query's candidate loop", func(f *ir.Function, q *ir.RayQuery) {
			q.Body.Stmts = append(q.Body.Stmts, &ir.Break{})
			f.Body.Stmts = []ir.Stmt{&ir.Loop{Body: &ir.Block{Stmts: append(f.Body.Stmts, &ir.Break{})}}}
		}},
		{"continue", "continue in a ray query's candidate loop", func(f *ir.Function, q *ir.RayQuery) {
			q.Body.Stmts = append(q.Body.Stmts, &ir.Continue{})
		}},
		{"return", "return inside a ray query's candidate loop", func(f *ir.Function, q *ir.RayQuery) {
			q.Body.Stmts = append(q.Body.Stmts, &ir.Return{})
		}},
		{"nested", "a ray query inside another's candidate loop", func(f *ir.Function, q *ir.RayQuery) {
			q.Body.Stmts = append(q.Body.Stmts, &ir.RayQuery{Args: q.Args, Body: &ir.Block{}, Result: q.Result})
		}},
		{"result not a place", "is not a place of type", func(f *ir.Function, q *ir.RayQuery) {
			q.Result = ir.Zero(ir.RayCommitted)
		}},
		{"result of another type", "is not a place of type", func(f *ir.Function, q *ir.RayQuery) {
			q.Result = &ir.Ref{Var: f.AddLocal("h", ir.RayHit)}
		}},
		{"bad ray", "operand 2 (tmin)", func(f *ir.Function, q *ir.RayQuery) {
			q.Args = append([]ir.Expr(nil), q.Args...)
			q.Args[2] = ir.LitInt(ir.TU32, 0)
		}},
		{"commit t not f32", "the hit distance is u32", func(f *ir.Function, q *ir.RayQuery) {
			q.Body.Stmts = append(q.Body.Stmts, &ir.ExprStmt{X: &ir.Call{Op: ir.OpRayCommitProcedural, Args: []ir.Expr{ir.LitInt(ir.TU32, 1)}, T: ir.TVoid}})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := programs.RayQuery()
			require.NoError(t, err)
			c.edit(f, query(f))
			err = f.Validate()
			require.ErrorIs(t, err, ir.ErrInvalid)
			require.ErrorContains(t, err, c.want)
		})
	}
}
