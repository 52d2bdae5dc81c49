package bvh

// The ray–triangle test is the watertight one of Woop, Benthin and Wald
// (JCGT 2(1), 2013): the vertices are moved into a frame where the ray
// starts at the origin and runs along +z (a translation, a permutation of
// axes that makes z the largest component of the direction, and a shear),
// and the hit is decided by the signs of the three 2D edge functions there.
// Every edge function is x₁·y₂ − y₁·x₂ of its two sheared vertices, with each
// product rounded on its own, so the two triangles sharing an edge compute
// exactly negated values for it: a ray through the edge is inside one of
// them. Where an edge function rounds to zero the test is finished in
// float64, where the products are exact. Both windings are hit. A hit also
// needs the ray to enter the triangle's box (tri).

import "math"

// ray is a Ray prepared for traversal: reciprocal direction for the box test,
// axis permutation and shear for the triangle test.
type ray struct {
	o, d, inv  [3]float32
	neg        [3]bool // inv[k] < 0: the slab is entered at the max face
	finite     bool    // every inv[k] finite: no slab distance is NaN
	kx, ky, kz int
	sx, sy, sz float32
	tmin, tmax float32
	mask       uint8
	pk         pairConsts // children's constants (amd64)
}

// prepare returns r ready for traversal, or false when no point of it can
// hit anything: a non-finite origin or direction, a zero direction, a TMin
// below zero or infinite, TMin > TMax, a NaN TMax (the rule of the Vulkan
// paths, where a negative TMin is not allowed).
func prepare(r Ray) (ray, bool) {
	var p ray
	ok := p.init(&r, true)
	return p, ok
}

