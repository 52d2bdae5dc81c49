//go:build !amd64

package bvh

// walkSSEOrGo is the raw walk, for tests.
func walkSSEOrGo(w *walker, nodes []Node, p *ray) int { return w.walkGo(nodes, p, 0) }
