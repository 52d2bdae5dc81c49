package vulkan

// Index checking for mesh builds. A driver builds a mesh from whatever its
// index buffer holds, and an index past the vertex count makes it read past
// the vertices: lavapipe faults (SIGSEGV) on the first such triangle. A
// triangle with a non-finite vertex is inactive by Vulkan's rules, but Mesa
// 25's lavapipe then loses every triangle of the mesh when it is the last
// one (a NaN or infinite bound). The indices and vertices live in device
// memory, written by earlier commands, so neither the validation wrapper
// nor the encoder can see them. Each mesh build therefore runs a lucent
// kernel first, on the device, that copies the triangles to a buffer of the
// mesh's, replacing every triangle with an index past the vertex count by
// (0, 0, 0) and every triangle with a vertex that is not finite by (k, k,
// k), k its first finite vertex (0 if it has none): degenerate triangles no
// ray hits. The build reads the copy. The cost is one dispatch, 12 bytes a
// triangle and a read of its vertices.

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// indexCheck is the device's index-checking kernel, made with its first mesh.
type indexCheck struct {
	once   sync.Once
	shader device.Handle
	err    error
}

// indexCheckKernel: thread i copies triangle i of src to dst, or writes
// (0, 0, 0) when one of its indices is above last, or (k, k, k) when one of
// its vertices (stride words apart in verts, the first three words of each
// a position) is not finite, k its first finite vertex (0 with none).
func indexCheckKernel() (*ir.Function, error) {
	return dsl.Kernel1D(64, func(k *dsl.K, last, stride dsl.U32, src, dst, verts dsl.BigBuf[dsl.U32]) {
		i := k.DispatchID().X().Mul(dsl.U(3))
		checkTriangle(i, src.Read(i), src.Read(i.Add(dsl.U(1))), src.Read(i.Add(dsl.U(2))), last, stride, dst, verts)
	}, "last", "stride", "src", "dst", "verts")
}

// index16CheckKernel is indexCheckKernel over 16-bit indices, two a word
// of src (the low half first); dst holds 32-bit ones.
func index16CheckKernel() (*ir.Function, error) {
	return dsl.Kernel1D(64, func(k *dsl.K, last, stride dsl.U32, src, dst, verts dsl.BigBuf[dsl.U32]) {
		i := k.DispatchID().X().Mul(dsl.U(3))
		at := func(e dsl.U32) dsl.U32 {
			return src.Read(e.Shr(dsl.U(1))).Shr(e.And(dsl.U(1)).Mul(dsl.U(16))).And(dsl.U(0xffff))
		}
		checkTriangle(i, at(i), at(i.Add(dsl.U(1))), at(i.Add(dsl.U(2))), last, stride, dst, verts)
	}, "last", "stride", "src", "dst", "verts")
}

// checkTriangle writes the checked triangle (a, b, c) to dst[i:i+3].
func checkTriangle(i, a, b, c, last, stride dsl.U32, dst, verts dsl.BigBuf[dsl.U32]) {
	ok := a.Le(last).And(b.Le(last)).And(c.Le(last))
	zero := dsl.U(0)
	exp := dsl.U(0x7f800000) // a float's exponent bits: all set for ±Inf and NaN
	finite := func(v dsl.U32) dsl.Bool {
		w := dsl.Select(ok, v, zero).Mul(stride)
		x, y, z := verts.Read(w), verts.Read(w.Add(dsl.U(1))), verts.Read(w.Add(dsl.U(2)))
		return x.And(exp).Ne(exp).And(y.And(exp).Ne(exp)).And(z.And(exp).Ne(exp))
	}
	fa, fb, fc := finite(a), finite(b), finite(c)
	all := ok.And(fa).And(fb).And(fc)
	k0 := dsl.Select(ok, dsl.Select(fa, a, dsl.Select(fb, b, dsl.Select(fc, c, zero))), zero)
	dst.Write(i, dsl.Select(all, a, k0))
	dst.Write(i.Add(dsl.U(1)), dsl.Select(all, b, k0))
	dst.Write(i.Add(dsl.U(2)), dsl.Select(all, c, k0))
}

