package vulkan

// The kernels of the device mesh build (accel_lbvh.go), written with
// frontend/dsl. None uses a barrier or shared memory: a pass that needs
// every thread of the one before is a dispatch of its own, and the passes
// whose work is unknown on the host (a level of the tree) run a fixed
// number of threads that stride over the level's nodes.

import (
	"reflect"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// The control block's words (ctl, uint32).
const (
	ctlCentMin  = 0  // 3 words: the centroids' box, as ordered bits (ordBits)
	ctlCentMax  = 3  // 3 words
	ctlBadIndex = 6  // the first triangle with an index past the vertices, or ^0
	ctlBadValue = 7  // the first triangle with a non-finite coordinate, or ^0
	ctlNodes    = 8  // the node count, written after the last level
	ctlRootMin  = 9  // 3 words: the triangles' box, as ordered bits
	ctlRootMax  = 12 // 3 words
	ctlLevels   = 16 // ctlLevels+L: the nodes level L+1 holds (allocated by level L's pass)
	ctlWords    = ctlLevels + lbvhMaxLevels
)

// lbvhMaxLevels bounds the levels of a tree: a path splits at most 30
// times on a Morton bit and halves equal codes at most ⌈log₂(n/4)⌉ times,
// under bvh.StackSize for every n below 2³².
const lbvhMaxLevels = 64

// The radix sort's digits: four passes of 8 bits over the 30-bit codes.
const (
	sortBits   = 8
	sortDigits = 1 << sortBits
)

// lbvhKernel is dsl.Kernel1D of body, blocks of 64, its buffers bound as
// dsl.Buf or, with big, as dsl.BigBuf (by address: for buffers past
// maxStorageBufferRange, at a cost, about twice the build's time on
// lavapipe).
func lbvhKernel(big bool, body any, names ...string) (*ir.Function, error) {
	if !big {
		return dsl.Kernel1D(64, body, names...)
	}
	bufT, bigT := reflect.TypeFor[dsl.Buf[dsl.U32]](), reflect.TypeFor[dsl.BigBuf[dsl.U32]]()
	bt := reflect.TypeOf(body)
	in := make([]reflect.Type, bt.NumIn())
	for i := range in {
		if in[i] = bt.In(i); in[i] == bufT {
			in[i] = bigT
		}
	}
	fn := reflect.MakeFunc(reflect.FuncOf(in, nil, false), func(args []reflect.Value) []reflect.Value {
		for i, a := range args {
			if a.Type() == bigT {
				args[i] = a.FieldByName("Buf")
			}
		}
		return reflect.ValueOf(body).Call(args)
	})
	return dsl.Kernel1D(64, fn.Interface(), names...)
}

// ordBits maps a float's bits to a uint32 of the same order (−0 below +0),
// for atomic min and max: a positive float gains the sign bit, a negative
// one has every bit flipped.
func ordBits(f dsl.F32) dsl.U32 {
	u := dsl.Bitcast[uint32](f)
	return u.Xor(dsl.Select(u.Shr(dsl.U(31)).Eq(dsl.U(1)), dsl.U(0xffffffff), dsl.U(0x80000000)))
}

// fromOrd is ordBits's inverse.
func fromOrd(x dsl.U32) dsl.F32 {
	return dsl.Bitcast[float32](x.Xor(dsl.Select(x.Shr(dsl.U(31)).Eq(dsl.U(1)), dsl.U(0x80000000), dsl.U(0xffffffff))))
}

// spread3 spaces the low 10 bits of x two zero bits apart (accel/bvh's).
func spread3(x dsl.U32) dsl.U32 {
	x = x.And(dsl.U(0x3ff))
	x = x.Or(x.Shl(dsl.U(16))).And(dsl.U(0x030000ff))
	x = x.Or(x.Shl(dsl.U(8))).And(dsl.U(0x0300f00f))
	x = x.Or(x.Shl(dsl.U(4))).And(dsl.U(0x030c30c3))
	x = x.Or(x.Shl(dsl.U(2))).And(dsl.U(0x09249249))
	return x
}

func fbits(f dsl.F32) dsl.U32 { return dsl.Bitcast[uint32](f) }
func ubits(u dsl.U32) dsl.F32 { return dsl.Bitcast[float32](u) }

// finiteF reports whether f is neither NaN nor infinite.
func finiteF(f dsl.F32) dsl.Bool {
	return fbits(f).And(dsl.U(0x7f800000)).Ne(dsl.U(0x7f800000))
}

// geom is where a kernel finds the triangles: idx from word g[0] (the
// binding's offset rounded down to the device's alignment, the rest in
// words here), vtx from word g[1], vertices g[2] words apart, the last
// vertex g[3].
type geom = dsl.U32x4

// triangle reads triangle i's vertices (v[vertex][axis]) through its
// indices, an index past the last vertex reading the last instead, and
// reports whether an index was past it.
func triangle(k *dsl.K, i dsl.U32, g geom, idx, vtx dsl.Buf[dsl.U32]) (v [3][3]dsl.F32, bad dsl.Bool) {
	bad = dsl.B(false)
	last := g.W()
	for j := range 3 {
		x := idx.Read(g.X().Add(i.Mul(dsl.U(3))).Add(dsl.U(uint32(j))))
		bad = bad.Or(x.Gt(last))
		base := g.Y().Add(dsl.Min(x, last).Mul(g.Z()))
		for c := range 3 {
			v[j][c] = ubits(vtx.Read(base.Add(dsl.U(uint32(c)))))
		}
	}
	return v, bad
}

// lbvhPrepKernel: thread t takes triangles [t·chunk, (t+1)·chunk) ∩
// [0, n) (read through idx from vtx, geom), writes their centroids to cent (accel/bvh's: the vertices scaled by a
// third, then summed), records the first triangle with an index past last
// and the first with a non-finite coordinate, and merges the boxes of the
// centroids and of the triangles into ctl (ordered bits, atomic min and
// max).
func lbvhPrepKernel(big bool) (*ir.Function, error) {
	return lbvhKernel(big, func(k *dsl.K, n, chunk dsl.U32, g geom, idx, vtx, cent, ctl dsl.Buf[dsl.U32]) {
		t := k.DispatchID().X()
		lo := t.Mul(chunk)
		hi := dsl.Min(lo.Add(chunk), n)
		var cmin, cmax, tmin, tmax [3]*dsl.Local[dsl.U32]
		for c := range 3 {
			cmin[c], cmax[c] = dsl.NewVar(k, dsl.U(0xffffffff)), dsl.NewVar(k, dsl.U(0))
			tmin[c], tmax[c] = dsl.NewVar(k, dsl.U(0xffffffff)), dsl.NewVar(k, dsl.U(0))
		}
		badIndex := dsl.NewVar(k, dsl.U(0xffffffff))
		badValue := dsl.NewVar(k, dsl.U(0xffffffff))
		dsl.Range(k, lo, hi, func(i dsl.U32) {
			v, bad := triangle(k, i, g, idx, vtx)
			fin := dsl.B(true)
			for j := range 3 {
				for c := range 3 {
					fin = fin.And(finiteF(v[j][c]))
				}
			}
			badIndex.Set(dsl.Select(bad, dsl.Min(badIndex.Get(), i), badIndex.Get()))
			badValue.Set(dsl.Select(fin, badValue.Get(), dsl.Min(badValue.Get(), i)))
			third := dsl.F(1.0 / 3)
			for c := range 3 {
				cc := v[0][c].Mul(third).Add(v[1][c].Mul(third)).Add(v[2][c].Mul(third))
				cent.Write(i.Mul(dsl.U(3)).Add(dsl.U(uint32(c))), fbits(cc))
				o := ordBits(cc)
				cmin[c].Set(dsl.Min(cmin[c].Get(), o))
				cmax[c].Set(dsl.Max(cmax[c].Get(), o))
				for j := range 3 {
					p := ordBits(v[j][c])
					tmin[c].Set(dsl.Min(tmin[c].Get(), p))
					tmax[c].Set(dsl.Max(tmax[c].Get(), p))
				}
			}
		})
		k.If(lo.Lt(hi), func() {
			for c := range 3 {
				ctl.Atomic(ir.OpAtomicMin, dsl.U(uint32(ctlCentMin+c)), cmin[c].Get())
				ctl.Atomic(ir.OpAtomicMax, dsl.U(uint32(ctlCentMax+c)), cmax[c].Get())
				ctl.Atomic(ir.OpAtomicMin, dsl.U(uint32(ctlRootMin+c)), tmin[c].Get())
				ctl.Atomic(ir.OpAtomicMax, dsl.U(uint32(ctlRootMax+c)), tmax[c].Get())
			}
			k.If(badIndex.Get().Ne(dsl.U(0xffffffff)), func() { ctl.Atomic(ir.OpAtomicMin, dsl.U(ctlBadIndex), badIndex.Get()) })
			k.If(badValue.Get().Ne(dsl.U(0xffffffff)), func() { ctl.Atomic(ir.OpAtomicMin, dsl.U(ctlBadValue), badValue.Get()) })
		})
	}, "n", "chunk", "geom", "idx", "vtx", "cent", "ctl")
}

// lbvhMortonKernel: thread i writes the 30-bit Morton code of centroid i in
// the centroid box to keys[i] and i to vals[i], quantised as accel/bvh's
// linear builder does (1024 cells an axis; a flat or overflowing axis maps
// every centroid to cell 0).
func lbvhMortonKernel(big bool) (*ir.Function, error) {
	return lbvhKernel(big, func(k *dsl.K, cent, ctl, keys, vals dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		var cell [3]dsl.U32
		for c := range 3 {
			lo := fromOrd(ctl.Read(dsl.U(uint32(ctlCentMin + c))))
			hi := fromOrd(ctl.Read(dsl.U(uint32(ctlCentMax + c))))
			ext := hi.Sub(lo)
			s := dsl.F(1024).Div(ext)
			ok := ext.Gt(dsl.F(0)).And(finiteF(ext)).And(finiteF(s))
			scale := dsl.Select(ok, s, dsl.F(0))
			x := ubits(cent.Read(i.Mul(dsl.U(3)).Add(dsl.U(uint32(c))))).Sub(lo).Mul(scale)
			cell[c] = dsl.Convert[uint32](dsl.Clamp(x, dsl.F(0), dsl.F(1023)))
		}
		code := spread3(cell[0]).Shl(dsl.U(2)).Or(spread3(cell[1]).Shl(dsl.U(1))).Or(spread3(cell[2]))
		keys.Write(i, code)
		vals.Write(i, i)
	}, "cent", "ctl", "keys", "vals")
}

// lbvhHistKernel: thread t of threads counts the digits (keys >> shift, 8
// bits) of its chunk of keys into hist[digit·threads + t]: digit-major, so
// that the exclusive scan of hist is every chunk's first slot for each
// digit, in a stable order.
func lbvhHistKernel(big bool) (*ir.Function, error) {
	return lbvhKernel(big, func(k *dsl.K, n, chunk, shift, threads dsl.U32, keys, hist dsl.Buf[dsl.U32]) {
		t := k.DispatchID().X()
		cnt := dsl.NewArray[dsl.U32](k, sortDigits)
		dsl.Range(k, dsl.U(0), dsl.U(sortDigits), func(d dsl.U32) { cnt.Set(d, dsl.U(0)) })
		lo := t.Mul(chunk)
		dsl.Range(k, lo, dsl.Min(lo.Add(chunk), n), func(i dsl.U32) {
			d := keys.Read(i).Shr(shift).And(dsl.U(sortDigits - 1))
			cnt.Set(d, cnt.At(d).Add(dsl.U(1)))
		})
		dsl.Range(k, dsl.U(0), dsl.U(sortDigits), func(d dsl.U32) { hist.Write(d.Mul(threads).Add(t), cnt.At(d)) })
	}, "n", "chunk", "shift", "threads", "keys", "hist")
}

// lbvhScanSumKernel: thread t sums hist's chunk t into part[t].
func lbvhScanSumKernel(big bool) (*ir.Function, error) {
	return lbvhKernel(big, func(k *dsl.K, n, chunk dsl.U32, hist, part dsl.Buf[dsl.U32]) {
		t := k.DispatchID().X()
		lo := t.Mul(chunk)
		sum := dsl.NewVar(k, dsl.U(0))
		dsl.Range(k, lo, dsl.Min(lo.Add(chunk), n), func(i dsl.U32) { sum.Set(sum.Get().Add(hist.Read(i))) })
		part.Write(t, sum.Get())
	}, "n", "chunk", "hist", "part")
}

// lbvhScanPartsKernel: one thread scans part (exclusive), in place.
func lbvhScanPartsKernel(big bool) (*ir.Function, error) {
	return lbvhKernel(big, func(k *dsl.K, n dsl.U32, part dsl.Buf[dsl.U32]) {
		sum := dsl.NewVar(k, dsl.U(0))
		dsl.Range(k, dsl.U(0), n, func(i dsl.U32) {
			v := part.Read(i)
			part.Write(i, sum.Get())
			sum.Set(sum.Get().Add(v))
		})
	}, "n", "part")
}

// lbvhScanKernel: thread t scans hist's chunk t (exclusive) from part[t].
func lbvhScanKernel(big bool) (*ir.Function, error) {
	return lbvhKernel(big, func(k *dsl.K, n, chunk dsl.U32, hist, part dsl.Buf[dsl.U32]) {
		t := k.DispatchID().X()
		lo := t.Mul(chunk)
		sum := dsl.NewVar(k, part.Read(t))
		dsl.Range(k, lo, dsl.Min(lo.Add(chunk), n), func(i dsl.U32) {
			v := hist.Read(i)
			hist.Write(i, sum.Get())
			sum.Set(sum.Get().Add(v))
		})
	}, "n", "chunk", "hist", "part")
}

// lbvhScatterKernel: thread t moves its chunk of (key, val) pairs to their
// slots, in order (the sort is stable).
func lbvhScatterKernel(big bool) (*ir.Function, error) {
	return lbvhKernel(big, func(k *dsl.K, n, chunk, shift, threads dsl.U32, keys, vals, hist, keysOut, valsOut dsl.Buf[dsl.U32]) {
		t := k.DispatchID().X()
		slot := dsl.NewArray[dsl.U32](k, sortDigits)
		dsl.Range(k, dsl.U(0), dsl.U(sortDigits), func(d dsl.U32) { slot.Set(d, hist.Read(d.Mul(threads).Add(t))) })
		lo := t.Mul(chunk)
		dsl.Range(k, lo, dsl.Min(lo.Add(chunk), n), func(i dsl.U32) {
			key := keys.Read(i)
			d := key.Shr(shift).And(dsl.U(sortDigits - 1))
			p := slot.At(d)
			slot.Set(d, p.Add(dsl.U(1)))
			keysOut.Write(p, key)
			valsOut.Write(p, vals.Read(i))
		})
	}, "n", "chunk", "shift", "threads", "keys", "vals", "hist", "keysOut", "valsOut")
}

// strided runs body(j) for j = t, t+stride, … while j < n.
func strided(k *dsl.K, t, n, stride dsl.U32, body func(j dsl.U32)) {
	j := dsl.NewVar(k, t)
	k.While(func() dsl.Bool { return j.Get().Lt(n) }, func() {
		body(j.Get())
		j.Set(j.Get().Add(stride))
	})
}

// levelSpan returns the first node of level L and the level's node count,
// from ctl's counts of the levels below.
func levelSpan(k *dsl.K, level dsl.U32, ctl dsl.Buf[dsl.U32]) (first, count dsl.U32) {
	f := dsl.NewVar(k, dsl.Select(level.Eq(dsl.U(0)), dsl.U(0), dsl.U(1)))
	dsl.Range(k, dsl.U(1), level, func(j dsl.U32) {
		f.Set(f.Get().Add(ctl.Read(dsl.U(ctlLevels - 1).Add(j))))
	})
	c := dsl.Select(level.Eq(dsl.U(0)), dsl.U(1), ctl.Read(dsl.U(ctlLevels-1).Add(dsl.Max(level, dsl.U(1)))))
	return f.Get(), c
}

// lbvhSplitKernel: level L's pass. Each node of the level (info[4i..]: its
// keys lo, hi) holding more than leaf keys is cut where accel/bvh's linear
// builder cuts it — at the first key with the highest bit in which the
// range's first and last codes differ, or in half where they are equal —
// and gets two adjacent children on the next level (info[4i+2]: the first;
// 0 for a leaf).
func lbvhSplitKernel(big bool) (*ir.Function, error) {
	return lbvhKernel(big, func(k *dsl.K, level, leaf dsl.U32, keys, ctl, info dsl.Buf[dsl.U32]) {
		t := k.DispatchID().X()
		stride := k.DispatchSize().X()
		first, count := levelSpan(k, level, ctl)
		next := first.Add(count)
		strided(k, t, count, stride, func(j dsl.U32) {
			i := first.Add(j)
			lo, hi := info.Read(i.Mul(dsl.U(4))), info.Read(i.Mul(dsl.U(4)).Add(dsl.U(1)))
			k.If(hi.Sub(lo).Le(leaf), func() {
				info.Write(i.Mul(dsl.U(4)).Add(dsl.U(2)), dsl.U(0))
			}).Else(func() {
				a, b := keys.Read(lo), keys.Read(hi.Sub(dsl.U(1)))
				mid := dsl.NewVar(k, lo.Add(hi.Sub(lo).Shr(dsl.U(1))))
				k.If(a.Ne(b), func() {
					shift := dsl.U(31).Sub(dsl.Clz(a.Xor(b)))
					base := dsl.NewVar(k, dsl.U(0))
					span := dsl.NewVar(k, hi.Sub(lo))
					k.While(func() dsl.Bool { return span.Get().Gt(dsl.U(1)) }, func() {
						h := span.Get().Shr(dsl.U(1))
						set := keys.Read(lo.Add(base.Get()).Add(h)).Shr(shift).And(dsl.U(1))
						base.Set(base.Get().Add(dsl.Select(set.Eq(dsl.U(0)), h, dsl.U(0))))
						span.Set(span.Get().Sub(h))
					})
					mid.Set(lo.Add(dsl.U(1)).Add(base.Get()))
				})
				c := next.Add(ctl.AtomicAdd(dsl.U(ctlLevels).Add(level), dsl.U(2)))
				m := mid.Get()
				info.Write(i.Mul(dsl.U(4)).Add(dsl.U(2)), c)
				info.Write(c.Mul(dsl.U(4)), lo)
				info.Write(c.Mul(dsl.U(4)).Add(dsl.U(1)), m)
				info.Write(c.Mul(dsl.U(4)).Add(dsl.U(4)), m)
				info.Write(c.Mul(dsl.U(4)).Add(dsl.U(5)), hi)
			})
		})
	}, "level", "leaf", "keys", "ctl", "info")
}

// lbvhCountKernel: one thread sums the levels into the node count
// (ctl[ctlNodes]).
func lbvhCountKernel(big bool) (*ir.Function, error) {
	return lbvhKernel(big, func(k *dsl.K, ctl dsl.Buf[dsl.U32]) {
		sum := dsl.NewVar(k, dsl.U(1))
		dsl.Range(k, dsl.U(0), dsl.U(lbvhMaxLevels), func(j dsl.U32) {
			sum.Set(sum.Get().Add(ctl.Read(dsl.U(ctlLevels).Add(j))))
		})
		ctl.Write(dsl.U(ctlNodes), sum.Get())
	}, "ctl")
}

// lbvhGatherKernel: thread i writes triangle vals[i] (the i-th in leaf
// order) as the mesh's i-th row, {A, id, B, 0, C, 0}.
func lbvhGatherKernel(big bool) (*ir.Function, error) {
	return lbvhKernel(big, func(k *dsl.K, nodes dsl.U32, g geom, vals, idx, vtx, mesh dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		id := vals.Read(i)
		v, _ := triangle(k, id, g, idx, vtx)
		dst := dsl.U(4).Add(nodes.Mul(dsl.U(8))).Add(i.Mul(dsl.U(12)))
		for j := range 3 {
			for c := range 3 {
				mesh.Write(dst.Add(dsl.U(uint32(4*j+c))), fbits(v[j][c]))
			}
		}
		mesh.Write(dst.Add(dsl.U(3)), id)
		mesh.Write(dst.Add(dsl.U(7)), dsl.U(0))
		mesh.Write(dst.Add(dsl.U(11)), dsl.U(0))
	}, "nodes", "geom", "vals", "idx", "vtx", "mesh")
}

// lbvhBoxKernel: level L's pass bottom up. Each node i of the level gets
// its box in boxes[8i..] (bvh.Node's layout, the subtree's node count in
// place of LeftFirst): a leaf the box of its triangles (already in leaf
// order in the mesh), an interior node the union of its children's
// (written by the pass of the level below).
func lbvhBoxKernel(big bool) (*ir.Function, error) {
	return lbvhKernel(big, func(k *dsl.K, level, nodes dsl.U32, ctl, info, mesh, boxes dsl.Buf[dsl.U32]) {
		t := k.DispatchID().X()
		stride := k.DispatchSize().X()
		first, count := levelSpan(k, level, ctl)
		prims := dsl.U(4).Add(nodes.Mul(dsl.U(8)))
		strided(k, t, count, stride, func(j dsl.U32) {
			i := first.Add(j)
			lo, hi, c := info.Read(i.Mul(dsl.U(4))), info.Read(i.Mul(dsl.U(4)).Add(dsl.U(1))), info.Read(i.Mul(dsl.U(4)).Add(dsl.U(2)))
			var bmin, bmax [3]*dsl.Local[dsl.F32]
			for a := range 3 {
				bmin[a], bmax[a] = dsl.NewVar(k, dsl.F(0)), dsl.NewVar(k, dsl.F(0))
			}
			grow := func(first bool, lo, hi [3]dsl.F32) {
				for a := range 3 {
					if first {
						bmin[a].Set(lo[a])
						bmax[a].Set(hi[a])
					} else {
						bmin[a].Set(dsl.Min(bmin[a].Get(), lo[a]))
						bmax[a].Set(dsl.Max(bmax[a].Get(), hi[a]))
					}
				}
			}
			nodeAt := func(n dsl.U32) (lo, hi [3]dsl.F32) {
				w := n.Mul(dsl.U(8))
				for a := range 3 {
					lo[a] = ubits(boxes.Read(w.Add(dsl.U(uint32(a)))))
					hi[a] = ubits(boxes.Read(w.Add(dsl.U(uint32(4 + a)))))
				}
				return lo, hi
			}
			k.If(c.Eq(dsl.U(0)), func() {
				dsl.Range(k, lo, hi, func(p dsl.U32) {
					r := prims.Add(p.Mul(dsl.U(12)))
					var v [3]dsl.F32
					for a := range 3 {
						v[a] = ubits(mesh.Read(r.Add(dsl.U(uint32(a)))))
					}
					k.If(p.Eq(lo), func() { grow(true, v, v) }).Else(func() { grow(false, v, v) })
					for j := 1; j < 3; j++ {
						for a := range 3 {
							v[a] = ubits(mesh.Read(r.Add(dsl.U(uint32(4*j + a)))))
						}
						grow(false, v, v)
					}
				})
			}).Else(func() {
				l0, l1 := nodeAt(c)
				grow(true, l0, l1)
				r0, r1 := nodeAt(c.Add(dsl.U(1)))
				grow(false, r0, r1)
			})
			w := i.Mul(dsl.U(8))
			for a := range 3 {
				boxes.Write(w.Add(dsl.U(uint32(a))), fbits(bmin[a].Get()))
				boxes.Write(w.Add(dsl.U(uint32(4+a))), fbits(bmax[a].Get()))
			}
			size := dsl.U(1).Add(boxes.Read(c.Mul(dsl.U(8)).Add(dsl.U(3)))).Add(boxes.Read(c.Mul(dsl.U(8)).Add(dsl.U(11))))
			boxes.Write(w.Add(dsl.U(3)), dsl.Select(c.Eq(dsl.U(0)), dsl.U(1), size))
		})
	}, "level", "nodes", "ctl", "info", "mesh", "boxes")
}

// lbvhPlaceKernel: level L's pass top down, writing each node of the level
// into the mesh in accel/bvh's order, so that the array is the host's: a
// node at index place[2i] whose children's pair is at q = place[2i+1]
// puts its left child's pair right after the pair (q+2) and its right
// child's after the left child's subtree (q+1+its node count).
func lbvhPlaceKernel(big bool) (*ir.Function, error) {
	return lbvhKernel(big, func(k *dsl.K, level dsl.U32, ctl, info, boxes, place, mesh dsl.Buf[dsl.U32]) {
		t := k.DispatchID().X()
		stride := k.DispatchSize().X()
		first, count := levelSpan(k, level, ctl)
		strided(k, t, count, stride, func(j dsl.U32) {
			i := first.Add(j)
			lo, hi, c := info.Read(i.Mul(dsl.U(4))), info.Read(i.Mul(dsl.U(4)).Add(dsl.U(1))), info.Read(i.Mul(dsl.U(4)).Add(dsl.U(2)))
			p, q := place.Read(i.Mul(dsl.U(2))), place.Read(i.Mul(dsl.U(2)).Add(dsl.U(1)))
			leafNode := c.Eq(dsl.U(0))
			src, dst := i.Mul(dsl.U(8)), dsl.U(4).Add(p.Mul(dsl.U(8)))
			for a := range 3 {
				mesh.Write(dst.Add(dsl.U(uint32(a))), boxes.Read(src.Add(dsl.U(uint32(a)))))
				mesh.Write(dst.Add(dsl.U(uint32(4+a))), boxes.Read(src.Add(dsl.U(uint32(4+a)))))
			}
			mesh.Write(dst.Add(dsl.U(3)), dsl.Select(leafNode, lo, q))
			mesh.Write(dst.Add(dsl.U(7)), dsl.Select(leafNode, hi.Sub(lo), dsl.U(0)))
			k.If(leafNode.Not(), func() {
				left := boxes.Read(c.Mul(dsl.U(8)).Add(dsl.U(3)))
				place.Write(c.Mul(dsl.U(2)), q)
				place.Write(c.Mul(dsl.U(2)).Add(dsl.U(1)), q.Add(dsl.U(2)))
				place.Write(c.Mul(dsl.U(2)).Add(dsl.U(2)), q.Add(dsl.U(1)))
				place.Write(c.Mul(dsl.U(2)).Add(dsl.U(3)), q.Add(dsl.U(1)).Add(left))
			})
		})
	}, "level", "ctl", "info", "boxes", "place", "mesh")
}
