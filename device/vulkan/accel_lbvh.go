package vulkan

// The device mesh build of the software path: a linear BVH (LBVH) made by
// lucent kernels (accel_lbvh_kernels.go) as ordinary dispatches on the
// stream, written straight into the mesh's device buffer in meshBytes's
// layout: the node array and leaf order accel/bvh's linear builder makes
// of the same triangles, byte for byte (the same quantisation, Karras's
// split, equal codes halved, leaves of at most 4, child pairs in
// preorder). The passes:
//
//  1. prep: each thread a run of triangles, read through their indices:
//     the centroids, the boxes of the centroids and of the triangles, the
//     first triangle with an index past the vertices or a non-finite
//     coordinate (atomics on the control block);
//  2. morton: 30-bit codes; a stable radix sort of (code, id) in four
//     passes of 8 bits (count, scan, scatter);
//  3. the hierarchy top down, a pass a level: each node over more than 4
//     keys is cut and takes two children from the next level's counter;
//     then the node count;
//  4. the control block (a few hundred bytes) is read back and the mesh's
//     buffer made at its exact size; the triangles are gathered into leaf
//     order as 48-byte rows, the boxes and subtree sizes summed bottom up
//     a pass a level, and the nodes written top down a pass a level, each
//     pair of children where accel/bvh's preorder puts it.
//
// The one wait is for the control block, which the host needs (the node
// count sizes the buffer; the root box is the mesh's bounds for the accel
// build; the flags are the build's errors, the host build's own); the mesh
// itself is never read back. The host keeps the root node only
// (softaccel.BuildDevice).

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"os"
	"slices"
	"sync"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// The kernels, in lbvhKernels's order.
const (
	lkPrep = iota
	lkMorton
	lkHist
	lkScanSum
	lkScanParts
	lkScan
	lkScatter
	lkSplit
	lkNodeCount
	lkGather
	lkBox
	lkPlace
	lkCount
)

var lbvhKernels = [lkCount]struct {
	name string
	make func(big bool) (*ir.Function, error)
	// untyped: arguments whose buffers may have any element type
	untyped []int
}{
	{"prep", lbvhPrepKernel, []int{3, 4}},
	{"morton", lbvhMortonKernel, nil},
	{"hist", lbvhHistKernel, nil},
	{"scan sum", lbvhScanSumKernel, nil},
	{"scan parts", lbvhScanPartsKernel, nil},
	{"scan", lbvhScanKernel, nil},
	{"scatter", lbvhScatterKernel, nil},
	{"split", lbvhSplitKernel, nil},
	{"node count", lbvhCountKernel, nil},
	{"gather", lbvhGatherKernel, []int{3, 4}},
	{"boxes", lbvhBoxKernel, nil},
	{"place", lbvhPlaceKernel, nil},
}

// lbvhShaders are the device's mesh build kernels, made with its first
// device build: [0] binding buffers by descriptor, [1] by address.
type lbvhShaders [2]struct {
	once    sync.Once
	shaders [lkCount]device.Handle
	err     error
}

func (d *Device) lbvhShaders(big bool) ([lkCount]device.Handle, error) {
	set := &d.lbvh[b2u(big)]
	set.once.Do(func() {
		for i, k := range lbvhKernels {
			f, err := k.make(big)
			if err == nil {
				var sig device.Signature
				sig, _, err = device.KernelSignature(f)
				for _, a := range k.untyped {
					sig.Args[a].ElemSize = 0
				}
				if err == nil {
					set.shaders[i], _, err = d.CreateShader(device.ShaderDesc{Kernel: f, Signature: &sig, Name: "lucent: mesh build: " + k.name})
				}
			}
			if err != nil {
				set.err = fmt.Errorf("vulkan: the mesh build kernel %q: %w", k.name, err)
				return
			}
		}
	})
	return set.shaders, set.err
}

