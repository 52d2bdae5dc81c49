package ir

// VarKind says where a variable lives.
type VarKind uint8

// Variable kinds.
const (
	VarLocal    VarKind = iota // function-local, mutable
	VarParam                   // callable parameter passed by value (read-only)
	VarRefParam                // callable parameter passed by reference (mutable)
	VarArg                     // kernel argument: a resource or a uniform value
	VarShared                  // workgroup-shared
	VarBuiltin                 // a built-in variable (read-only)
)

// BuiltinVar names a built-in variable.
type BuiltinVar uint8

// Built-in variables.
const (
	ThreadID       BuiltinVar = iota + 1 // vec3<u32>: id inside the block
	BlockID                              // vec3<u32>: id of the block in the whole dispatch
	DispatchID                           // vec3<u32>: global thread id
	DispatchSize                         // vec3<u32>: threads asked for (launched, in an indirect dispatch)
	BlockSize                            // vec3<u32>: threads per block
	SubgroupLane                         // u32
	SubgroupSize                         // u32
	DispatchGroups                       // vec3<u32>: blocks launched

	lastBuiltin = DispatchGroups // the highest BuiltinVar
)

var builtinVarNames = [...]string{"", "thread_id", "block_id", "dispatch_id", "dispatch_size", "block_size", "subgroup_lane", "subgroup_size", "dispatch_groups"}

func (b BuiltinVar) String() string { return builtinVarNames[b] }

// Type is the built-in variable's type.
func (b BuiltinVar) Type() *Type {
	if b == SubgroupLane || b == SubgroupSize {
		return TU32
	}
	return Vector(TU32, 3)
}

// Var is a variable: a local, a parameter, a kernel argument, a shared
// variable or a built-in.
type Var struct {
	Name    string
	Type    *Type
	Kind    VarKind
	Builtin BuiltinVar // for VarBuiltin
	// Capture, for a kernel argument created by capturing a host resource or
	// value, holds that host value; the runtime passes it implicitly.
	Capture any
	// Pos is where source code declared the variable ("file:line:col"),
	// when a compiler from source made it; errors about it name it. It
	// takes no part in the kernel's Hash.
	Pos string
}

// FuncKind tells kernels from callables.
type FuncKind uint8

// Function kinds.
const (
	KernelFunc FuncKind = iota
	CallableFunc
)

// Function is a kernel (an entry point run over a 1–3 D grid) or a callable
// (a function called from kernels and callables).
type Function struct {
	Name      string
	Kind      FuncKind
	Dim       int       // kernels: 1, 2 or 3
	BlockSize [3]uint32 // kernels: threads per block
	Params    []*Var    // kernels: VarArg; callables: VarParam or VarRefParam
	Result    *Type     // callables: TVoid or a value type
	Body      *Block
	Locals    []*Var
	Shared    []*Var // kernels: workgroup-shared variables
	// Pos is where source code declared the function ("file:line:col"),
	// when a compiler from source made it; errors about it name it. It
	// takes no part in the kernel's Hash.
	Pos string
}

// NewKernel starts an empty kernel of dim dimensions with the given block size.
func NewKernel(name string, dim int, block [3]uint32) *Function {
	return &Function{Name: name, Kind: KernelFunc, Dim: dim, BlockSize: block, Result: TVoid, Body: &Block{}}
}

// NewCallable starts an empty callable.
func NewCallable(name string, result *Type) *Function {
	return &Function{Name: name, Kind: CallableFunc, Result: result, Body: &Block{}}
}

// AddParam appends a parameter (kernel argument or callable parameter).
func (f *Function) AddParam(name string, t *Type, kind VarKind) *Var {
	v := &Var{Name: name, Type: t, Kind: kind}
	f.Params = append(f.Params, v)
	return v
}

// AddLocal declares a function-local variable.
func (f *Function) AddLocal(name string, t *Type) *Var {
	v := &Var{Name: name, Type: t, Kind: VarLocal}
	f.Locals = append(f.Locals, v)
	return v
}

