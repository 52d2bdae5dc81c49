package codegen

import (
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

// Reuse of values inside a statement.
//
// A DSL value used twice is one node reached twice in the tree. In n-body,
//
//	d := q.XYZ().Sub(p.XYZ())
//	inv := InverseSqrt(d.Dot(d).Add(eps))
//	acc += d.Scale(q.W().Mul(inv).Mul(inv).Mul(inv))
//
// makes the statement's tree hold d seven times and inv three times; emitted
// node by node it computes three inverse square roots per pair of bodies.
// Codegen instead evaluates a node once per statement and block and reuses
// its id: the block stands for dominance (an id is only reused in the block
// that computed it, later), and the statement for memory (every store is a
// statement or an effectful call, and both forget the values, so a reused
// load still reads what it would have read). Only nodes whose whole subtree
// is free of effects qualify, so an atomic or a call is never skipped.

// reuse holds the values computed so far in the current statement.
type reuse struct {
	ok   map[ir.Expr]bool // per function: subtree free of effects (memo)
	vals map[ir.Expr]spirv.ID
	blk  *spirv.Block // the block vals were computed in
}

func (r *reuse) lookup(e ir.Expr, blk *spirv.Block) (spirv.ID, bool) {
	if blk != r.blk {
		return 0, false
	}
	id, ok := r.vals[e]
	return id, ok
}

func (r *reuse) add(e ir.Expr, blk *spirv.Block, id spirv.ID) {
	if blk != r.blk || r.vals == nil {
		r.vals, r.blk = map[ir.Expr]spirv.ID{}, blk
	}
	r.vals[e] = id
}

// follow carries the values computed in block from over to block to, which
// from dominates (the merge of a selection that starts in from).
func (r *reuse) follow(from, to *spirv.Block) {
	if r.blk == from {
		r.blk = to
	}
}

// forget drops every value; the next statement or effect starts afresh.
func (r *reuse) forget() { r.vals, r.blk = nil, nil }

// reusable reports whether e and all its operands are free of effects:
// operators, conversions, constructions, loads (of variables, buffer and
// shared elements) and pure built-ins; not calls of callables, atomics,
// subgroup operations or anything else that writes or depends on other
// threads.
func (g *gen) reusable(e ir.Expr) bool {
	if v, ok := g.reuse.ok[e]; ok {
		return v
	}
	r := false
	switch e := e.(type) {
	case *ir.Literal, *ir.ConstArray, *ir.Ref:
		r = true
	case *ir.Unary:
		r = g.reusable(e.X)
	case *ir.Binary:
		r = g.reusable(e.X) && g.reusable(e.Y)
	case *ir.Member:
		r = g.reusable(e.X)
	case *ir.Swizzle:
		r = g.reusable(e.X)
	case *ir.Index:
		r = g.reusable(e.X) && g.reusable(e.I)
	case *ir.Cast:
		r = g.reusable(e.X)
	case *ir.Construct:
		r = true
		for _, a := range e.Args {
			r = r && g.reusable(a)
		}
	case *ir.Call:
		r = e.Func == nil && pure(e.Op)
		for _, a := range e.Args {
			r = r && g.reusable(a)
		}
	}
	g.reuse.ok[e] = r
	return r
}