// softBuilder is the software path's mesh builder, LUCENT_SOFT_BUILD:
// "gpu" (the device build), "linear" (the host's linear build whatever the
// hint), "sah" (the host's SAH build whatever the hint); unset or anything
// else, the host's build the hint asks for, which measured best on both
// lavapipes (docs/PERFORMANCE.md, "Software mesh builds").
func softBuilder() string { return os.Getenv("LUCENT_SOFT_BUILD") }

// softMeshOnDevice reports whether a full build of a mesh is made on the
// device (its refits then are too).
func softMeshOnDevice() bool { return softBuilder() == "gpu" }

// lbvhLevels is the passes a level the tree over n triangles takes: its
// depth's bound.
func lbvhLevels(n uint32) int {
	if n <= lbvhLeaf {
		return 1
	}
	return min(lbvhMaxLevels, 31+bits.Len32((n+lbvhLeaf-1)/lbvhLeaf))
}

// lbvhByAddress makes every device build bind its buffers by address
// (tests of the kernels for large meshes).
var lbvhByAddress bool

// lbvhLeaf is the most triangles a leaf holds (accel/bvh's default).
const lbvhLeaf = 4

// temp is a buffer of the build's, registered for its dispatches.
type temp struct {
	h device.Handle
	b *buffer
}

func (d *Device) newTemp(size uint64, made *[]temp) (device.Handle, error) {
	size = alignUp(max(size, 4), 4)
	raw, err := d.mem.newRawBuffer(size, placeDevice)
	if err != nil {
		return 0, fmt.Errorf("vulkan: a mesh build buffer of %d bytes: %w", size, err)
	}
	b := &buffer{raw: raw, desc: device.BufferDesc{Size: size, ElemSize: 4}, d: d}
	h, err := d.add(b)
	if err != nil {
		b.release()
		return 0, err
	}
	*made = append(*made, temp{h, b})
	return h, nil
}

func u32arg(v uint32) device.Arg {
	return device.Arg{Kind: device.ArgUniform, Uniform: binary.LittleEndian.AppendUint32(nil, v)}
}

func bufArg(h device.Handle, acc device.Access) device.Arg {
	return device.Arg{Kind: device.ArgBuffer, Handle: h, Size: device.WholeSize, Access: acc}
}

// lbvhKeep is what a mesh built on the device with AllowUpdate keeps for
// its refits: the build's centroids and control block (rewritten by a
// refit's prep), its leaf order (vals), its nodes' key ranges and children
// (info), boxes and placement buffers, the node count and depth.
type lbvhKeep struct {
	bufs                                []temp
	cent, ctl, vals, info, boxes, place device.Handle
	nodes                               uint64
	depth                               int
}

// drop releases the buffers once the work using them is done.
func (k *lbvhKeep) drop(d *Device) {
	for _, t := range k.bufs {
		d.dropHidden(t.h)
	}
}

