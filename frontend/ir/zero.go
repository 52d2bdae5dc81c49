package ir

// ZeroLoopLen is the longest array ZeroInit zeroes by one whole-array store;
// longer ones are zeroed by a loop over their elements, which drivers compile
// in time independent of the length (a whole [1024]uint8 store costs lavapipe
// 0.17 s, the loop about 1 ms).
const ZeroLoopLen = 64

// Zero is the zero value of t. An array's is one element repeated, so the
// AST stays the size of the element's.
func Zero(t *Type) Expr {
	switch t.Kind() {
	case KindBool:
		return LitBool(false)
	case KindInt, KindUint:
		return LitInt(t, 0)
	case KindFloat:
		return LitFloat(t, 0)
	case KindVector, KindArray:
		return &Construct{T: t, Args: []Expr{Zero(t.Elem())}}
	case KindMatrix:
		args := make([]Expr, t.Len())
		for i := range args {
			args[i] = Zero(t.Elem())
		}
		return &Construct{T: t, Args: args}
	case KindStruct:
		var args []Expr
		for _, f := range t.Fields() {
			args = append(args, Zero(f.Type))
		}
		return &Construct{T: t, Args: args}
	}
	return LitInt(TI32, 0)
}

// ZeroInit returns the statements storing the zero value of t in the place
// dst: one store, or, for the arrays in t longer than ZeroLoopLen, a loop
// over their elements (its counter a new local of f). Locals start undefined
// in SPIR-V; both frontends zero them where they are declared with this.
func ZeroInit(f *Function, dst Expr, t *Type) []Stmt {
	var out []Stmt
	zeroInit(f, &out, dst, t)
	return out
}

func zeroInit(f *Function, out *[]Stmt, dst Expr, t *Type) {
	switch {
	case !longArray(t):
		*out = append(*out, &Assign{Dst: dst, Src: Zero(t)})
	case t.Kind() == KindStruct:
		for i, fd := range t.Fields() {
			zeroInit(f, out, &Member{X: dst, Field: i, T: fd.Type}, fd.Type)
		}
	default: // an array
		i := f.AddLocal("zi", TU32)
		*out = append(*out, &Assign{Dst: &Ref{Var: i}, Src: LitInt(TU32, 0)})
		body := &Block{}
		zeroInit(f, &body.Stmts, &Index{X: dst, I: &Ref{Var: i}, T: t.Elem()}, t.Elem())
		next := &Binary{Op: Add, X: &Ref{Var: i}, Y: LitInt(TU32, 1), T: TU32}
		*out = append(*out, &For{
			Cond:   &Binary{Op: Lt, X: &Ref{Var: i}, Y: LitInt(TU32, int64(t.Len())), T: TBool},
			Body:   body,
			Update: &Block{Stmts: []Stmt{&Assign{Dst: &Ref{Var: i}, Src: next}}},
		})
	}
}

// longArray reports whether t holds an array longer than ZeroLoopLen.
func longArray(t *Type) bool {
	switch t.Kind() {
	case KindArray:
		return t.Len() > ZeroLoopLen || longArray(t.Elem())
	case KindStruct:
		for _, f := range t.Fields() {
			if longArray(f.Type) {
				return true
			}
		}
	}
	return false
}
