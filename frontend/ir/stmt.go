package ir

// Stmt is a statement node.
type Stmt interface{ stmtNode() }

// Block is a sequence of statements.
type Block struct{ Stmts []Stmt }

// If runs Then when Cond holds, else Else (which may be nil).
type If struct {
	Cond       Expr
	Then, Else *Block
	Pos        string // source position (StmtPos)
}

// Loop repeats Body until a Break (or Return).
type Loop struct{ Body *Block }

// For is `for ; Cond; Update { Body }`: Cond is tested before each
// iteration, Update runs after Body and after each Continue.
type For struct {
	Cond   Expr
	Update *Block
	Body   *Block
	Pos    string // source position (StmtPos)
}

// Case is one arm of a Switch: the body runs for any of Values. Arms do not
// fall through.
type Case struct {
	Values []int64
	Body   *Block
}

// Switch branches on an integer Tag; Default (may be nil) runs when no case
// matches. A Break inside a case leaves the switch.
type Switch struct {
	Tag     Expr
	Cases   []Case
	Default *Block
	Pos     string // source position (StmtPos)
}

// Break leaves the innermost loop or switch.
type Break struct{}

// Continue starts the innermost loop's next iteration.
type Continue struct{}

// Return leaves the function, with Value for callables that return one.
type Return struct {
	Value Expr
	Pos   string // source position (StmtPos)
}

// Assign stores Src into the place Dst (a variable, or a member, swizzle-free
// index chain rooted at one).
type Assign struct {
	Dst, Src Expr
	Pos      string // source position (StmtPos)
}

// ExprStmt evaluates X for its effects (a call).
type ExprStmt struct {
	X   Expr
	Pos string // source position (StmtPos)
}

// Comment is carried into the output as an OpName-free note for dumps; it
// does not change the program.
type Comment struct{ Text string }

// Assert states that Cond (a bool) holds (kernel.Assert in the Go subset,
// K.Assert in the DSL). Code compiled in the checked mode records a fault
// with Msg where it does not; elsewhere it costs nothing (it is not
// emitted, and Cond is not evaluated). Cond must have no effects.
type Assert struct {
	Cond Expr
	Msg  string
	Pos  string // source position (StmtPos)
}

// MaxAssertMsg bounds the length of an Assert's message.
const MaxAssertMsg = 1024

func (*Assert) stmtNode()   {}
func (*Block) stmtNode()    {}
func (*If) stmtNode()       {}
func (*Loop) stmtNode()     {}
func (*For) stmtNode()      {}
func (*Switch) stmtNode()   {}
func (*Break) stmtNode()    {}
func (*Continue) stmtNode() {}
func (*Return) stmtNode()   {}
func (*Assign) stmtNode()   {}
func (*ExprStmt) stmtNode() {}
func (*Comment) stmtNode()  {}

// StmtPos is the source position of statement s ("file:line:col" for Go
// kernels, "file:line" of the builder's call for DSL kernels), or "" where
// none was given. The statements that evaluate expressions (If, For,
// Switch, Return, Assign, ExprStmt, Print, Assert) carry one; a fault of the
// checked mode names the position of the statement it happened in.
// Positions take no part in Hash: moving a statement to another line does
// not change the kernel.
func StmtPos(s Stmt) string {
	if p := posOf(s); p != nil {
		return *p
	}
	return ""
}

// SetStmtPos sets the position of s if s carries one and has none yet (a
// front end sets positions as it emits statements; an inner one's stays).
func SetStmtPos(s Stmt, pos string) {
	if p := posOf(s); p != nil && *p == "" {
		*p = pos
	}
}

// StmtPosRef is the field holding statement s's position, or nil where s
// carries none: for tools that rewrite positions (a generated launcher cuts
// them to the file's name, so it is the same on every machine).
func StmtPosRef(s Stmt) *string { return posOf(s) }

func posOf(s Stmt) *string {
	switch s := s.(type) {
	case *If:
		return &s.Pos
	case *For:
		return &s.Pos
	case *Switch:
		return &s.Pos
	case *Return:
		return &s.Pos
	case *Assign:
		return &s.Pos
	case *ExprStmt:
		return &s.Pos
	case *Print:
		return &s.Pos
	case *Assert:
		return &s.Pos
	}
	return nil
}

// Sites lists the statements of kernel f and of the callables it reaches
// that carry a position (StmtPos), f's first, then each callable's in
// Callees order, each in WalkStmts order. A statement's index here is its
// site: the checked mode's fault records name the statement by its site,
// and the host looks the position up (SitePositions). The numbering
// depends only on the kernel's structure, as Hash does, so code cached
// under a Hash names the right statements of a kernel whose positions
// moved.
func (f *Function) Sites() []Stmt {
	var out []Stmt
	visit := func(g *Function) {
		WalkStmts(g.Body, func(s Stmt) {
			if posOf(s) != nil {
				out = append(out, s)
			}
		})
	}
	visit(f)
	for _, g := range f.Callees() {
		visit(g)
	}
	return out
}

// Asserts lists the Assert statements of kernel f and the callables it
// reaches, in Sites order: a checked kernel's assertion fault names its
// assertion by its index here.
func (f *Function) Asserts() []*Assert {
	var out []*Assert
	for _, s := range f.Sites() {
		if a, ok := s.(*Assert); ok {
			out = append(out, a)
		}
	}
	return out
}

// SitePositions is the position of each site of f (Sites), by site;
// nil when no statement has a position.
func (f *Function) SitePositions() []string {
	sites := f.Sites()
	out := make([]string, len(sites))
	any := false
	for i, s := range sites {
		out[i] = StmtPos(s)
		any = any || out[i] != ""
	}
	if !any {
		return nil
	}
	return out
}

// PlaceName names place e as a checked kernel's faults do: "variable a3",
// "shared variable tile", with the variable's position in parentheses
// where it has one; "value" when e is not a place.
func PlaceName(e Expr) string {
	v := PlaceRoot(e)
	if v == nil {
		return "value"
	}
	kind := "variable"
	if v.Kind == VarShared {
		kind = "shared variable"
	}
	s := kind + " " + v.Name
	if v.Pos != "" {
		s += " (" + v.Pos + ")"
	}
	return s
}

// IndexName names what index expression e (of an array, vector or matrix,
// not a buffer) indexes, as a checked kernel's fault does: the place
// (PlaceName) where e.X is one, else "index of" its type.
func IndexName(e *Index) string {
	if IsPlace(e.X) {
		return PlaceName(e.X)
	}
	return "index of " + e.X.Type().String()
}

// IndexNames lists the distinct IndexName of the index expressions of
// arrays, vectors and matrices in kernel f and the callables it reaches, in
// walk order (WalkExprs, the kernel first), and where each expression's
// name is in the list: a checked kernel's index fault names its place by
// that position.
func (f *Function) IndexNames() (names []string, of map[*Index]int) {
	of = map[*Index]int{}
	at := map[string]int{}
	visit := func(g *Function) {
		WalkExprs(g, func(e Expr) {
			x, ok := e.(*Index)
			if !ok || x.X.Type().Kind() == KindBuffer {
				return
			}
			if _, seen := of[x]; seen {
				return
			}
			name := IndexName(x)
			k, ok := at[name]
			if !ok {
				k = len(names)
				at[name] = k
				names = append(names, name)
			}
			of[x] = k
		})
	}
	visit(f)
	for _, g := range f.Callees() {
		visit(g)
	}
	return names, of
}
