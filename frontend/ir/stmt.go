package ir

// Stmt is a statement node.
type Stmt interface{ stmtNode() }

// Block is a sequence of statements.
type Block struct{ Stmts []Stmt }

// If runs Then when Cond holds, else Else (which may be nil).
type If struct {
	Cond       Expr
	Then, Else *Block
}

// Loop repeats Body until a Break (or Return).
type Loop struct{ Body *Block }

// For is `for ; Cond; Update { Body }`: Cond is tested before each
// iteration, Update runs after Body and after each Continue.
type For struct {
	Cond   Expr
	Update *Block
	Body   *Block
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
}

// Break leaves the innermost loop or switch.
type Break struct{}

// Continue starts the innermost loop's next iteration.
type Continue struct{}

// Return leaves the function, with Value for callables that return one.
type Return struct{ Value Expr }

// Assign stores Src into the place Dst (a variable, or a member, swizzle-free
// index chain rooted at one).
type Assign struct{ Dst, Src Expr }

// ExprStmt evaluates X for its effects (a call).
type ExprStmt struct{ X Expr }

// Comment is carried into the output as an OpName-free note for dumps; it
// does not change the program.
type Comment struct{ Text string }

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
