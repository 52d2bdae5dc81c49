package cpu

import (
	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Ray-query loops (ir.RayQuery): the body, compiled like any block, runs as
// bvh.Scene.Query's callback once per candidate, with the candidate in
// th.cand for its ops; the committed result is then stored to the query's
// Result through an ordinary assignment, from registers filled with it.

// candidate is the candidate in hand and what the body decides about it.
type candidate struct {
	c     bvh.Candidate
	scene *bvh.Scene
	dec   bvh.Decision
}

// inRegs is an expression whose value is already in registers (compiler.hoisted).
type inRegs struct {
	ir.Expr
	t *ir.Type
}

func (e *inRegs) Type() *ir.Type { return e.t }

func (c *compiler) rayQuery(s *ir.RayQuery) stmtFn {
	k, ray := c.rayOf(s.Args)
	body := c.block(s.Body)
	n := ir.Leaves(ir.RayCommitted)
	res := &inRegs{t: ir.RayCommitted}
	o := c.tmp(n)
	c.hoisted[res] = o
	store := c.assign(&ir.Assign{Dst: s.Result, Src: res})
	delete(c.hoisted, res)
	return func(t *th) flow {
		sc, r := t.run.scenes[k], ray(t)
		var cd candidate
		cd.scene = sc
		h := sc.Query(r, func(bc bvh.Candidate) (float32, bool, bool) {
			cd.c = bc
			cd.dec.Reset(&cd.c)
			t.cand = &cd
			body(t)
			t.cand = nil
			return cd.dec.Verdict()
		})
		for i, w := range sc.ResultWords(h, r) {
			t.r[o+i] = uint64(w)
		}
		return store(t)
	}
}

// candidateOp compiles an op of a candidate loop's body.
func (c *compiler) candidateOp(e *ir.Call) ex {
	switch e.Op {
	case ir.OpRayCandidate:
		return ex{n: ir.Leaves(ir.RayCandidate), v: func(t *th, d []uint64) {
			for i, w := range t.cand.scene.CandidateWords(&t.cand.c) {
				d[i] = uint64(w)
			}
		}}
	case ir.OpRayCommitProcedural:
		tv := c.expr(e.Args[0]).s
		return ex{v: func(t *th, _ []uint64) { t.cand.dec.CommitProcedural(f32(tv(t))) }}
	case ir.OpRayCommitTriangle:
		return ex{v: func(t *th, _ []uint64) { t.cand.dec.CommitTriangle() }}
	}
	return ex{v: func(t *th, _ []uint64) { t.cand.dec.Terminate() }}
}
