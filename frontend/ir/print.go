package ir

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Fprint writes f, and the callables it reaches (each once, callees first),
// in the IR's text form: one declaration per line, statements indented by
// block, expressions fully parenthesised with their types only where a
// reader needs them (literals, casts, constructions and built-in calls).
// The form is for reading (dumps, `lucentc -ir`, test failures); it is not
// parsed back: MarshalKernel is the IR's interchange form.
func Fprint(w io.Writer, f *Function) error { return FprintWith(w, f, PrintOptions{}) }

// PrintOptions choose what FprintWith shows beyond Fprint's form.
type PrintOptions struct {
	// Positions ends each statement's first line with its source position
	// (StmtPos) as a comment, where it has one.
	Positions bool
}

// FprintWith is Fprint with options.
func FprintWith(w io.Writer, f *Function, opts PrintOptions) error {
	p := &printer{positions: opts.Positions}
	callees := f.Callees()
	for i := len(callees) - 1; i >= 0; i-- {
		p.function(callees[i])
		p.b.WriteByte('\n')
	}
	p.function(f)
	_, err := io.WriteString(w, p.b.String())
	return err
}

// String is f's text form (Fprint).
func (f *Function) String() string {
	var b strings.Builder
	_ = Fprint(&b, f)
	return b.String()
}

type printer struct {
	b         strings.Builder
	indent    int
	positions bool
	pos       string // the position the next line ends with
}

func (p *printer) line(format string, args ...any) {
	p.b.WriteString(strings.Repeat("\t", p.indent))
	fmt.Fprintf(&p.b, format, args...)
	if p.pos != "" {
		p.b.WriteString("\t// " + p.pos)
		p.pos = ""
	}
	p.b.WriteByte('\n')
}

func (p *printer) function(f *Function) {
	var params []string
	for _, v := range f.Params {
		s := v.Name + " " + v.Type.String()
		if v.Kind == VarRefParam {
			s = v.Name + " &" + v.Type.String()
		}
		params = append(params, s)
	}
	if f.Kind == KernelFunc {
		p.line("kernel %s(%s) dim %d block %d×%d×%d {", f.Name, strings.Join(params, ", "), f.Dim, f.BlockSize[0], f.BlockSize[1], f.BlockSize[2])
	} else {
		p.line("callable %s(%s) %s {", f.Name, strings.Join(params, ", "), f.Result)
	}
	p.indent++
	for _, v := range f.Shared {
		p.line("shared %s %s", v.Name, v.Type)
	}
	for _, v := range f.Locals {
		p.line("var %s %s", v.Name, v.Type)
	}
	p.block(f.Body)
	p.indent--
	p.line("}")
}

func (p *printer) block(b *Block) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		p.stmt(s)
	}
}

func (p *printer) nested(head string, b *Block) {
	p.line("%s {", head)
	p.indent++
	p.block(b)
	p.indent--
}

func (p *printer) stmt(s Stmt) {
	if p.positions {
		p.pos = StmtPos(s)
	}
	switch s := s.(type) {
	case *Block:
		p.nested("", s)
		p.line("}")
	case *If:
		p.nested("if "+p.expr(s.Cond), s.Then)
		if s.Else != nil {
			p.line("} else {")
			p.indent++
			p.block(s.Else)
			p.indent--
		}
		p.line("}")
	case *Loop:
		p.nested("loop", s.Body)
		p.line("}")
	case *RayQuery:
		p.nested("ray_query "+p.exprs(s.Args)+" -> "+p.expr(s.Result), s.Body)
		p.line("}")
	case *For:
		p.nested("for "+p.expr(s.Cond), s.Body)
		if s.Update != nil && len(s.Update.Stmts) > 0 {
			p.line("} update {")
			p.indent++
			p.block(s.Update)
			p.indent--
		}
		p.line("}")
	case *Switch:
		p.line("switch %s {", p.expr(s.Tag))
		for _, c := range s.Cases {
			var vs []string
			for _, v := range c.Values {
				vs = append(vs, strconv.FormatInt(v, 10))
			}
			p.nested("case "+strings.Join(vs, ", ")+":", c.Body)
			p.line("}")
		}
		if s.Default != nil {
			p.nested("default:", s.Default)
			p.line("}")
		}
		p.line("}")
	case *Break:
		p.line("break")
	case *Continue:
		p.line("continue")
	case *Return:
		if s.Value != nil {
			p.line("return %s", p.expr(s.Value))
		} else {
			p.line("return")
		}
	case *Assign:
		p.line("%s = %s", p.expr(s.Dst), p.expr(s.Src))
	case *ExprStmt:
		p.line("%s", p.expr(s.X))
	case *Comment:
		p.line("// %s", s.Text)
	case *Assert:
		p.line("assert %s, %q", p.expr(s.Cond), s.Msg)
	case *Print:
		if len(s.Args) == 0 {
			p.line("print %q", s.Format)
		} else {
			p.line("print %q, %s", s.Format, p.exprs(s.Args))
		}
	default:
		p.line("<statement %T>", s)
	}
}

