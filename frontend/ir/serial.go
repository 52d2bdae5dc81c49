package ir

// The serialised form of a kernel, for artefacts that outlive the process
// (ahead-of-time kernels, generated launchers), so that any backend can
// compile them later:
//
//	"LCIR"  magic
//	uvarint IRVersion
//	payload types, then functions (the kernel first, then every callable it
//	        reaches), each a header (name, position, kind, dimension, block,
//	        result, parameters, locals, shared variables) and, after all
//	        headers, the bodies
//	[32]    SHA-256 of everything before it
//
// Types are a table, children before parents, referred to by index;
// variables by their index in their function (parameters, locals, shared;
// in a callable, then the kernel's parameters, which a specialised helper
// names: version 2), built-ins by their number; callables by their index. Names and source
// positions, of functions, variables and statements, are kept (errors, debug names and the checked mode's faults use them); captured host values
// are not: a kernel that captures one cannot be serialised.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// IRVersion is the version of the serialised form MarshalKernel writes and
// UnmarshalKernel reads; it changes whenever that form does, and whenever
// what it names by number does (statements, expressions, ops, operators,
// type kinds, built-in variables: a test pins them per version), so that an
// older build reading a newer kernel says so instead of failing on a tag it
// does not know. Version 2 let callables name the kernel's arguments,
// version 3 keeps the statements' source positions (StmtPos), version 4
// adds acceleration structures and ray queries (the accel kind, the ray
// ops, RayQuery); this build reads every earlier version too (the
// statements of versions 1 and 2 have no positions).
const IRVersion = 4

var irMagic = []byte("LCIR")

// ErrBadIR is wrapped by UnmarshalKernel's errors about data that is not a
// kernel this build reads: damaged, truncated, of another version, or
// describing an invalid kernel.
var ErrBadIR = errors.New("frontend: bad serialised kernel")

