package dsl

import "github.com/lucent-gpu/lucent/frontend/ir"

// Storage textures of every texel format the IR has (ir.TexelFormat), as
// kernel and callable parameters. Float formats read and write as F32x4
// (Tex2D's and Tex3D's methods, with Sample); integer formats as U32x4 or
// I32x4, by the integer methods below. One-channel formats (r32f, r32ui,
// r32i) hold x: reads give (x, 0, 0, 1), writes store x. The Go frontend
// declares the same formats with `format=param:…` in its directive.

// Tex2DRGBA16F is a 2D RGBA16F texture argument (texels read as F32x4).
type Tex2DRGBA16F struct{ Tex2D }

// Tex2DR32F is a 2D R32F texture argument (the texel's x).
type Tex2DR32F struct{ Tex2D }

// Tex3DRGBA16F is a 3D RGBA16F texture argument.
type Tex3DRGBA16F struct{ Tex3D }

// Tex3DRGBA8 is a 3D RGBA8 (unorm) texture argument.
type Tex3DRGBA8 struct{ Tex3D }

// Tex3DR32F is a 3D R32F texture argument.
type Tex3DR32F struct{ Tex3D }

func (Tex2DRGBA16F) paramType() (*ir.Type, error) { return ir.TextureOf(2, ir.FormatRGBA16F), nil }
func (Tex2DRGBA16F) bind(k *K, v *ir.Var) any     { return Tex2DRGBA16F{Tex2D{k: k, v: v}} }
func (Tex2DR32F) paramType() (*ir.Type, error)    { return ir.TextureOf(2, ir.FormatR32F), nil }
func (Tex2DR32F) bind(k *K, v *ir.Var) any        { return Tex2DR32F{Tex2D{k: k, v: v}} }
func (Tex3DRGBA16F) paramType() (*ir.Type, error) { return ir.TextureOf(3, ir.FormatRGBA16F), nil }
func (Tex3DRGBA16F) bind(k *K, v *ir.Var) any     { return Tex3DRGBA16F{Tex3D{k: k, v: v}} }
func (Tex3DRGBA8) paramType() (*ir.Type, error)   { return ir.TextureOf(3, ir.FormatRGBA8), nil }
func (Tex3DRGBA8) bind(k *K, v *ir.Var) any       { return Tex3DRGBA8{Tex3D{k: k, v: v}} }
func (Tex3DR32F) paramType() (*ir.Type, error)    { return ir.TextureOf(3, ir.FormatR32F), nil }
func (Tex3DR32F) bind(k *K, v *ir.Var) any        { return Tex3DR32F{Tex3D{k: k, v: v}} }

// IntTex2D is a 2D texture argument of an integer format whose texels read
// and write as Vec4[E]: the core of Tex2DRGBA32UI, Tex2DR32UI,
// Tex2DRGBA32I and Tex2DR32I.
type IntTex2D[E int32 | uint32] struct {
	k *K
	v *ir.Var
}

// IntTex3D is IntTex2D in three dimensions.
type IntTex3D[E int32 | uint32] struct {
	k *K
	v *ir.Var
}

// Tex2DRGBA32UI is a 2D RGBA32UI texture argument (texels read as U32x4).
type Tex2DRGBA32UI struct{ IntTex2D[uint32] }

// Tex2DR32UI is a 2D R32UI texture argument (the texel's x).
type Tex2DR32UI struct{ IntTex2D[uint32] }

// Tex2DRGBA32I is a 2D RGBA32I texture argument (texels read as I32x4).
type Tex2DRGBA32I struct{ IntTex2D[int32] }

// Tex2DR32I is a 2D R32I texture argument (the texel's x).
type Tex2DR32I struct{ IntTex2D[int32] }

// Tex3DRGBA32UI is a 3D RGBA32UI texture argument.
type Tex3DRGBA32UI struct{ IntTex3D[uint32] }

// Tex3DR32UI is a 3D R32UI texture argument.
type Tex3DR32UI struct{ IntTex3D[uint32] }

// Tex3DRGBA32I is a 3D RGBA32I texture argument.
type Tex3DRGBA32I struct{ IntTex3D[int32] }