func (p *printer) exprs(es []Expr) string {
	var out []string
	for _, e := range es {
		out = append(out, p.expr(e))
	}
	return strings.Join(out, ", ")
}

func (p *printer) expr(e Expr) string {
	switch e := e.(type) {
	case nil:
		return "<nil>"
	case *Ref:
		return e.Var.Name
	case *Literal:
		return literalText(e)
	case *ConstArray:
		var vs []string
		for _, v := range e.Values {
			vs = append(vs, literalText(v))
		}
		return e.T.String() + "{" + strings.Join(vs, ", ") + "}"
	case *Unary:
		return "(" + e.Op.String() + p.expr(e.X) + ")"
	case *Binary:
		return "(" + p.expr(e.X) + " " + e.Op.String() + " " + p.expr(e.Y) + ")"
	case *Member:
		if e.X.Type().kind == KindStruct && e.Field < len(e.X.Type().fields) {
			return p.expr(e.X) + "." + e.X.Type().fields[e.Field].Name
		}
		return fmt.Sprintf("%s.%d", p.expr(e.X), e.Field)
	case *Swizzle:
		const names = "xyzw"
		var b strings.Builder
		for _, c := range e.Comps {
			if int(c) < len(names) {
				b.WriteByte(names[c])
			}
		}
		return p.expr(e.X) + "." + b.String()
	case *Index:
		return p.expr(e.X) + "[" + p.expr(e.I) + "]"
	case *Call:
		if e.Func != nil {
			return e.Func.Name + "(" + p.exprs(e.Args) + ")"
		}
		return e.Op.String() + "<" + typeText(e.T) + ">(" + p.exprs(e.Args) + ")"
	case *Cast:
		if e.Bit {
			return "bitcast<" + e.T.String() + ">(" + p.expr(e.X) + ")"
		}
		return e.T.String() + "(" + p.expr(e.X) + ")"
	case *Construct:
		return e.T.String() + "{" + p.exprs(e.Args) + "}"
	case *Poison:
		return fmt.Sprintf("<poison: %v>", e.Err)
	}
	return fmt.Sprintf("<expression %T>", e)
}

func typeText(t *Type) string {
	if t == nil {
		return "?"
	}
	return t.String()
}

// literalText is a literal's value with its type: 1.5:f32, -3:i32, 7:u32.
func literalText(l *Literal) string {
	t := l.T
	if t == nil {
		return fmt.Sprintf("%#x", l.Bits)
	}
	var v string
	switch t.kind {
	case KindBool:
		v = strconv.FormatBool(l.Bits != 0)
	case KindFloat:
		switch t.bits {
		case 16:
			v = strconv.FormatFloat(float64(HalfToFloat32(uint16(l.Bits))), 'g', -1, 32)
		case 32:
			v = strconv.FormatFloat(float64(math.Float32frombits(uint32(l.Bits))), 'g', -1, 32)
		default:
			v = strconv.FormatFloat(math.Float64frombits(l.Bits), 'g', -1, 64)
		}
	case KindInt:
		v = strconv.FormatInt(int64(l.Bits), 10)
	default:
		v = strconv.FormatUint(truncBits(l.Bits, t), 10)
	}
	return v + ":" + t.String()
}