// MarshalKernel serialises kernel f and the callables it reaches (see
// IRVersion). f is validated first; a kernel with captured host resources or
// values is refused.
func MarshalKernel(f *Function) ([]byte, error) {
	if f == nil {
		return nil, fmt.Errorf("%w: nil kernel", ErrInvalid)
	}
	if f.Kind != KernelFunc {
		return nil, fmt.Errorf("%w: %s is a callable, not a kernel", ErrInvalid, f.Name)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	for _, p := range f.Params {
		if p.Capture != nil {
			return nil, fmt.Errorf("%w: kernel %s: argument %s captures a host value (%T), which cannot be serialised", ErrInvalid, f.Name, p.Name, p.Capture)
		}
	}
	e := &irEncoder{types: map[*Type]int{}, funcs: map[*Function]int{}, seen: map[Expr]uint64{}}
	fns := append([]*Function{f}, f.Callees()...)
	// Every type first: the table precedes the functions.
	for i, g := range fns {
		e.funcs[g] = i
		for _, list := range [][]*Var{g.Params, g.Locals, g.Shared} {
			for _, v := range list {
				e.typ(v.Type)
			}
		}
		e.typ(g.Result)
		WalkExprs(g, func(x Expr) {
			e.typ(x.Type())
			if c, ok := x.(*ConstArray); ok {
				for _, l := range c.Values {
					e.typ(l.T)
				}
			}
		})
	}
	var out []byte
	out = append(out, irMagic...)
	out = binary.AppendUvarint(out, IRVersion)
	out = binary.AppendUvarint(out, uint64(e.ntypes))
	out = append(out, e.tbuf...)
	e.buf = out
	e.u(uint64(len(fns)))
	for _, g := range fns {
		e.header(g)
	}
	for _, g := range fns {
		e.vars = map[*Var]int{}
		i := 0
		for _, list := range [][]*Var{g.Params, g.Locals, g.Shared} {
			for _, v := range list {
				e.vars[v] = i
				i++
			}
		}
		if g != f {
			for _, v := range f.Params {
				e.vars[v] = i
				i++
			}
		}
		e.block(g.Body)
		if e.err != nil {
			return nil, fmt.Errorf("%w: kernel %s: %w", ErrInvalid, f.Name, e.err)
		}
	}
	sum := sha256.Sum256(e.buf)
	return append(e.buf, sum[:]...), nil
}

type irEncoder struct {
	buf, tbuf []byte
	ntypes    int
	types     map[*Type]int
	funcs     map[*Function]int
	vars      map[*Var]int
	seen      map[Expr]uint64 // expressions written, by order of completion
	err       error
}

func (e *irEncoder) u(x uint64)  { e.buf = binary.AppendUvarint(e.buf, x) }
func (e *irEncoder) s(x string)  { e.u(uint64(len(x))); e.buf = append(e.buf, x...) }
func (e *irEncoder) tu(x uint64) { e.tbuf = binary.AppendUvarint(e.tbuf, x) }

// typ adds t (and its parts) to the type table, returning its index + 1
// (0 is "no type").
func (e *irEncoder) typ(t *Type) uint64 {
	if t == nil {
		return 0
	}
	if i, ok := e.types[t]; ok {
		return uint64(i) + 1
	}
	var parts []uint64
	switch t.kind {
	case KindVector, KindMatrix, KindArray, KindBuffer, KindTexture:
		parts = append(parts, e.typ(t.elem))
	case KindStruct:
		for _, f := range t.fields {
			parts = append(parts, e.typ(f.Type))
		}
	}
	// The table is written as it grows: parts always come first.
	e.tu(uint64(t.kind))
	switch t.kind {
	case KindInt, KindUint, KindFloat:
		e.tu(uint64(t.bits))
	case KindVector, KindMatrix, KindArray:
		e.tu(parts[0])
		e.tu(uint64(t.n))
	case KindBuffer:
		e.tu(parts[0])
		e.tu(b2u(t.addr))
	case KindTexture:
		e.tu(parts[0])
		e.tu(uint64(t.n))
		e.tu(uint64(t.format))
	case KindStruct:
		e.tu(uint64(len(t.name)))
		e.tbuf = append(e.tbuf, t.name...)
		e.tu(uint64(t.size))
		e.tu(uint64(len(t.fields)))
		for i, f := range t.fields {
			e.tu(uint64(len(f.Name)))
			e.tbuf = append(e.tbuf, f.Name...)
			e.tu(parts[i])
			e.tu(uint64(f.Offset))
		}
	}
	e.types[t] = e.ntypes
	e.ntypes++
	return uint64(e.ntypes)
}

// tid is the table index + 1 of a type already in the table (0: none).
func (e *irEncoder) tid(t *Type) uint64 {
	if t == nil {
		return 0
	}
	i, ok := e.types[t]
	if !ok {
		e.err = fmt.Errorf("type %s missing from the table", t)
	}
	return uint64(i) + 1
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (e *irEncoder) header(f *Function) {
	e.s(f.Name)
	e.s(f.Pos)
	e.u(uint64(f.Kind))
	e.u(uint64(f.Dim))
	for _, b := range f.BlockSize {
		e.u(uint64(b))
	}
	e.u(e.tid(f.Result))
	for _, list := range [][]*Var{f.Params, f.Locals, f.Shared} {
		e.u(uint64(len(list)))
		for _, v := range list {
			e.s(v.Name)
			e.s(v.Pos)
			e.u(uint64(v.Kind))
			e.u(e.tid(v.Type))
		}
	}
}

func (e *irEncoder) block(b *Block) {
	if b == nil {
		e.u(0)
		return
	}
	e.u(uint64(len(b.Stmts)) + 1)
	for _, s := range b.Stmts {
		e.stmt(s)
	}
}

// Statement and expression tags.
const (
	irBlock = iota + 1
	irIf
	irLoop
	irFor
	irSwitch
	irBreak
	irContinue
	irReturn
	irAssign
	irExprStmt
	irComment
	irPrint
	irRayQuery
	irAssert // version 3
)

const (
	irUnary = iota + 1
	irBinary
	irMember
	irSwizzle
	irIndex
	irLiteral
	irConstArray
	irRef
	irCall
	irCast
	irConstruct
	irShared // an expression written before, by its number
)

func (e *irEncoder) stmt(s Stmt) {
	defer func() {
		// The position follows the statement's parts (version 3).
		if posOf(s) != nil {
			e.s(StmtPos(s))
		}
	}()
	switch s := s.(type) {
	case *Block:
		e.u(irBlock)
		e.block(s)
	case *If:
		e.u(irIf)
		e.expr(s.Cond)
		e.block(s.Then)
		e.block(s.Else)
	case *Loop:
		e.u(irLoop)
		e.block(s.Body)
	case *For:
		e.u(irFor)
		e.expr(s.Cond)
		e.block(s.Update)
		e.block(s.Body)
	case *Switch:
		e.u(irSwitch)
		e.expr(s.Tag)
		e.u(uint64(len(s.Cases)))
		for _, c := range s.Cases {
			e.u(uint64(len(c.Values)))
			for _, x := range c.Values {
				e.u(uint64(x))
			}
			e.block(c.Body)
		}
		e.block(s.Default)
	case *Break:
		e.u(irBreak)
	case *Continue:
		e.u(irContinue)
	case *Return:
		e.u(irReturn)
		e.expr(s.Value)
	case *Assign:
		e.u(irAssign)
		e.expr(s.Dst)
		e.expr(s.Src)
	case *ExprStmt:
		e.u(irExprStmt)
		e.expr(s.X)
	case *Comment:
		e.u(irComment)
		e.s(s.Text)
	case *Assert:
		e.u(irAssert)
		e.s(s.Msg)
		e.expr(s.Cond)
	case *Print:
		e.u(irPrint)
		e.s(s.Format)
		e.u(uint64(len(s.Args)))
		for _, a := range s.Args {
			e.expr(a)
		}
	case *RayQuery:
		e.u(irRayQuery)
		e.u(uint64(len(s.Args)))
		for _, a := range s.Args {
			e.expr(a)
		}
		e.block(s.Body)
		e.expr(s.Result)
	default:
		e.err = fmt.Errorf("statement %T", s)
	}
}

// expr writes x, or a reference to it where it was written before: the
// kernel is a DAG (the DSL shares subexpressions, and codegen reuses a
// shared node's value), and the form keeps it one.
func (e *irEncoder) expr(x Expr) {
	if x == nil {
		e.u(0)
		return
	}
	if id, ok := e.seen[x]; ok {
		e.u(irShared)
		e.u(id)
		return
	}
	defer func() { e.seen[x] = uint64(len(e.seen)) }()
	switch x := x.(type) {
	case *Unary:
		e.u(irUnary)
		e.u(e.tid(x.T))
		e.u(uint64(x.Op))
		e.expr(x.X)
	case *Binary:
		e.u(irBinary)
		e.u(e.tid(x.T))
		e.u(uint64(x.Op))
		e.expr(x.X)
		e.expr(x.Y)
	case *Member:
		e.u(irMember)
		e.u(e.tid(x.T))
		e.u(uint64(x.Field))
		e.expr(x.X)
	case *Swizzle:
		e.u(irSwizzle)
		e.u(e.tid(x.T))
		e.s(string(x.Comps))
		e.expr(x.X)
	case *Index:
		e.u(irIndex)
		e.u(e.tid(x.T))
		e.expr(x.X)
		e.expr(x.I)
	case *Literal:
		e.u(irLiteral)
		e.u(e.tid(x.T))
		e.u(x.Bits)
	case *ConstArray:
		e.u(irConstArray)
		e.u(e.tid(x.T))
		e.u(uint64(len(x.Values)))
		for _, l := range x.Values {
			e.u(e.tid(l.T))
			e.u(l.Bits)
		}
	case *Ref:
		e.u(irRef)
		if x.Var.Kind == VarBuiltin {
			e.u(0)
			e.u(uint64(x.Var.Builtin))
			return
		}
		i, ok := e.vars[x.Var]
		if !ok {
			e.err = fmt.Errorf("variable %s is not the function's", x.Var.Name)
		}
		e.u(uint64(i) + 1)
	case *Call:
		e.u(irCall)
		e.u(e.tid(x.T))
		e.u(uint64(x.Op))
		if x.Func != nil {
			e.u(uint64(e.funcs[x.Func]) + 1)
		} else {
			e.u(0)
		}
		e.u(uint64(len(x.Args)))
		for _, a := range x.Args {
			e.expr(a)
		}
	case *Cast:
		e.u(irCast)
		e.u(e.tid(x.T))
		e.u(b2u(x.Bit))
		e.expr(x.X)
	case *Construct:
		e.u(irConstruct)
		e.u(e.tid(x.T))
		e.u(uint64(len(x.Args)))
		for _, a := range x.Args {
			e.expr(a)
		}
	default:
		e.err = fmt.Errorf("expression %T", x)
	}
}

// UnmarshalKernel reads a kernel MarshalKernel wrote. Data that is damaged,
// truncated, of another IRVersion or that describes an invalid kernel gives
// an error wrapping ErrBadIR (and, for an invalid kernel, Validate's error);
// it never panics.
func UnmarshalKernel(data []byte) (f *Function, err error) {
	if len(data) < len(irMagic)+1+sha256.Size || !bytes.Equal(data[:len(irMagic)], irMagic) {
		return nil, fmt.Errorf("%w: not a serialised kernel", ErrBadIR)
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("%w: checksum mismatch (damaged)", ErrBadIR)
	}
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("%w: %v", ErrBadIR, r)
		}
	}()
	d := &irDecoder{buf: body[len(irMagic):]}
	switch d.version = d.u(); {
	case d.version > IRVersion:
		return nil, fmt.Errorf("%w: IR version %d, made by a newer lucent: this build reads versions 1 to %d; rebuild the kernel with this lucent or upgrade it", ErrBadIR, d.version, IRVersion)
	case d.version < 1:
		return nil, fmt.Errorf("%w: IR version %d, which no lucent writes (damaged)", ErrBadIR, d.version)
	}
	f, err = d.kernel()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadIR, err)
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadIR, err)
	}
	return f, nil
}

