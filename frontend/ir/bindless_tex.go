package ir

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
