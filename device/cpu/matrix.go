package cpu

import (
	"math"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// Matrices are float32, column-major: leaf c*rows + r is column c, row r.

// matBinary compiles the products of matrices with vectors and matrices,
// and their sums, differences and scaling (componentwise).
func (c *compiler) matBinary(e *ir.Binary) ex {
	xt, yt := e.X.Type(), e.Y.Type()
	x, y := c.expr(e.X), c.expr(e.Y)
	if e.Op != ir.Mul || xt.Kind() != ir.KindMatrix && yt.Kind() != ir.KindMatrix || xt.IsScalar() || yt.IsScalar() {
		if xt != yt && !(yt.IsScalar() && (e.Op == ir.Mul || e.Op == ir.Div)) || e.Op != ir.Add && e.Op != ir.Sub && e.Op != ir.Mul && e.Op != ir.Div {
			refuse(unsupported("matrix operation %s %s %s", xt, e.Op, yt))
		}
		op := scalarOp(e.Op, ir.TF32, ir.TF32)
		return c.lift(ir.Leaves(e.T), []ex{x, y}, func(a []uint64) uint64 { return op(a[0], a[1]) })
	}
	xo, xe := c.agg(x)
	yo, ye := c.agg(y)
	n := ir.Leaves(e.T)
	var f func(r []uint64, d []uint64)
	switch {
	case xt.Kind() == ir.KindMatrix && yt.Kind() == ir.KindVector: // M·v
		cols, rows := xt.Len(), xt.Elem().Len()
		f = func(r, d []uint64) {
			for i := range rows {
				var s float32
				for k := range cols {
					s += f32(r[xo+k*rows+i]) * f32(r[yo+k])
				}
				d[i] = uf32(s)
			}
		}
	case xt.Kind() == ir.KindVector: // v·M
		cols, rows := yt.Len(), yt.Elem().Len()
		f = func(r, d []uint64) {
			for j := range cols {
				var s float32
				for k := range rows {
					s += f32(r[xo+k]) * f32(r[yo+j*rows+k])
				}
				d[j] = uf32(s)
			}
		}
	default: // M·N
		inner, rows, cols := xt.Len(), xt.Elem().Len(), yt.Len()
		f = func(r, d []uint64) {
			for j := range cols {
				for i := range rows {
					var s float32
					for k := range inner {
						s += f32(r[xo+k*rows+i]) * f32(r[yo+j*inner+k])
					}
					d[j*rows+i] = uf32(s)
				}
			}
		}
	}
	return ex{n: n, v: func(t *th, d []uint64) { xe(t); ye(t); f(t.r, d) }}
}

// matBuiltin compiles transpose, determinant, inverse and outer products.
func (c *compiler) matBuiltin(e *ir.Call) ex {
	args := make([]ex, len(e.Args))
	offs := make([]int, len(e.Args))
	evals := make([]func(*th), len(e.Args))
	for i, a := range e.Args {
		args[i] = c.expr(a)
		offs[i], evals[i] = c.agg(args[i])
	}
	pre := func(t *th) {
		for _, ev := range evals {
			ev(t)
		}
	}
	a := offs[0]
	at := e.Args[0].Type()
	switch e.Op {
	case ir.OpTranspose:
		cols, rows := at.Len(), at.Elem().Len()
		return ex{n: cols * rows, v: func(t *th, d []uint64) {
			pre(t)
			for j := range cols {
				for i := range rows {
					d[i*cols+j] = t.r[a+j*rows+i]
				}
			}
		}}
	case ir.OpOuterProduct:
		rows, cols := at.Len(), e.Args[1].Type().Len()
		b := offs[1]
		return ex{n: cols * rows, v: func(t *th, d []uint64) {
			pre(t)
			for j := range cols {
				for i := range rows {
					d[j*rows+i] = uf32(f32(t.r[a+i]) * f32(t.r[b+j]))
				}
			}
		}}
	case ir.OpDeterminant, ir.OpInverse:
		n := at.Len()
		inverse := e.Op == ir.OpInverse
		get := func(t *th) [16]float64 {
			var m [16]float64 // row-major n×n
			for j := range n {
				for i := range n {
					m[i*n+j] = float64(f32(t.r[a+j*n+i]))
				}
			}
			return m
		}
		if !inverse {
			return scalarEx(func(t *th) uint64 { pre(t); m := get(t); return uf32(float32(det(m[:n*n], n))) })
		}
		return ex{n: n * n, v: func(t *th, d []uint64) {
			pre(t)
			m := get(t)
			inv := invert(m[:n*n], n)
			for j := range n {
				for i := range n {
					d[j*n+i] = uf32(float32(inv[i*n+j]))
				}
			}
		}}
	}
	refuse(unsupported("built-in %s", e.Op))
	return ex{}
}

// det is the determinant of the row-major n×n m (Gaussian elimination).
func det(m []float64, n int) float64 {
	a := append([]float64(nil), m...)
	d := 1.0
	for k := range n {
		p := k
		for i := k + 1; i < n; i++ {
			if math.Abs(a[i*n+k]) > math.Abs(a[p*n+k]) {
				p = i
			}
		}
		if a[p*n+k] == 0 {
			return 0
		}
		if p != k {
			for j := range n {
				a[k*n+j], a[p*n+j] = a[p*n+j], a[k*n+j]
			}
			d = -d
		}
		d *= a[k*n+k]
		for i := k + 1; i < n; i++ {
			f := a[i*n+k] / a[k*n+k]
			for j := k; j < n; j++ {
				a[i*n+j] -= f * a[k*n+j]
			}
		}
	}
	return d
}

// invert is the inverse of the row-major n×n m (Gauss-Jordan; undefined,
// here NaN-free garbage, for a singular m, as on a device).
func invert(m []float64, n int) []float64 {
	a := append([]float64(nil), m...)
	inv := make([]float64, n*n)
	for i := range n {
		inv[i*n+i] = 1
	}
	for k := range n {
		p := k
		for i := k + 1; i < n; i++ {
			if math.Abs(a[i*n+k]) > math.Abs(a[p*n+k]) {
				p = i
			}
		}
		for j := range n {
			a[k*n+j], a[p*n+j] = a[p*n+j], a[k*n+j]
			inv[k*n+j], inv[p*n+j] = inv[p*n+j], inv[k*n+j]
		}
		piv := a[k*n+k]
		if piv == 0 {
			continue
		}
		for j := range n {
			a[k*n+j] /= piv
			inv[k*n+j] /= piv
		}
		for i := range n {
			if i == k {
				continue
			}
			f := a[i*n+k]
			for j := range n {
				a[i*n+j] -= f * a[k*n+j]
				inv[i*n+j] -= f * inv[k*n+j]
			}
		}
	}
	return inv
}

// reflect is i - 2·dot(n, i)·n.
func (c *compiler) reflect(e *ir.Call) ex {
	io, ie := c.agg(c.expr(e.Args[0]))
	no, ne := c.agg(c.expr(e.Args[1]))
	s := e.Args[0].Type().Scalar()
	m := e.Args[0].Type().Len()
	return ex{n: m, v: func(t *th, d []uint64) {
		ie(t)
		ne(t)
		var dot float64
		for k := range m {
			dot += toF(t.r[io+k], s) * toF(t.r[no+k], s)
		}
		for k := range m {
			d[k] = fromF(toF(t.r[io+k], s)-2*dot*toF(t.r[no+k], s), s)
		}
	}}
}