// irDecoder reads the payload; a malformed one panics with an irFault,
// which UnmarshalKernel turns into an error.
type irDecoder struct {
	version uint64
	buf     []byte
	types   []*Type
	funcs   []*Function
	vars    []*Var
	exprs   []Expr   // expressions read, by order of completion
	sizes   []uint64 // their sizes as trees (shared parts counted each time)
	total   uint64   // the tree size of every expression read so far
	depth   int
}

// maxIRTree bounds the expressions of a kernel read back, counted as trees
// (a shared subexpression once per use): sharing lets a few bytes describe a
// tree of exponential size, which Validate would walk without end.
const maxIRTree = 1 << 21

type irFault string

func (d *irDecoder) fail(format string, args ...any) { panic(irFault(fmt.Sprintf(format, args...))) }

func (d *irDecoder) u() uint64 {
	x, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.fail("truncated")
	}
	d.buf = d.buf[n:]
	return x
}

// n reads a count or index, at most limit.
func (d *irDecoder) n(limit int) int {
	x := d.u()
	if x > uint64(limit) {
		d.fail("%d out of range (at most %d)", x, limit)
	}
	return int(x)
}

// count reads a list length: each element takes at least a byte.
func (d *irDecoder) count() int { return d.n(len(d.buf)) }

func (d *irDecoder) s() string {
	n := d.count()
	s := string(d.buf[:n])
	d.buf = d.buf[n:]
	return s
}