// AddShared declares a workgroup-shared variable (kernels only).
func (f *Function) AddShared(name string, t *Type) *Var {
	v := &Var{Name: name, Type: t, Kind: VarShared}
	f.Shared = append(f.Shared, v)
	return v
}

// Callees lists the callables f calls, directly or not, callees first
// (each once). A recursive call is reported as an error by Validate.
func (f *Function) Callees() []*Function {
	var out []*Function
	seen := map[*Function]bool{f: true}
	var visit func(g *Function)
	visit = func(g *Function) {
		WalkExprs(g, func(e Expr) {
			if c, ok := e.(*Call); ok && c.Func != nil && !seen[c.Func] {
				seen[c.Func] = true
				visit(c.Func)
				out = append(out, c.Func)
			}
		})
	}
	visit(f)
	return out
}

// Access reports whether kernel f, or a callable it reaches, reads and
// writes resource argument v (atomics count as both), for the runtime's
// automatic barriers. A store's place (b[i] = x, b[i].f = x) is a write
// only, and a buffer's length is no read of its elements.
func (f *Function) Access(v *Var) (read, write bool) {
	for _, g := range append([]*Function{f}, f.Callees()...) {
		r, w := g.access(v)
		read, write = read || r, write || w
	}
	return read, write
}

func (f *Function) access(v *Var) (read, write bool) {
	mark := func(e Expr, w bool) {
		if r := PlaceRoot(e); r == v {
			if w {
				write = true
			} else {
				read = true
			}
		}
	}
	// stored counts the times each element place is a store's destination:
	// an Index visited no more often than that is not read (one node can
	// stand for both sides of b[i] = b[i] + 1, and is then visited again).
	stored := map[*Index]int{}
	var place func(e Expr)
	place = func(e Expr) {
		switch x := e.(type) {
		case *Index:
			stored[x]++
			place(x.X)
		case *Member:
			place(x.X)
		}
	}
	var stmts func(b *Block)
	stmts = func(b *Block) {
		if b == nil {
			return
		}
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *Assign:
				mark(s.Dst, true)
				place(s.Dst)
			case *Block:
				stmts(s)
			case *If:
				stmts(s.Then)
				stmts(s.Else)
			case *Loop:
				stmts(s.Body)
			case *RayQuery:
				mark(s.Result, true)
				place(s.Result)
				stmts(s.Body)
			case *For:
				stmts(s.Body)
				stmts(s.Update)
			case *Switch:
				for _, c := range s.Cases {
					stmts(c.Body)
				}
				stmts(s.Default)
			}
		}
	}
	stmts(f.Body)
	WalkExprs(f, func(e Expr) {
		switch e := e.(type) {
		case *Index:
			if stored[e] > 0 {
				stored[e]--
				return
			}
			mark(e, false)
		case *Call:
			switch {
			case e.Op >= OpAtomicExchange && e.Op <= OpAtomicMax:
				mark(e.Args[0], true)
				mark(e.Args[0], false)
			case e.Op == OpTextureWrite:
				mark(e.Args[0], true)
			case e.Op == OpTextureRead || e.Op == OpTextureSample || e.Op >= OpBindlessRead && e.Op <= OpBindlessSize,
				e.Op >= OpBindlessTexRead && e.Op <= OpBindlessTexSize:
				mark(e.Args[0], false)
			}
		}
	})
	return read, write
}

// UsesBarrier reports whether kernel f (or a callable it reaches) has a
// workgroup barrier: it must then run in whole blocks, since threads past
// dispatch_size return early and would miss the barrier (kernel ABI v1).
func (f *Function) UsesBarrier() bool {
	found := false
	visit := func(g *Function) {
		WalkExprs(g, func(e Expr) {
			if c, ok := e.(*Call); ok && c.Func == nil && c.Op == OpBarrier {
				found = true
			}
		})
	}
	visit(f)
	for _, g := range f.Callees() {
		visit(g)
	}
	return found
}
