package bvh

// walkSSEOrGo is the raw walk of a finite ray, for tests.
func walkSSEOrGo(w *walker, nodes []Node, p *ray) int { return walkSSE(w, 0) }