func (d *irDecoder) typ() *Type {
	i := d.n(len(d.types))
	if i == 0 {
		return nil
	}
	return d.types[i-1]
}

func (d *irDecoder) need(t *Type) *Type {
	if t == nil {
		d.fail("missing type")
	}
	return t
}

func (d *irDecoder) kernel() (*Function, error) {
	for nt := d.count(); len(d.types) < nt; {
		d.types = append(d.types, d.typeEntry())
	}
	nf := d.count()
	if nf == 0 {
		return nil, errors.New("no functions")
	}
	perFunc := make([][]*Var, nf)
	for i := range nf {
		g := &Function{Name: d.s(), Pos: d.s(), Kind: FuncKind(d.n(int(CallableFunc))), Dim: d.n(3)}
		for j := range g.BlockSize {
			g.BlockSize[j] = uint32(d.n(math.MaxUint32))
		}
		g.Result = d.typ()
		for _, list := range []*[]*Var{&g.Params, &g.Locals, &g.Shared} {
			for range d.count() {
				v := &Var{Name: d.s(), Pos: d.s(), Kind: VarKind(d.n(int(VarShared))), Type: d.need(d.typ())}
				*list = append(*list, v)
				perFunc[i] = append(perFunc[i], v)
			}
		}
		d.funcs = append(d.funcs, g)
	}
	for i, g := range d.funcs {
		d.vars = perFunc[i]
		if i > 0 {
			d.vars = append(append([]*Var(nil), perFunc[i]...), d.funcs[0].Params...)
		}
		g.Body = d.block()
		if g.Body == nil {
			g.Body = &Block{}
		}
	}
	if len(d.buf) != 0 {
		return nil, fmt.Errorf("%d bytes after the last function", len(d.buf))
	}
	if d.funcs[0].Kind != KernelFunc {
		return nil, errors.New("the first function is not a kernel")
	}
	return d.funcs[0], nil
}

