package frontend

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
	return F32x4{t.a.call(OpBindlessTexRead, Vector(TF32, 4), t.slot.Expr(), xy.Expr())}
}

// Size is the texture's extent ((0, 0) for an empty slot).
func (t BindlessTex2D) Size() U32x2 {
	return U32x2{t.a.call(OpBindlessTexSize, Vector(TU32, 2), t.slot.Expr())}
}

// Sample filters at normalised coordinates uv with the slot's sampler: point
// or bilinear (linear filters use level 0), and the sampler's address mode.
func (t BindlessTex2D) Sample(uv F32x2) F32x4 {
	return F32x4{t.a.call(OpBindlessTexSample, Vector(TF32, 4), t.slot.Expr(), uv.Expr())}
}

// bindlessTexType type-checks the bindless texture built-ins.
func bindlessTexType(op Op, args []Expr) (*Type, error) {
	k := 3
	if op == OpBindlessTexSize {
		k = 2
	}
	if len(args) != k {
		return nil, mismatch(op, "takes %d operands, got %d", k, len(args))
	}
	if args[0].Type() != Bindless || args[1].Type() != TU32 {
		return nil, mismatch(op, "operands are %s, %s; want bindless, u32", args[0].Type(), args[1].Type())
	}
	switch op {
	case OpBindlessTexSize:
		return Vector(TU32, 2), nil
	case OpBindlessTexRead:
		if c := Vector(TU32, 2); args[2].Type() != c {
			return nil, mismatch(op, "coordinate is %s, want %s", args[2].Type(), c)
		}
	default:
		if c := Vector(TF32, 2); args[2].Type() != c {
			return nil, mismatch(op, "coordinate is %s, want %s", args[2].Type(), c)
		}
	}
	return Vector(TF32, 4), nil
}

// BindlessTextureArgs lists, in parameter order, the bindless-array
// arguments of kernel f whose texture slots f (or a callable it reaches)
// reads, samples or sizes. With Options.NativeBindlessTextures the i-th of
// them has its texture descriptors in descriptor set 1+i (kernel ABI v1).
func (f *Function) BindlessTextureArgs() []*Var {
	used := map[*Var]bool{}
	visit := func(g *Function) {
		WalkExprs(g, func(e Expr) {
			if c, ok := e.(*Call); ok && c.Func == nil && c.Op >= OpBindlessTexRead && c.Op <= OpBindlessTexSize {
				if r, ok := c.Args[0].(*Ref); ok {
					used[r.Var] = true
				}
			}
		})
	}
	visit(f)
	for _, g := range f.Callees() {
		visit(g)
	}
	var out []*Var
	for _, p := range f.Params {
		if p.Type == Bindless && used[p] {
			out = append(out, p)
		}
	}
	return out
}