// buildMeshOnDevice is a full build of mesh s from g on the device, or
// with keep (the mesh's last build's) a refit: the tree kept, the rows
// gathered and the boxes summed again.
func (d *Device) buildMeshOnDevice(sh device.Handle, s *structure, g device.MeshGeometry, keep *lbvhKeep) (err error) {
	if keep != nil {
		if err := s.soft.UpdateCheck(g); err != nil {
			return err
		}
	}
	var temps []temp
	defer func() {
		for _, t := range temps {
			if e := d.DestroyBuffer(t.h); err == nil {
				err = e
			}
		}
	}()
	n := g.Triangles
	n64 := uint64(n)
	nodesMax := 2*n64 - 1
	vbytes := uint64(g.VertexCount-1)*uint64(g.VertexStride) + 12
	// The largest buffer a kernel binds: the mesh's (at most 112 bytes a
	// triangle), or the vertices.
	big := lbvhByAddress || max(16+32*nodesMax+48*n64, vbytes) > d.caps.MaxStorageBufferRange
	k, err := d.lbvhShaders(big)
	if err != nil {
		return err
	}
	var cent, ctl, keys, vals, keys2, vals2, info, boxes, place, hist, part device.Handle
	kept := []*device.Handle{&cent, &ctl, &info, &boxes, &place}
	if keep != nil {
		cent, ctl, vals, info, boxes, place = keep.cent, keep.ctl, keep.vals, keep.info, keep.boxes, keep.place
	} else {
		for _, b := range []struct {
			h    *device.Handle
			size uint64
		}{{&cent, 12 * n64}, {&ctl, 4 * ctlWords}, {&keys, 4 * n64}, {&vals, 4 * n64},
			{&keys2, 4 * n64}, {&vals2, 4 * n64}, {&info, 16 * nodesMax}, {&boxes, 32 * nodesMax}, {&place, 8 * nodesMax}} {
			if *b.h, err = d.newTemp(b.size, &temps); err != nil {
				return err
			}
		}
	}
	// The sort's threads each take a chunk of keys; the scan's, a chunk of
	// the counts.
	sortThreads := uint32(min(max(n64/1024, 1), 4096))
	sortChunk := (n + sortThreads - 1) / sortThreads
	counts := sortDigits * sortThreads
	const scanChunk = 256
	parts := (counts + scanChunk - 1) / scanChunk
	if keep == nil {
		if hist, err = d.newTemp(4*uint64(counts), &temps); err != nil {
			return err
		}
		if part, err = d.newTemp(4*uint64(parts), &temps); err != nil {
			return err
		}
	}
	const prepChunk = 64
	// The geometry's bindings start at its offsets rounded down to the
	// device's alignment; the kernels skip the rest (geom).
	ib, vb := g.IndexOffset&^(d.caps.MemoryGranularity-1), g.VertexOffset&^(d.caps.MemoryGranularity-1)
	idxArg := device.Arg{Kind: device.ArgBuffer, Handle: g.Indices, Offset: ib, Size: g.IndexOffset - ib + 12*n64, Access: device.Read}
	vtxArg := device.Arg{Kind: device.ArgBuffer, Handle: g.Vertices, Offset: vb, Size: g.VertexOffset - vb + vbytes, Access: device.Read}
	var geomArg device.Arg
	geomArg.Kind = device.ArgUniform
	for _, w := range []uint32{uint32(g.IndexOffset-ib) / 4, uint32(g.VertexOffset-vb) / 4, g.VertexStride / 4, g.VertexCount - 1} {
		geomArg.Uniform = binary.LittleEndian.AppendUint32(geomArg.Uniform, w)
	}
	levelThreads := uint32(min(max(n64/16, 64), 16384))
	levels := lbvhLevels(n)

	ctl0 := make([]byte, 4*ctlWords)
	for _, w := range []int{ctlCentMin, ctlCentMin + 1, ctlCentMin + 2, ctlRootMin, ctlRootMin + 1, ctlRootMin + 2, ctlBadIndex, ctlBadValue} {
		binary.LittleEndian.PutUint32(ctl0[4*w:], math.MaxUint32)
	}
	root := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 0), n)
	root = append(root, make([]byte, 8)...)
	dispatch := func(shader device.Handle, threads uint32, args ...device.Arg) device.Command {
		return &device.ShaderDispatch{Shader: k[shader], Size: [3]uint32{threads, 1, 1}, Args: args}
	}
	prep := dispatch(lkPrep, (n+prepChunk-1)/prepChunk, u32arg(n), u32arg(prepChunk), geomArg, idxArg, vtxArg, bufArg(cent, device.Write), bufArg(ctl, device.ReadWrite))
	var cmds []device.Command
	if keep != nil {
		// A refit's prep: the flags and the root box afresh, the levels
		// and the node count kept.
		binary.LittleEndian.PutUint32(ctl0[4*ctlNodes:], uint32(keep.nodes))
		cmds = []device.Command{&device.BufferUpload{Buffer: ctl, Offset: 4 * ctlBadIndex, Data: ctl0[4*ctlBadIndex : 4*ctlLevels]}, prep}
	} else {
		cmds = []device.Command{
			&device.BufferUpload{Buffer: ctl, Data: ctl0},
			&device.BufferUpload{Buffer: info, Data: root},
			prep,
			dispatch(lkMorton, n, bufArg(cent, device.Read), bufArg(ctl, device.Read), bufArg(keys, device.Write), bufArg(vals, device.Write)),
		}
	}
	for shift := uint32(0); keep == nil && shift < 30; shift += sortBits {
		cmds = append(cmds,
			dispatch(lkHist, sortThreads, u32arg(n), u32arg(sortChunk), u32arg(shift), u32arg(sortThreads),
				bufArg(keys, device.Read), bufArg(hist, device.Write)),
			dispatch(lkScanSum, parts, u32arg(counts), u32arg(scanChunk), bufArg(hist, device.Read), bufArg(part, device.Write)),
			dispatch(lkScanParts, 1, u32arg(parts), bufArg(part, device.ReadWrite)),
			dispatch(lkScan, parts, u32arg(counts), u32arg(scanChunk), bufArg(hist, device.ReadWrite), bufArg(part, device.Read)),
			dispatch(lkScatter, sortThreads, u32arg(n), u32arg(sortChunk), u32arg(shift), u32arg(sortThreads),
				bufArg(keys, device.Read), bufArg(vals, device.Read), bufArg(hist, device.Read),
				bufArg(keys2, device.Write), bufArg(vals2, device.Write)))
		keys, keys2, vals, vals2 = keys2, keys, vals2, vals
	}
	for l := range levels * b2i(keep == nil) {
		cmds = append(cmds, dispatch(lkSplit, levelThreads, u32arg(uint32(l)), u32arg(lbvhLeaf),
			bufArg(keys, device.Read), bufArg(ctl, device.ReadWrite), bufArg(info, device.ReadWrite)))
	}
	if keep == nil {
		cmds = append(cmds, dispatch(lkNodeCount, 1, bufArg(ctl, device.ReadWrite)))
	}
	if err := d.dispatch(sh, &device.CommandList{Commands: cmds}); err != nil {
		return err
	}
	back, err := d.readBack(sh, [3]uint64{uint64(ctl), 0, 4 * ctlWords})
	if err != nil {
		return err
	}
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(back[0][4*i:]) }
	if bad := word(ctlBadIndex); bad != math.MaxUint32 {
		idx, err := d.readBack(sh, [3]uint64{uint64(g.Indices), g.IndexOffset + 12*uint64(bad), 12})
		if err != nil {
			return err
		}
		for j := range 3 {
			if v := binary.LittleEndian.Uint32(idx[0][4*j:]); v >= g.VertexCount {
				return s.soft.IndexError(int(bad), v, g)
			}
		}
	}
	if bad := word(ctlBadValue); bad != math.MaxUint32 {
		idx, err := d.readBack(sh, [3]uint64{uint64(g.Indices), g.IndexOffset + 12*uint64(bad), 12})
		if err != nil {
			return err
		}
		var rs [][3]uint64
		for j := range 3 {
			v := uint64(binary.LittleEndian.Uint32(idx[0][4*j:]))
			rs = append(rs, [3]uint64{uint64(g.Vertices), g.VertexOffset + v*uint64(g.VertexStride), 12})
		}
		vs, err := d.readBack(sh, rs...)
		if err != nil {
			return err
		}
		f := func(j int) [3]float32 {
			var v [3]float32
			for c := range 3 {
				v[c] = math.Float32frombits(binary.LittleEndian.Uint32(vs[j][4*c:]))
			}
			return v
		}
		return s.soft.ValueError(int(bad), bvh.Triangle{A: f(0), B: f(1), C: f(2)})
	}
	nodes := uint64(word(ctlNodes))
	if keep != nil {
		nodes = keep.nodes
	}
	if word(ctlLevels+levels-1) != 0 || nodes > nodesMax {
		return fmt.Errorf("vulkan: the device mesh build of %d triangles made %d nodes, deeper than its %d levels", n, nodes, levels)
	}
	rootNode := bvh.Node{Count: 0, LeftFirst: 1}
	if nodes == 1 {
		rootNode = bvh.Node{LeftFirst: 0, Count: n}
	}
	for c := range 3 {
		rootNode.Min[c] = fromOrdBits(word(ctlRootMin + c))
		rootNode.Max[c] = fromOrdBits(word(ctlRootMax + c))
	}

	size := 16 + 32*nodes + 48*n64
	raw, err := d.mem.newRawBuffer(size, placeDevice)
	if err != nil {
		return fmt.Errorf("vulkan: the structure's %d bytes: %w", size, err)
	}
	mb := &buffer{raw: raw, desc: device.BufferDesc{Size: size, ElemSize: 4}, d: d}
	mh, err := d.add(mb)
	if err != nil {
		mb.release()
		return err
	}
	header := binary.LittleEndian.AppendUint32(nil, uint32(16+32*nodes))
	header = binary.LittleEndian.AppendUint32(header, 0)
	header = binary.LittleEndian.AppendUint32(header, n)
	header = binary.LittleEndian.AppendUint32(header, 0)
	cmds = []device.Command{
		&device.BufferUpload{Buffer: mh, Data: header},
		dispatch(lkGather, n, u32arg(uint32(nodes)), geomArg, bufArg(vals, device.Read), idxArg, vtxArg, bufArg(mh, device.Write)),
	}
	// The box passes run over the levels the tree has (the split passes,
	// before the count was known, over its bound).
	depth := 1
	for depth < levels && word(ctlLevels+depth-1) != 0 {
		depth++
	}
	for l := depth - 1; l >= 0; l-- {
		cmds = append(cmds, dispatch(lkBox, levelThreads, u32arg(uint32(l)), u32arg(uint32(nodes)),
			bufArg(ctl, device.Read), bufArg(info, device.Read), bufArg(mh, device.Read), bufArg(boxes, device.ReadWrite)))
	}
	cmds = append(cmds, &device.BufferUpload{Buffer: place, Data: binary.LittleEndian.AppendUint32(make([]byte, 4), 1)})
	for l := range depth {
		cmds = append(cmds, dispatch(lkPlace, levelThreads, u32arg(uint32(l)),
			bufArg(ctl, device.Read), bufArg(info, device.Read), bufArg(boxes, device.Read), bufArg(place, device.ReadWrite), bufArg(mh, device.ReadWrite)))
	}
	if err := d.dispatch(sh, &device.CommandList{Commands: cmds}); err != nil {
		_ = d.DestroyBuffer(mh)
		return err
	}
	var oldKeep *lbvhKeep
	if keep != nil {
		s.soft.RefitDevice(rootNode)
	} else {
		s.soft.BuildDevice(g, rootNode, size)
		if s.opt.AllowUpdate {
			// The buffers a refit needs stay with the mesh.
			nk := &lbvhKeep{cent: cent, ctl: ctl, vals: vals, info: info, boxes: boxes, place: place, nodes: nodes, depth: depth}
			kept = append(kept, &vals)
			var rest []temp
			for _, t := range temps {
				if slices.ContainsFunc(kept, func(h *device.Handle) bool { return *h == t.h }) {
					nk.bufs = append(nk.bufs, t)
				} else {
					rest = append(rest, t)
				}
			}
			temps = rest
			s.mu.Lock()
			oldKeep, s.lbvh = s.lbvh, nk
			s.mu.Unlock()
		} else {
			s.mu.Lock()
			oldKeep, s.lbvh = s.lbvh, nil
			s.mu.Unlock()
		}
	}
	s.mu.Lock()
	old, oldH := s.nodes, s.nodesHandle
	s.nodes, s.nodesHandle = mb, mh
	s.mu.Unlock()
	if oldKeep != nil {
		oldKeep.drop(d)
	}
	if old != nil {
		return d.DestroyBuffer(oldH)
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// fromOrdBits is the host's inverse of the kernels' ordBits.
func fromOrdBits(x uint32) float32 {
	if x>>31 == 1 {
		return math.Float32frombits(x ^ 0x80000000)
	}
	return math.Float32frombits(^x)
}
