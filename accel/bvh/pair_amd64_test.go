package bvh

// walkSSEOrGo is the raw walk of a finite ray, for tests.
func walkSSEOrGo(w *walker, nodes []Node, p *ray) int { return walkSSE(w, 0) }

// walkWideRaw is the raw wide walk of a finite ray, for tests.
func walkWideRaw(w *wideWalker, nodes []wideNode, p *ray) int { return walkWideSSE(w, 0) }