// indexShader returns the index-checking shader of the format, compiling it
// the first time (outside any Dispatch: it registers a shader).
func (d *Device) indexShader(f device.IndexFormat) (device.Handle, error) {
	ic, make, name := &d.indexCheck, indexCheckKernel, "lucent: mesh index check"
	if f == device.IndexUint16 {
		ic, make, name = &d.index16Check, index16CheckKernel, "lucent: mesh index check (16-bit)"
	}
	ic.once.Do(func() {
		f, err := make()
		if err != nil {
			ic.err = err
			return
		}
		sig, _, err := device.KernelSignature(f)
		if err != nil {
			ic.err = err
			return
		}
		// The indices come in buffers of any element type (uint32 triples
		// through package accel, plain uint32 or bytes through the
		// contract): src's element size goes unchecked. Its element count
		// then counts bytes, a looser bound than the triangles the dispatch
		// size keeps every thread to.
		sig.Args[2].ElemSize = 0
		sig.Args[4].ElemSize = 0 // the vertices likewise
		ic.shader, _, ic.err = d.CreateShader(device.ShaderDesc{Kernel: f, Signature: &sig, Name: name})
	})
	if ic.err != nil {
		return 0, fmt.Errorf("vulkan: the mesh index check: %w", ic.err)
	}
	return ic.shader, nil
}

// checkedIndices dispatches the index check of a mesh build and returns the
// buffer the build reads its indices from.
func (e *encoder) checkedIndices(s *structure, t *accelTouch, g device.MeshGeometry) (*buffer, error) {
	d := e.d
	n := 12 * uint64(g.Triangles)
	if s.indices == nil || s.indices.desc.Size < n {
		raw, err := d.mem.newRawBuffer(n, placeDevice)
		if err != nil {
			return nil, fmt.Errorf("checked indices of %d bytes: %w", n, err)
		}
		b := &buffer{raw: raw, desc: device.BufferDesc{Size: n, ElemSize: 4}, d: d}
		if old := s.indices; old != nil {
			t.retired = append(t.retired, old.release)
		}
		t.made = append(t.made, b.release)
		s.indices = b
	}
	h := d.newHandle() // seen by this dispatch only
	e.hidden = map[device.Handle]*buffer{h: s.indices}
	defer func() { e.hidden = nil }()
	check := s.indexShader
	src := device.Arg{Kind: device.ArgBuffer, Handle: g.Indices, Offset: g.IndexOffset, Size: g.IndexBytes(), Access: device.Read}
	if g.IndexFormat == device.IndexUint16 {
		// 16-bit indices sit at any even offset, in a range of any even
		// size: copied first into whole words at offset 0 of a buffer of
		// the mesh's, the kernel reads them two a word.
		m := g.IndexBytes()
		w := (m + 3) &^ 3
		if s.indices16 == nil || s.indices16.desc.Size < w {
			raw, err := d.mem.newRawBuffer(w, placeDevice)
			if err != nil {
				return nil, fmt.Errorf("16-bit indices of %d bytes: %w", w, err)
			}
			b := &buffer{raw: raw, desc: device.BufferDesc{Size: w, ElemSize: 4}, d: d}
			if old := s.indices16; old != nil {
				t.retired = append(t.retired, old.release)
			}
			t.made = append(t.made, b.release)
			s.indices16 = b
		}
		ib, err := e.buffer(g.Indices)
		if err != nil {
			return nil, err
		}
		e.order(stageCopy, accessTransferWrite, use{ib, g.IndexOffset, g.IndexOffset + m, false}, use{s.indices16, 0, w, true})
		e.copyBuffer(ib.raw.handle, g.IndexOffset, s.indices16.raw.handle, 0, m)
		h16 := d.newHandle()
		e.hidden[h16] = s.indices16
		src = device.Arg{Kind: device.ArgBuffer, Handle: h16, Offset: 0, Size: w, Access: device.Read}
		check = s.index16Shader
	}
	var last, stride [4]byte
	binary.LittleEndian.PutUint32(last[:], g.VertexCount-1)
	binary.LittleEndian.PutUint32(stride[:], g.VertexStride/4)
	return s.indices, e.dispatch(&device.ShaderDispatch{
		Shader: check,
		Size:   [3]uint32{g.Triangles, 1, 1},
		Args: []device.Arg{
			{Kind: device.ArgUniform, Uniform: last[:]},
			{Kind: device.ArgUniform, Uniform: stride[:]},
			src,
			{Kind: device.ArgBuffer, Handle: h, Offset: 0, Size: n, Access: device.Write},
			{Kind: device.ArgBuffer, Handle: g.Vertices, Offset: g.VertexOffset, Size: uint64(g.VertexCount-1)*uint64(g.VertexStride) + 12, Access: device.Read},
		},
	})
}

