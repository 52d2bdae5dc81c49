package dsl

import (
	"fmt"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Values are expression trees that share their parts: after x = x.Add(x)
// n times, x is n nodes, but read as a tree (as every pass after the DSL
// reads the IR: Validate, Specialize, Hash, the code generators) it is 2ⁿ.
// Before a statement is recorded, untangle names each part the statement
// reaches more than once, and that is big as a tree, in a local assigned
// just before it, so the statement and those assignments hold each part
// once: the IR grows with the values the kernel made, not with the paths
// through them. A part named once is reused by the later statements of
// the same block and of the blocks inside it (K.named), rather than named
// again for each. A statement under untangleMin nodes as a tree is kept as
// written, and in a bigger one smaller shared parts stay copies (the copies
// of each are bounded by shareMin per use, so the total stays linear).

// untangleMin is the size, in nodes as a tree, from which a statement's
// shared parts are named.
const untangleMin = 1024

// shareMin is the size, in nodes, from which a part reached more than once
// by a big statement is computed once into a local.
const shareMin = 16

// exprSlots lists the expressions of statement s that it evaluates, each by
// the field holding it (nested blocks are not included: their statements
// were untangled as they were recorded).
func exprSlots(s ir.Stmt) []*ir.Expr {
	switch s := s.(type) {
	case *ir.If:
		return []*ir.Expr{&s.Cond}
	case *ir.For:
		return []*ir.Expr{&s.Cond}
	case *ir.Switch:
		return []*ir.Expr{&s.Tag}
	case *ir.Return:
		return []*ir.Expr{&s.Value}
	case *ir.Assign:
		return []*ir.Expr{&s.Dst, &s.Src}
	case *ir.ExprStmt:
		return []*ir.Expr{&s.X}
	case *ir.Assert:
		return []*ir.Expr{&s.Cond}
	case *ir.Print:
		out := make([]*ir.Expr, len(s.Args))
		for i := range s.Args {
			out[i] = &s.Args[i]
		}
		return out
	case *ir.RayQuery:
		out := make([]*ir.Expr, 0, len(s.Args)+1)
		for i := range s.Args {
			out = append(out, &s.Args[i])
		}
		return append(out, &s.Result)
	}
	return nil
}

// children lists e's operands.
func children(e ir.Expr) []ir.Expr {
	switch e := e.(type) {
	case *ir.Unary:
		return []ir.Expr{e.X}
	case *ir.Binary:
		return []ir.Expr{e.X, e.Y}
	case *ir.Member:
		return []ir.Expr{e.X}
	case *ir.Swizzle:
		return []ir.Expr{e.X}
	case *ir.Index:
		return []ir.Expr{e.X, e.I}
	case *ir.Call:
		return e.Args
	case *ir.Cast:
		return []ir.Expr{e.X}
	case *ir.Construct:
		return e.Args
	}
	return nil
}

// withChildren is a copy of e with operands cs (in children's order).
func withChildren(e ir.Expr, cs []ir.Expr) ir.Expr {
	switch e := e.(type) {
	case *ir.Unary:
		c := *e
		c.X = cs[0]
		return &c
	case *ir.Binary:
		c := *e
		c.X, c.Y = cs[0], cs[1]
		return &c
	case *ir.Member:
		c := *e
		c.X = cs[0]
		return &c
	case *ir.Swizzle:
		c := *e
		c.X = cs[0]
		return &c
	case *ir.Index:
		c := *e
		c.X, c.I = cs[0], cs[1]
		return &c
	case *ir.Call:
		c := *e
		c.Args = cs
		return &c
	case *ir.Cast:
		c := *e
		c.X = cs[0]
		return &c
	case *ir.Construct:
		c := *e
		c.Args = cs
		return &c
	}
	return e
}

// nameable reports whether e may be computed into a local ahead of its
// statement: a value (not a place, a leaf or a resource).
func nameable(e ir.Expr) bool {
	switch e.(type) {
	case *ir.Ref, *ir.Literal, *ir.ConstArray, *ir.Poison:
		return false
	}
	switch e.Type().Kind() {
	case ir.KindVoid, ir.KindArray, ir.KindBuffer, ir.KindTexture, ir.KindBindless, ir.KindAccel:
		return false
	}
	return !ir.IsPlace(e)
}

// namedPart is a local holding a shared part, assigned in block.
type namedPart struct {
	ref   ir.Expr
	block *ir.Block
}

// inScope reports whether a local assigned earlier in block b holds its
// value at the statement being recorded: b is the current block or one
// around it (a later statement there, or one nested in it, comes after the
// assignment; a closed block's local may not have been assigned).
func (k *K) inScope(b *ir.Block) bool {
	if b == k.cur {
		return true
	}
	for _, o := range k.open {
		if o == b {
			return true
		}
	}
	return false
}

// untangle rewrites the expressions of s so that no part big as a tree is
// reached twice, assigning such parts to locals before s (at site).
func (k *K) untangle(s ir.Stmt, site string) {
	slots := exprSlots(s)
	if len(slots) == 0 {
		return
	}
	// Count the uses of each node within s, visiting each node once.
	uses := map[ir.Expr]int{}
	var stack []ir.Expr
	for _, p := range slots {
		if *p != nil {
			stack = append(stack, *p)
		}
	}
	shared := false
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e == nil {
			continue
		}
		uses[e]++
		if uses[e] > 1 {
			shared = true
			continue
		}
		stack = append(stack, children(e)...)
	}
	if !shared {
		return
	}
	// The statement's size as a tree, counted on the shared form (each
	// node once), up to untangleMin.
	sizes := map[ir.Expr]int{}
	var treeSize func(e ir.Expr) int
	treeSize = func(e ir.Expr) int {
		if n, ok := sizes[e]; ok {
			return n
		}
		n := 1
		for _, c := range children(e) {
			if c != nil {
				n = min(n+treeSize(c), untangleMin)
			}
		}
		sizes[e] = n
		return n
	}
	total := 0
	for _, p := range slots {
		if *p != nil {
			total = min(total+treeSize(*p), untangleMin)
		}
	}
	if total < untangleMin {
		return
	}
	// Rebuild bottom-up: each node once, its size as a tree with named
	// parts counting one.
	type built struct {
		e    ir.Expr
		size int
	}
	done := map[ir.Expr]built{}
	var rebuild func(e ir.Expr) built
	rebuild = func(e ir.Expr) built {
		if b, ok := done[e]; ok {
			return b
		}
		if p, ok := k.named[e]; ok && k.inScope(p.block) {
			b := built{e: p.ref, size: 1}
			done[e] = b
			return b
		}
		cs := children(e)
		b := built{e: e, size: 1}
		if len(cs) > 0 {
			var ncs []ir.Expr
			for i, c := range cs {
				if c == nil {
					if ncs != nil {
						ncs = append(ncs, nil)
					}
					continue
				}
				cb := rebuild(c)
				b.size += cb.size
				if cb.e != c && ncs == nil {
					ncs = append(make([]ir.Expr, 0, len(cs)), cs[:i]...)
				}
				if ncs != nil {
					ncs = append(ncs, cb.e)
				}
			}
			if ncs != nil {
				b.e = withChildren(e, ncs)
			}
		}
		if uses[e] > 1 && b.size >= shareMin && nameable(e) {
			k.n++
			v := k.fn.AddLocal(fmt.Sprintf("s%d", k.n), e.Type())
			a := &ir.Assign{Dst: &ir.Ref{Var: v}, Src: b.e}
			ir.SetStmtPos(a, site)
			k.cur.Stmts = append(k.cur.Stmts, a)
			b = built{e: &ir.Ref{Var: v}, size: 1}
			if k.named == nil {
				k.named = map[ir.Expr]namedPart{}
			}
			k.named[e] = namedPart{ref: b.e, block: k.cur}
		}
		done[e] = b
		return b
	}
	for _, p := range slots {
		if *p != nil {
			*p = rebuild(*p).e
		}
	}
}