// Tex3DR32I is a 3D R32I texture argument.
type Tex3DR32I struct{ IntTex3D[int32] }

func (Tex2DRGBA32UI) paramType() (*ir.Type, error) { return ir.TextureOf(2, ir.FormatRGBA32UI), nil }
func (Tex2DRGBA32UI) bind(k *K, v *ir.Var) any     { return Tex2DRGBA32UI{IntTex2D[uint32]{k, v}} }
func (Tex2DR32UI) paramType() (*ir.Type, error)    { return ir.TextureOf(2, ir.FormatR32UI), nil }
func (Tex2DR32UI) bind(k *K, v *ir.Var) any        { return Tex2DR32UI{IntTex2D[uint32]{k, v}} }
func (Tex2DRGBA32I) paramType() (*ir.Type, error)  { return ir.TextureOf(2, ir.FormatRGBA32I), nil }
func (Tex2DRGBA32I) bind(k *K, v *ir.Var) any      { return Tex2DRGBA32I{IntTex2D[int32]{k, v}} }
func (Tex2DR32I) paramType() (*ir.Type, error)     { return ir.TextureOf(2, ir.FormatR32I), nil }
func (Tex2DR32I) bind(k *K, v *ir.Var) any         { return Tex2DR32I{IntTex2D[int32]{k, v}} }
func (Tex3DRGBA32UI) paramType() (*ir.Type, error) { return ir.TextureOf(3, ir.FormatRGBA32UI), nil }
func (Tex3DRGBA32UI) bind(k *K, v *ir.Var) any     { return Tex3DRGBA32UI{IntTex3D[uint32]{k, v}} }
func (Tex3DR32UI) paramType() (*ir.Type, error)    { return ir.TextureOf(3, ir.FormatR32UI), nil }
func (Tex3DR32UI) bind(k *K, v *ir.Var) any        { return Tex3DR32UI{IntTex3D[uint32]{k, v}} }
func (Tex3DRGBA32I) paramType() (*ir.Type, error)  { return ir.TextureOf(3, ir.FormatRGBA32I), nil }
func (Tex3DRGBA32I) bind(k *K, v *ir.Var) any      { return Tex3DRGBA32I{IntTex3D[int32]{k, v}} }
func (Tex3DR32I) paramType() (*ir.Type, error)     { return ir.TextureOf(3, ir.FormatR32I), nil }
func (Tex3DR32I) bind(k *K, v *ir.Var) any         { return Tex3DR32I{IntTex3D[int32]{k, v}} }

func (t IntTex2D[E]) call(op ir.Op, args ...ir.Expr) ir.Expr {
	return Tex2D{t.k, t.v}.call(op, args...)
}
func (t IntTex3D[E]) call(op ir.Op, args ...ir.Expr) ir.Expr {
	return Tex2D{t.k, t.v}.call(op, args...)
}

// Read loads the texel at integer coordinates.
func (t IntTex2D[E]) Read(xy U32x2) Vec4[E] { return Vec4[E]{t.call(ir.OpTextureRead, xy.Expr())} }

// Write stores a texel.
func (t IntTex2D[E]) Write(xy U32x2, v Vec4[E]) { t.call(ir.OpTextureWrite, xy.Expr(), v.Expr()) }

// Size is the texture's extent.
func (t IntTex2D[E]) Size() U32x2 { return U32x2{t.call(ir.OpTextureSize)} }

// Read loads the texel at integer coordinates.
func (t IntTex3D[E]) Read(xyz U32x3) Vec4[E] { return Vec4[E]{t.call(ir.OpTextureRead, xyz.Expr())} }

// Write stores a texel.
func (t IntTex3D[E]) Write(xyz U32x3, v Vec4[E]) { t.call(ir.OpTextureWrite, xyz.Expr(), v.Expr()) }

// Size is the texture's extent.
func (t IntTex3D[E]) Size() U32x3 { return U32x3{t.call(ir.OpTextureSize)} }

func (t IntTex2D[E]) resource() (*K, *ir.Var) { return t.k, t.v }
func (t IntTex3D[E]) resource() (*K, *ir.Var) { return t.k, t.v }