// The boxes of a procedural build are copied the same way, by a kernel
// that replaces a box with a component that is not finite, or a min above
// its max, by the point box at (MaxFloat32, MaxFloat32, MaxFloat32), a
// valid box the driver builds and the kernels' ray queries, which read the
// copy to find where a ray enters a box, take as entered by no ray
// (codegen.NativeDeadBox): neither a hit nor a candidate. Vulkan makes a box
// with a NaN min x inactive and requires min ≤ max of the others; Mesa 25's
// lavapipe, given a NaN box as the last, lost every box of the procedural.

// farPoint is the bits of the replaced box's corners (codegen's
// NativeDeadBox, which native ray queries never enter).
var farPoint = math.Float32bits(codegen.NativeDeadBox)

// boxCheckKernel: thread i copies box i of src (six float32: min, max) to
// dst, or the point box at farPoint when it is not a box.
func boxCheckKernel() (*ir.Function, error) {
	return dsl.Kernel1D(64, func(k *dsl.K, src, dst dsl.BigBuf[dsl.U32]) {
		i := k.DispatchID().X().Mul(dsl.U(6))
		exp := dsl.U(0x7f800000)
		var w [6]dsl.U32
		ok := dsl.B(true)
		for j := range w {
			w[j] = src.Read(i.Add(dsl.U(uint32(j))))
			ok = ok.And(w[j].And(exp).Ne(exp))
		}
		for j := range 3 {
			ok = ok.And(dsl.Bitcast[float32](w[j]).Le(dsl.Bitcast[float32](w[j+3])))
		}
		for j := range w {
			dst.Write(i.Add(dsl.U(uint32(j))), dsl.Select(ok, w[j], dsl.U(farPoint)))
		}
	}, "src", "dst")
}

// boxShader returns the box-checking shader, compiling it the first time.
func (d *Device) boxShader() (device.Handle, error) {
	d.boxCheck.once.Do(func() {
		f, err := boxCheckKernel()
		if err != nil {
			d.boxCheck.err = err
			return
		}
		sig, _, err := device.KernelSignature(f)
		if err != nil {
			d.boxCheck.err = err
			return
		}
		sig.Args[0].ElemSize = 0 // boxes come in buffers of any element type
		d.boxCheck.shader, _, d.boxCheck.err = d.CreateShader(device.ShaderDesc{Kernel: f, Signature: &sig, Name: "lucent: procedural box check"})
	})
	if d.boxCheck.err != nil {
		return 0, fmt.Errorf("vulkan: the procedural box check: %w", d.boxCheck.err)
	}
	return d.boxCheck.shader, nil
}

// checkedBoxes dispatches the box check of a procedural build from
// count boxes at off of buffer src into dst.
func (e *encoder) checkedBoxes(s *structure, src device.Handle, off uint64, count uint32, dst *buffer) error {
	h := e.d.newHandle() // seen by this dispatch only
	e.hidden = map[device.Handle]*buffer{h: dst}
	defer func() { e.hidden = nil }()
	n := 24 * uint64(count)
	return e.dispatch(&device.ShaderDispatch{
		Shader: s.indexShader,
		Size:   [3]uint32{count, 1, 1},
		Args: []device.Arg{
			{Kind: device.ArgBuffer, Handle: src, Offset: off, Size: n, Access: device.Read},
			{Kind: device.ArgBuffer, Handle: h, Offset: 0, Size: n, Access: device.Write},
		},
	})
}