func (d *irDecoder) typeEntry() *Type {
	switch k := Kind(d.n(int(KindAccel))); k {
	case KindVoid:
		return TVoid
	case KindBool:
		return TBool
	case KindInt:
		return Int(d.n(64))
	case KindUint:
		return Uint(d.n(64))
	case KindFloat:
		return Float(d.n(64))
	case KindVector:
		elem := d.need(d.typ())
		return Vector(elem, d.n(4))
	case KindMatrix:
		col := d.need(d.typ())
		return Matrix(d.n(4), col.Len())
	case KindArray:
		elem := d.need(d.typ())
		t, err := ArrayType(elem, d.n(math.MaxInt32))
		if err != nil {
			d.fail("%v", err)
		}
		return t
	case KindBuffer:
		elem := d.need(d.typ())
		if d.n(1) == 1 {
			return BufferAddress(elem)
		}
		return Buffer(elem)
	case KindTexture:
		elem := d.need(d.typ())
		dim := d.n(3)
		format := TexelFormat(d.n(int(FormatR32I)))
		if format != FormatAny {
			return TextureOf(dim, format)
		}
		return Texture(dim, elem)
	case KindStruct:
		name := d.s()
		size := d.n(MaxTypeSize)
		fields := make([]Field, d.count())
		for i := range fields {
			fields[i] = Field{Name: d.s(), Type: d.need(d.typ()), Offset: d.n(MaxTypeSize)}
		}
		t, err := StructType(name, fields, size)
		if err != nil {
			d.fail("%v", err)
		}
		return t
	case KindBindless:
		return Bindless
	default:
		return Accel
	}
}

func (d *irDecoder) enter() {
	if d.depth++; d.depth > MaxNesting+MaxExprDepth {
		d.fail("nested deeper than %d", MaxNesting+MaxExprDepth)
	}
}

func (d *irDecoder) block() *Block {
	d.enter()
	defer func() { d.depth-- }()
	n := d.count()
	if n == 0 {
		return nil
	}
	b := &Block{Stmts: make([]Stmt, 0, n-1)}
	for range n - 1 {
		b.Stmts = append(b.Stmts, d.stmt())
	}
	return b
}

func (d *irDecoder) stmt() Stmt {
	s := d.stmtParts()
	if p := posOf(s); p != nil && d.version >= 3 {
		*p = d.s()
	}
	return s
}