// init is prepare in place; without tri the triangle test's permutation and
// shear are left unset (a top level tests boxes only).
func (p *ray) init(r *Ray, tri bool) bool {
	p.o, p.d, p.tmin, p.tmax, p.mask = r.Origin, r.Dir, r.TMin, r.TMax, r.Mask
	if !finite(r.Origin) || !finite(r.Dir) || !(0 <= r.TMin) || math.IsInf(float64(r.TMin), 1) || !(r.TMin <= r.TMax) {
		return false
	}
	if r.Dir == [3]float32{} {
		return false
	}
	for k := 0; k < 3; k++ {
		p.inv[k] = 1 / r.Dir[k]
		p.neg[k] = math.Float32bits(p.inv[k]) >= 1<<31
	}
	p.finite = finite(p.inv)
	if p.finite {
		p.initPair()
	}
	if !tri {
		return true
	}
	kz := 0
	if abs32(r.Dir[1]) > abs32(r.Dir[kz]) {
		kz = 1
	}
	if abs32(r.Dir[2]) > abs32(r.Dir[kz]) {
		kz = 2
	}
	kx, ky := (kz+1)%3, (kz+2)%3
	if r.Dir[kz] < 0 {
		kx, ky = ky, kx
	}
	p.kx, p.ky, p.kz = kx, ky, kz
	p.sx = r.Dir[kx] / r.Dir[kz]
	p.sy = r.Dir[ky] / r.Dir[kz]
	p.sz = p.inv[kz] // 1/d[kz], the same division
	return true
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// boxGrow widens a slab's far distance by 2γ₃ (Ize 2013), so rounding in the
// slab test never culls a box the exact ray enters.
const boxGrow = 2 * (3 * 0x1p-24) / (1 - 3*0x1p-24)

// box returns where p enters [lo, hi] within [p.tmin, tmax], and whether it
// does. A NaN slab (a zero direction component with the origin on a face)
// does not cull; a zero (or subnormal, its reciprocal infinite) direction
// component with the origin outside the box's slab culls.
//
// With every reciprocal finite no slab distance is NaN (a finite or
// infinite difference times a finite non-zero reciprocal), and the entry and
// exit are Go's float max and min: branch-free, where the compares would be
// mispredicted for a good share of the boxes a ray meets. Otherwise the
// compares skip NaN distances.
func (p *ray) box(lo, hi *[3]float32, tmax float32) (float32, bool) {
	if p.finite {
		x0, x1 := (lo[0]-p.o[0])*p.inv[0], (hi[0]-p.o[0])*p.inv[0]
		y0, y1 := (lo[1]-p.o[1])*p.inv[1], (hi[1]-p.o[1])*p.inv[1]
		z0, z1 := (lo[2]-p.o[2])*p.inv[2], (hi[2]-p.o[2])*p.inv[2]
		if p.neg[0] {
			x0, x1 = x1, x0
		}
		if p.neg[1] {
			y0, y1 = y1, y0
		}
		if p.neg[2] {
			z0, z1 = z1, z0
		}
		tn := max(p.tmin, x0, y0, z0)
		tf := min(x1, y1, z1)
		tf += float32(abs32(tf) * boxGrow) // NaN from −∞: tmax, as below
		if !(tf <= tmax) {
			tf = tmax
		}
		return tn, tn <= tf
	}
	// An infinite reciprocal makes both distances of a slab the origin is
	// outside of infinite with one sign: +∞ culls through the entry, but −∞
	// would widen to NaN below and cull nothing, so that side is decided
	// here (the ray never moves along the axis).
	for k := range 3 {
		if abs32(p.inv[k]) == float32(math.Inf(1)) && (p.o[k] < lo[k] || p.o[k] > hi[k]) {
			return p.tmin, false
		}
	}
	x0, x1 := (lo[0]-p.o[0])*p.inv[0], (hi[0]-p.o[0])*p.inv[0]
	y0, y1 := (lo[1]-p.o[1])*p.inv[1], (hi[1]-p.o[1])*p.inv[1]
	z0, z1 := (lo[2]-p.o[2])*p.inv[2], (hi[2]-p.o[2])*p.inv[2]
	if p.neg[0] {
		x0, x1 = x1, x0
	}
	if p.neg[1] {
		y0, y1 = y1, y0
	}
	if p.neg[2] {
		z0, z1 = z1, z0
	}
	tn := p.tmin
	if x0 > tn {
		tn = x0
	}
	if y0 > tn {
		tn = y0
	}
	if z0 > tn {
		tn = z0
	}
	tf := x1
	if y1 < tf || tf != tf { // a NaN far distance does not cull
		tf = y1
	}
	if z1 < tf || tf != tf {
		tf = z1
	}
	tf += float32(abs32(tf) * boxGrow)
	if !(tf <= tmax) {
		tf = tmax
	}
	return tn, tn <= tf
}

// pairBits is box for the two children of an interior node, as children
// returns it.
func (p *ray) pairBits(ns *[2]Node, tmax float32) (hits uint32, t0, t1 float32) {
	t0, h0 := p.box(&ns[0].Min, &ns[0].Max, tmax)
	t1, h1 := p.box(&ns[1].Min, &ns[1].Max, tmax)
	if h0 {
		hits = 1
	}
	if h1 {
		hits |= 2
	}
	return hits, t0, t1
}

// tri is the hit rule: the watertight test at t, and the ray entering the
// triangle's box by the box test no later than widen(t). The second half
// makes traversal exactly a brute-force loop (cullGrow).
func (p *ray) tri(t *Triangle, tmax float32) (tt, u, v float32, ok bool) {
	tt, u, v, ok = p.watertight(t, tmax)
	if !ok {
		return 0, 0, 0, false
	}
	if !p.entersBox(t, tt) {
		return 0, 0, 0, false
	}
	return tt, u, v, true
}

// entersBox is the second half of tri: the ray enters t's box by widen(tt).
func (p *ray) entersBox(t *Triangle, tt float32) bool {
	b := t.bounds()
	_, in := p.box(&b.Min, &b.Max, widen(tt))
	return in
}

// cullGrow is how far past the committed distance, relatively, traversal
// still enters boxes, and how far past a triangle's own hit distance the ray
// may enter its box. The two together make the proof of exactness: a hit at
// t ≤ committed has its box entered by widen(t) ≤ widen(committed), and so
// has every box around it (the slab test is monotone in the box), so none
// is culled. Genuine hits lie inside their boxes; the bound only has to
// absorb the rounding of t, a few ulps.
const cullGrow = 0x1p-10

func widen(t float32) float32 { return t + abs32(t)*cullGrow }

// watertight is the test of Woop et al. of p against t within
// [p.tmin, tmax].
func (p *ray) watertight(t *Triangle, tmax float32) (tt, u, v float32, ok bool) {
	kx, ky, kz := p.kx, p.ky, p.kz
	ax, ay, az := t.A[kx]-p.o[kx], t.A[ky]-p.o[ky], t.A[kz]-p.o[kz]
	bx, by, bz := t.B[kx]-p.o[kx], t.B[ky]-p.o[ky], t.B[kz]-p.o[kz]
	cx, cy, cz := t.C[kx]-p.o[kx], t.C[ky]-p.o[ky], t.C[kz]-p.o[kz]
	// Explicit conversions round each product on its own: no fused
	// multiply-add may make one triangle's edge differ from its neighbour's.
	Ax, Ay := ax-float32(p.sx*az), ay-float32(p.sy*az)
	Bx, By := bx-float32(p.sx*bz), by-float32(p.sy*bz)
	Cx, Cy := cx-float32(p.sx*cz), cy-float32(p.sy*cz)
	U := float32(Cx*By) - float32(Cy*Bx)
	V := float32(Ax*Cy) - float32(Ay*Cx)
	W := float32(Bx*Ay) - float32(By*Ax)
	Az, Bz, Cz := float32(p.sz*az), float32(p.sz*bz), float32(p.sz*cz)
	// An edge function that overflowed (±Inf, or NaN from Inf − Inf) keeps
	// its sign or fails every comparison, so the tests below stay right,
	// and makes det or T non-finite: the scaled test then decides.
	if U == 0 || V == 0 || W == 0 {
		return p.watertight64(Ax, Ay, Bx, By, Cx, Cy, Az, Bz, Cz, tmax)
	}
	if (U < 0 || V < 0 || W < 0) && (U > 0 || V > 0 || W > 0) {
		return 0, 0, 0, false
	}
	det := U + V + W
	if det == 0 {
		return 0, 0, 0, false
	}
	T := float32(U*Az) + float32(V*Bz) + float32(W*Cz)
	if !finite([3]float32{det, T, 0}) {
		return p.watertightScaled(Ax, Ay, Bx, By, Cx, Cy, Az, Bz, Cz, tmax)
	}
	rcp := 1 / det
	tt = float32(T * rcp)
	if !(tt >= p.tmin && tt <= tmax) {
		return 0, 0, 0, false
	}
	return tt, float32(V * rcp), float32(W * rcp), true
}

// expOf is x's biased float32 exponent (0 for zero and subnormals, 255 for
// Inf and NaN).
func expOf(x float32) int32 { return int32(math.Float32bits(x)>>23) & 0xff }

// pow2 is 2^k for k in [-126, 127].
func pow2(k int32) float32 { return math.Float32frombits(uint32(k+127) << 23) }

// watertightScaled is watertight's test where the float32 edge functions,
// their sum or the distance overflowed (vertices about 10¹⁹ or more from
// the origin, as sheared): the same operations on the frame scaled by
// powers of two, the 2D positions so that none reaches 2⁶², the z so that
// no product of the distance reaches 2¹²⁴, and the distance scaled back.
// A power of two changes no rounding (above float32's normal range's
// bottom), so the hit is the one an unbounded exponent would give; a zero
// scaled edge function is finished in float64 as in watertight. The
// software traversal (device/vulkan/codegen) does the same.
func (p *ray) watertightScaled(Ax, Ay, Bx, By, Cx, Cy, Az, Bz, Cz, tmax float32) (tt, u, v float32, ok bool) {
	if !finite([3]float32{Ax, Ay, Bx}) || !finite([3]float32{By, Cx, Cy}) || !finite([3]float32{Az, Bz, Cz}) {
		return 0, 0, 0, false
	}
	m := max(abs32(Ax), abs32(Ay), abs32(Bx), abs32(By), abs32(Cx), abs32(Cy))
	s := pow2(-max(0, expOf(m)-127-61))
	ax, ay, bx, by, cx, cy := float32(Ax*s), float32(Ay*s), float32(Bx*s), float32(By*s), float32(Cx*s), float32(Cy*s)
	U := float32(cx*by) - float32(cy*bx)
	V := float32(ax*cy) - float32(ay*cx)
	W := float32(bx*ay) - float32(by*ax)
	if U == 0 || V == 0 || W == 0 {
		return p.watertight64(Ax, Ay, Bx, By, Cx, Cy, Az, Bz, Cz, tmax)
	}
	if (U < 0 || V < 0 || W < 0) && (U > 0 || V > 0 || W > 0) {
		return 0, 0, 0, false
	}
	det := U + V + W
	if det == 0 {
		return 0, 0, 0, false
	}
	kz := max(0, expOf(max(abs32(U), abs32(V), abs32(W)))+expOf(max(abs32(Az), abs32(Bz), abs32(Cz)))-376)
	sz := pow2(-min(kz, 126))
	sz2 := pow2(-(kz - min(kz, 126)))
	az, bz, cz := float32(float32(Az*sz)*sz2), float32(float32(Bz*sz)*sz2), float32(float32(Cz*sz)*sz2)
	T := float32(U*az) + float32(V*bz) + float32(W*cz)
	rcp := 1 / det
	tt = float32(float32(float32(T*rcp)*pow2(min(kz, 127))) * pow2(kz-min(kz, 127)))
	if !(tt >= p.tmin && tt <= tmax) {
		return 0, 0, 0, false
	}
	return tt, float32(V * rcp), float32(W * rcp), true
}

// watertight64 finishes the test in float64 when an edge function rounded
// to zero: the products of float32 values are exact there (no underflow
// either), so the signs are the exact ones.
func (p *ray) watertight64(Ax, Ay, Bx, By, Cx, Cy, Az, Bz, Cz, tmax float32) (tt, u, v float32, ok bool) {
	U := float64(Cx)*float64(By) - float64(Cy)*float64(Bx)
	V := float64(Ax)*float64(Cy) - float64(Ay)*float64(Cx)
	W := float64(Bx)*float64(Ay) - float64(By)*float64(Ax)
	if (U < 0 || V < 0 || W < 0) && (U > 0 || V > 0 || W > 0) {
		return 0, 0, 0, false
	}
	det := U + V + W
	if det == 0 {
		return 0, 0, 0, false
	}
	T := U*float64(Az) + V*float64(Bz) + W*float64(Cz)
	tt = float32(T / det)
	if !(tt >= p.tmin && tt <= tmax) {
		return 0, 0, 0, false
	}
	return tt, float32(V / det), float32(W / det), true
}

// IntersectTriangle is the hit rule traversal applies, the watertight test
// of r against t on [r.TMin, r.TMax] and the ray entering t's box
// (docs/bvh.md §6): the hit's t, its barycentrics
// (u, v) with the point at (1−u−v)·A + u·B + v·C, and whether there is one.
// Both windings hit; a degenerate triangle never does.
func IntersectTriangle(r Ray, t Triangle) (tHit float32, u, v float32, ok bool) {
	p, live := prepare(r)
	if !live {
		return 0, 0, 0, false
	}
	return p.tri(&t, r.TMax)
}
