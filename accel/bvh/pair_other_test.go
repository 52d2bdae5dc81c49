//go:build !amd64

package bvh

// walkSSEOrGo is the raw walk, for tests.
func walkSSEOrGo(w *walker, nodes []Node, p *ray) int { return w.walkGo(nodes, p, 0) }

// walkWideRaw is the raw wide walk, for tests.
func walkWideRaw(w *wideWalker, nodes []wideNode, p *ray) int { return w.walkWideGo(nodes, p, 0) }

// The wide forms are made here too, for the tests that walk them.
func init() { makeWide = true }