func (d *irDecoder) stmtParts() Stmt {
	switch tag := d.u(); tag {
	case irBlock:
		b := d.block()
		if b == nil {
			b = &Block{}
		}
		return b
	case irIf:
		return &If{Cond: d.expr(), Then: d.block(), Else: d.block()}
	case irLoop:
		return &Loop{Body: d.block()}
	case irFor:
		return &For{Cond: d.expr(), Update: d.block(), Body: d.block()}
	case irSwitch:
		s := &Switch{Tag: d.expr()}
		for range d.count() {
			var c Case
			for range d.count() {
				c.Values = append(c.Values, int64(d.u()))
			}
			c.Body = d.block()
			s.Cases = append(s.Cases, c)
		}
		s.Default = d.block()
		return s
	case irBreak:
		return &Break{}
	case irContinue:
		return &Continue{}
	case irReturn:
		return &Return{Value: d.expr()}
	case irAssign:
		return &Assign{Dst: d.expr(), Src: d.expr()}
	case irExprStmt:
		return &ExprStmt{X: d.expr()}
	case irComment:
		return &Comment{Text: d.s()}
	case irAssert:
		a := &Assert{Msg: d.s()}
		a.Cond = d.expr()
		return a
	case irPrint:
		p := &Print{Format: d.s()}
		for range d.count() {
			p.Args = append(p.Args, d.expr())
		}
		return p
	case irRayQuery:
		q := &RayQuery{}
		for range d.count() {
			q.Args = append(q.Args, d.expr())
		}
		q.Body = d.block()
		q.Result = d.expr()
		return q
	default:
		d.fail("statement tag %d", tag)
		return nil
	}
}

func (d *irDecoder) expr() Expr {
	d.enter()
	defer func() { d.depth-- }()
	tag := d.u()
	switch tag {
	case 0:
		return nil
	case irShared:
		if len(d.exprs) == 0 {
			d.fail("reference to an expression before any")
		}
		i := d.n(len(d.exprs) - 1)
		d.grow(d.sizes[i])
		return d.exprs[i]
	}
	before := d.total
	x := d.node(tag)
	d.grow(1)
	d.exprs = append(d.exprs, x)
	d.sizes = append(d.sizes, d.total-before)
	return x
}

func (d *irDecoder) grow(n uint64) {
	if d.total += n; d.total > maxIRTree {
		d.fail("expressions of more than %d nodes as trees", maxIRTree)
	}
}

func (d *irDecoder) node(tag uint64) Expr {
	switch tag {
	case irUnary:
		return &Unary{T: d.typ(), Op: UnaryOp(d.n(math.MaxUint8)), X: d.expr()}
	case irBinary:
		return &Binary{T: d.typ(), Op: BinaryOp(d.n(math.MaxUint8)), X: d.expr(), Y: d.expr()}
	case irMember:
		return &Member{T: d.typ(), Field: d.n(math.MaxInt32), X: d.expr()}
	case irSwizzle:
		return &Swizzle{T: d.typ(), Comps: []uint8(d.s()), X: d.expr()}
	case irIndex:
		return &Index{T: d.typ(), X: d.expr(), I: d.expr()}
	case irLiteral:
		return &Literal{T: d.typ(), Bits: d.u()}
	case irConstArray:
		c := &ConstArray{T: d.typ()}
		for range d.count() {
			c.Values = append(c.Values, &Literal{T: d.typ(), Bits: d.u()})
		}
		return c
	case irRef:
		i := d.n(len(d.vars))
		if i == 0 {
			b := BuiltinVar(d.n(int(lastBuiltin)))
			if b == 0 {
				d.fail("built-in 0")
			}
			return &Ref{Var: &Var{Name: b.String(), Type: b.Type(), Kind: VarBuiltin, Builtin: b}}
		}
		return &Ref{Var: d.vars[i-1]}
	case irCall:
		c := &Call{T: d.typ(), Op: Op(d.n(math.MaxUint16))}
		if fi := d.n(len(d.funcs)); fi > 0 {
			c.Func = d.funcs[fi-1]
		}
		for range d.count() {
			c.Args = append(c.Args, d.expr())
		}
		return c
	case irCast:
		return &Cast{T: d.typ(), Bit: d.n(1) == 1, X: d.expr()}
	case irConstruct:
		c := &Construct{T: d.typ()}
		for range d.count() {
			c.Args = append(c.Args, d.expr())
		}
		return c
	default:
		d.fail("expression tag %d", tag)
		return nil
	}
}
