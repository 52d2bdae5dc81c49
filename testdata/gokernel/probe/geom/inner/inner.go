// Package inner is called by geom, not by kernels directly.
package inner

// Dot is ax·bx + ay·by.
func Dot(ax, ay, bx, by float32) float32 { return Mul(ax, bx) + Mul(ay, by) }

// Mul is a·b.
func Mul(a, b float32) float32 { return a * b }
