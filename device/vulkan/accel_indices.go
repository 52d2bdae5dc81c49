package vulkan

// Index checking for mesh builds. A driver builds a mesh from whatever its
// index buffer holds, and an index past the vertex count makes it read past
// the vertices: lavapipe faults (SIGSEGV) on the first such triangle. The
// indices live in device memory, written by earlier commands, so neither the
// validation wrapper nor the encoder can see them. Each mesh build therefore
// runs a lucent kernel first, on the device, that copies the triangles to a
// buffer of the mesh's and replaces every triangle with an index past the
// vertex count by (0, 0, 0), a degenerate triangle no ray hits; the build
// reads the copy. The cost is one dispatch and 12 bytes a triangle.

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/lucent-gpu/lucent/device"
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
// (0, 0, 0) when one of its indices is above last.
func indexCheckKernel() (*ir.Function, error) {
	return dsl.Kernel1D(64, func(k *dsl.K, last dsl.U32, src, dst dsl.BigBuf[dsl.U32]) {
		i := k.DispatchID().X().Mul(dsl.U(3))
		a, b, c := src.Read(i), src.Read(i.Add(dsl.U(1))), src.Read(i.Add(dsl.U(2)))
		ok := a.Le(last).And(b.Le(last)).And(c.Le(last))
		zero := dsl.U(0)
		dst.Write(i, dsl.Select(ok, a, zero))
		dst.Write(i.Add(dsl.U(1)), dsl.Select(ok, b, zero))
		dst.Write(i.Add(dsl.U(2)), dsl.Select(ok, c, zero))
	}, "last", "src", "dst")
}

// indexShader returns the index-checking shader, compiling it the first
// time (outside any Dispatch: it registers a shader).
func (d *Device) indexShader() (device.Handle, error) {
	d.indexCheck.once.Do(func() {
		f, err := indexCheckKernel()
		if err != nil {
			d.indexCheck.err = err
			return
		}
		sig, _, err := device.KernelSignature(f)
		if err != nil {
			d.indexCheck.err = err
			return
		}
		// The indices come in buffers of any element type (uint32 triples
		// through package accel, plain uint32 or bytes through the
		// contract): src's element size goes unchecked. Its element count
		// then counts bytes, a looser bound than the triangles the dispatch
		// size keeps every thread to.
		sig.Args[1].ElemSize = 0
		d.indexCheck.shader, _, d.indexCheck.err = d.CreateShader(device.ShaderDesc{Kernel: f, Signature: &sig, Name: "lucent: mesh index check"})
	})
	if d.indexCheck.err != nil {
		return 0, fmt.Errorf("vulkan: the mesh index check: %w", d.indexCheck.err)
	}
	return d.indexCheck.shader, nil
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
	var last [4]byte
	binary.LittleEndian.PutUint32(last[:], g.VertexCount-1)
	return s.indices, e.dispatch(&device.ShaderDispatch{
		Shader: s.indexShader,
		Size:   [3]uint32{g.Triangles, 1, 1},
		Args: []device.Arg{
			{Kind: device.ArgUniform, Uniform: last[:]},
			{Kind: device.ArgBuffer, Handle: g.Indices, Offset: g.IndexOffset, Size: n, Access: device.Read},
			{Kind: device.ArgBuffer, Handle: h, Offset: 0, Size: n, Access: device.Write},
		},
	})
}
