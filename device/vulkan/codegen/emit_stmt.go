package codegen

import (
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

// Structured control flow. Expressions never open blocks except the
// compare-and-swap loops of emulated atomics, which are complete constructs,
// so a statement starts and ends in "the current block":
//
//	if c { A } else { B }    header: OpSelectionMerge m; OpBranchConditional c a b
//	                         a: A; OpBranch m   b: B; OpBranch m   m: …
//	for c; U { S }           pre: OpBranch h
//	                         h: OpLoopMerge m k; OpBranch t
//	                         t: OpBranchConditional c s m
//	                         s: S; OpBranch k   k: U; OpBranch h   m: …
//
// break branches to the innermost merge, continue to the innermost loop's
// continue target; statements after a terminator in the same block are dead
// and skipped.

func (g *gen) block(b *ir.Block) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		if g.err != nil || g.b.CurrentBlock().Terminated() {
			return
		}
		g.stmt(s)
	}
}

// nested emits body into blk and branches to next unless it ended in a terminator.
func (g *gen) nested(blk *spirv.Block, body *ir.Block, next spirv.ID) {
	g.b.SetBlock(blk)
	g.enter()
	defer g.leave()
	g.block(body)
	if !g.b.CurrentBlock().Terminated() {
		g.b.Branch(next)
	}
}

func (g *gen) stmt(s ir.Stmt) {
	b := g.b
	if site, ok := g.siteOf[s]; ok {
		defer func(outer uint32) { g.site = outer }(g.site)
		g.site = site
	}
	g.reuse.forget() // the previous statement may have stored to what they read
	switch s := s.(type) {
	case *ir.Block:
		g.block(s)
	case *ir.If:
		c := g.expr(s.Cond)
		then, merge := g.sfn.NewBlock(), g.sfn.NewBlock()
		els := merge
		if s.Else != nil && len(s.Else.Stmts) > 0 {
			els = g.sfn.NewBlock()
		}
		b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
		b.BranchConditional(c, then.ID(), els.ID())
		g.nested(then, s.Then, merge.ID())
		if els != merge {
			g.nested(els, s.Else, merge.ID())
		}
		b.SetBlock(merge)
	case *ir.Loop:
		g.loop(nil, nil, s.Body)
	case *ir.For:
		g.loop(s.Cond, s.Update, s.Body)
	case *ir.Switch:
		tag := g.expr(s.Tag)
		merge := g.sfn.NewBlock()
		def := merge
		if s.Default != nil {
			def = g.sfn.NewBlock()
		}
		blocks := make([]*spirv.Block, len(s.Cases))
		var cases []spirv.SwitchCase
		for i, c := range s.Cases {
			blocks[i] = g.sfn.NewBlock()
			for _, v := range c.Values {
				cases = append(cases, spirv.SwitchCase{Value: uint64(v), Target: blocks[i].ID()})
			}
		}
		b.SelectionMerge(merge.ID(), spirv.SelectionControlNone)
		b.Switch(tag, def.ID(), cases...)
		g.targets = append(g.targets, target{brk: merge.ID()})
		for i, c := range s.Cases {
			g.nested(blocks[i], c.Body, merge.ID())
		}
		if def != merge {
			g.nested(def, s.Default, merge.ID())
		}
		g.targets = g.targets[:len(g.targets)-1]
		b.SetBlock(merge)
	case *ir.Break:
		b.Branch(g.targets[len(g.targets)-1].brk)
	case *ir.Continue:
		for i := len(g.targets) - 1; i >= 0; i-- {
			if g.targets[i].cont != 0 {
				b.Branch(g.targets[i].cont)
				return
			}
		}
	case *ir.Return:
		g.flushFault()
		if s.Value != nil {
			b.ReturnValue(g.expr(s.Value))
		} else {
			b.Return()
		}
	case *ir.Assign:
		g.assign(s.Dst, s.Src)
	case *ir.Print:
		g.print(s)
	case *ir.RayQuery:
		g.rayQuery(s)
	case *ir.ExprStmt:
		g.expr(s.X)
	case *ir.Assert:
		if g.opts.Checked { // unchecked, an assertion is not emitted
			g.checkFault(g.expr(s.Cond), faultAssert, g.asserts[s], b.ConstantUint32(0), b.ConstantUint32(0))
		}
	case *ir.Comment:
	}
}

func (g *gen) loop(cond ir.Expr, update, body *ir.Block) {
	b := g.b
	g.hoist(cond, body, update)
	header, bodyB, cont, merge := g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock(), g.sfn.NewBlock()
	b.Branch(header.ID())
	b.SetBlock(header)
	g.countPass()
	b.LoopMerge(merge.ID(), cont.ID(), spirv.LoopControlNone)
	if cond == nil {
		b.Branch(bodyB.ID())
	} else {
		test := g.sfn.NewBlock()
		b.Branch(test.ID())
		b.SetBlock(test)
		g.enter()
		c := g.expr(cond)
		g.leave()
		b.BranchConditional(c, bodyB.ID(), merge.ID())
	}
	g.targets = append(g.targets, target{brk: merge.ID(), cont: cont.ID()})
	g.nested(bodyB, body, cont.ID())
	g.targets = g.targets[:len(g.targets)-1]
	g.nested(cont, update, header.ID())
	b.SetBlock(merge)
}
