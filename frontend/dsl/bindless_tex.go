package dsl

import "github.com/lucent-gpu/lucent/frontend/ir"

// Bindless 2D textures: a slot of a BindlessArray holding a texture and its
// sampler. On devices without descriptor indexing (kernel ABI v1, emulated
// bindless) the slot record points at a linear mirror of the texture's level
// 0, and reads, size queries and sampling are emulated in code from the
// record's extent, format and sampler (see emit_bindless_tex.go and
// RATIONALE.md (bindless)).

// BindlessTex2D is the 2D texture in one slot of a bindless array.
type BindlessTex2D struct {
	a    BindlessArray
	slot U32
}

// Texture2D is the 2D texture (with its sampler) in slot.
func (a BindlessArray) Texture2D(slot U32) BindlessTex2D { return BindlessTex2D{a: a, slot: slot} }

// Read loads the texel at integer coordinates as RGBA (missing channels read
// as 0, alpha as 1); zero outside the texture or for an empty slot.
func (t BindlessTex2D) Read(xy U32x2) F32x4 {
	return F32x4{t.a.call(ir.OpBindlessTexRead, ir.Vector(ir.TF32, 4), t.slot.Expr(), xy.Expr())}
}

// Size is the texture's extent ((0, 0) for an empty slot).
func (t BindlessTex2D) Size() U32x2 {
	return U32x2{t.a.call(ir.OpBindlessTexSize, ir.Vector(ir.TU32, 2), t.slot.Expr())}
}

// Sample filters at normalised coordinates uv with the slot's sampler: point
// or bilinear (linear filters use level 0), and the sampler's address mode.
func (t BindlessTex2D) Sample(uv F32x2) F32x4 {
	return F32x4{t.a.call(ir.OpBindlessTexSample, ir.Vector(ir.TF32, 4), t.slot.Expr(), uv.Expr())}
}
