package main

// Host functions at loop speed.
//
// A launcher's host function (writeHost) runs the kernel's Go function on
// the CPU. Through kernel.Run that is a call per thread, and every
// kernel.DispatchID a look-up of the calling goroutine's thread: ~15 ns a
// thread, 30× a Go loop on saxpy. For a kernel with no Barrier, Shared or
// subgroup operation (its threads never wait for one another), the
// generated file instead carries a copy of the kernel in which the thread
// ids are loop variables, the loop over the block's threads written around
// the body, so that Go compiles it as the plain loop a programmer would
// write; kernel.RunBlocks spreads the blocks over GOMAXPROCS workers:
//
//	func lucentcLoopSaxpy(lucentcB *kernel.Block, a float32, x []float32, y []float32) {
//		lucentcBase := lucentcB.Base
//		lucentcD := lucentcBase
//		lucentcNX := … // the block's threads inside the dispatch, at least 1
//		for lucentcX := uint32(0); ; {
//			lucentcB.Thread.X = lucentcX
//			lucentcD.X = lucentcBase.X + lucentcX
//			{ i := lucentcD.X; … } // the kernel's body, return as goto lucentcNextX
//		lucentcNextX:
//			lucentcX++
//			if lucentcX >= lucentcNX {
//				break
//			}
//		}
//	}
//
// The loop tests its condition at the bottom: with the kernel's own bounds
// test (saxpy's i < len(y)) a loop testing at the top made Go lay out two
// taken branches a thread, 1.3× the time of the same loop tested at the
// bottom (RATIONALE.md, cmd/lucentc).
//
// The copy is the kernel's source text with edits at the positions of the
// nodes go/ast and go/types found: calls of kernel.DispatchID, ThreadID,
// BlockID, BlockSize, DispatchSize and DispatchGroups become the loop's
// variables or fields of the block, kernel.Printf prints for the loop's
// thread, return jumps to the next thread, package names become the
// generated file's. The Go subset has no closures or defer; the kernel's
// own gotos, copied with the body they stay in, jump forward within it,
// and its labels (of its loops and switches, for break and continue, and
// goto targets) cannot be named lucentc…, so the one label the loop adds
// and the early returns it turns into a goto (out of any of the kernel's
// loops, as Go allows) cannot meet any of them; the front end keeps thread ids out of
// helpers. Anything the transform does not know to be safe
// keeps kernel.Run, and the host function says why in a comment: a
// collective, a helper that prints or reads ids (the copy would need one
// of its own), a function of another package (not the standard library's)
// that may, a name the copy would shadow, a kernel in another package.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// hostGen copies kernels as loops for one generated file.
type hostGen struct {
	f     *goFile
	code  bytes.Buffer           // the copies, in the order made
	loops map[*kernelDecl]string // kernel → its loop function
	reads map[*types.Func]bool   // helper → reads thread ids (itself or through helpers)
	srcs  map[string][]byte      // file name → contents
	taken map[string]bool        // names the copies declare
	why   map[*kernelDecl]string // why a kernel keeps kernel.Run
}

// idFields are the replacements of the id intrinsics: the loop's
// variable, fields of the block.
var idFields = map[string]string{
	"DispatchID":     "lucentcD",
	"ThreadID":       "lucentcB.Thread",
	"BlockID":        "lucentcB.ID",
	"BlockSize":      "lucentcB.Grid.Block",
	"DispatchSize":   "lucentcB.Grid.Size",
	"DispatchGroups": "lucentcB.Grid.Blocks()",
}

// collective says whether kernel.<name> makes a block's threads wait for
// one another (or reads the subgroup), which a loop over the threads
// cannot give.
func collective(name string) bool {
	return name == "Barrier" || name == "Shared" || strings.HasPrefix(name, "Subgroup")
}

// errNoLoop says why a kernel keeps kernel.Run.
type errNoLoop struct{ why string }

func (e *errNoLoop) Error() string { return e.why }

func noLoop(format string, args ...any) error { return &errNoLoop{fmt.Sprintf(format, args...)} }

// prepareHostLoops makes the loop copies of the kernels of decls that have
// a host function and live in the file's own package. It runs before the
// file's imports are written: the copies may need more.
func (f *goFile) prepareHostLoops(decls []*kernelDecl) {
	g := &hostGen{f: f, loops: map[*kernelDecl]string{}, reads: map[*types.Func]bool{}, srcs: map[string][]byte{}, taken: map[string]bool{}, why: map[*kernelDecl]string{}}
	f.hostLoops = g
	for _, d := range decls {
		if d.hostFunc == "" {
			continue
		}
		if d.u.pkg.PkgPath != f.self || d.u.pkg.TypesInfo == nil {
			g.why[d] = "the kernel is in another package"
			continue
		}
		if err := g.kernel(d); err != nil {
			g.why[d] = err.Error()
		}
	}
}

// peekImportName is the name importName would give p, without registering it.
func (f *goFile) peekImportName(p *types.Package) string {
	if n, ok := f.imports[p.Path()]; ok {
		return n
	}
	n := p.Name()
	for i := 2; f.names[n] || n == f.pkgName; i++ {
		n = fmt.Sprintf("%s%d", p.Name(), i)
	}
	return n
}

// loop returns the name of d's loop function, "" where it has none.
func (g *hostGen) loop(d *kernelDecl) string {
	if g == nil {
		return ""
	}
	return g.loops[d]
}

// edit replaces the source in [lo, hi) by text; a package name is resolved
// once the copy is kept (pkg non-nil).
type edit struct {
	lo, hi int
	text   string
	pkg    *types.Package
}

// copier collects the edits of one function's copy.
type copier struct {
	g       *hostGen
	pkg     *packages.Package
	file    *token.File
	edits   []edit
	usesD   bool            // the kernel reads lucentcD
	returns bool            // the kernel returns early (goto lucentcNextX)
	locals  map[string]bool // names the function declares
	pkgs    map[*types.Package]bool
}

// funcDecl finds fn's declaration in pkg's syntax.
func funcDecl(pkg *packages.Package, fn *types.Func) *ast.FuncDecl {
	for _, file := range pkg.Syntax {
		for _, decl := range file.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && pkg.TypesInfo.Defs[fd.Name] == fn {
				return fd
			}
		}
	}
	return nil
}

// kernel makes d's loop function, or says why it has none.
func (g *hostGen) kernel(d *kernelDecl) error {
	pkg := d.u.pkg
	fn, ok := pkg.Types.Scope().Lookup(d.u.k.Name).(*types.Func)
	if !ok {
		return noLoop("no function %s", d.u.k.Name)
	}
	fd := funcDecl(pkg, fn)
	if fd == nil || fd.Body == nil {
		return noLoop("no declaration of %s", d.u.k.Name)
	}
	c, err := g.copyOf(pkg, fd)
	if err != nil {
		return err
	}
	// Names: the copy's, and the import names its package selectors
	// become, none shadowed by a name the kernel declares.
	loopName := g.fresh("lucentcLoop" + upperFirst(d.u.k.Name))
	for p := range c.pkgs {
		if n := g.f.peekImportName(p); c.locals[n] {
			return noLoop("a local %s would shadow package %s", n, p.Path())
		}
	}
	// Kept: register the name and imports, write the copy.
	g.taken[loopName] = true
	g.loops[d] = loopName
	g.writeLoop(d, fd, c, loopName)
	return nil
}

// fresh is base, or base with a number, free in the package and the copies.
func (g *hostGen) fresh(base string) string {
	n := base
	for i := 2; g.taken[n] || g.f.names[n] || g.f.units[0].pkg.Types.Scope().Lookup(n) != nil; i++ {
		n = fmt.Sprintf("%s%d", base, i)
	}
	return n
}

// copyOf collects the edits of kernel fd's copy.
func (g *hostGen) copyOf(pkg *packages.Package, fd *ast.FuncDecl) (*copier, error) {
	if fd.Type.TypeParams != nil {
		return nil, noLoop("generic function %s", fd.Name.Name)
	}
	file := pkg.Fset.File(fd.Pos())
	if file == nil {
		return nil, fmt.Errorf("no file for %s", fd.Name.Name)
	}
	if _, ok := g.srcs[file.Name()]; !ok {
		b, err := os.ReadFile(file.Name())
		if err != nil {
			return nil, err
		}
		if len(b) != file.Size() {
			return nil, fmt.Errorf("%s changed since it was parsed", file.Name())
		}
		g.srcs[file.Name()] = b
	}
	c := &copier{g: g, pkg: pkg, file: file, locals: map[string]bool{}, pkgs: map[*types.Package]bool{}}
	info := pkg.TypesInfo
	var err error
	fail := func(e error) bool {
		if err == nil {
			err = e
		}
		return false
	}
	// Names the function declares (parameters included): a copy must not
	// shadow what it adds.
	ast.Inspect(fd, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Defs[id] != nil {
			c.locals[id.Name] = true
			if strings.HasPrefix(id.Name, "lucentc") {
				return fail(noLoop("%s declares %s, a name the copy uses", fd.Name.Name, id.Name))
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if c.locals["uint32"] {
		return nil, noLoop("%s declares uint32", fd.Name.Name)
	}
	sels := map[*ast.Ident]bool{} // idents that are the Sel of a selector
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			sels[s.Sel] = true
		}
		return true
	})
	ast.Inspect(fd.Type, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			c.pkgSelector(s)
		}
		return true
	})
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			return fail(noLoop("a function literal"))
		case *ast.DeferStmt, *ast.GoStmt:
			return fail(noLoop("defer or go"))
		case *ast.ReturnStmt:
			if len(n.Results) > 0 {
				return fail(noLoop("a kernel returning a value"))
			}
			c.replace(n.Pos(), n.End(), "goto lucentcNextX")
			c.returns = true
		case *ast.SelectorExpr:
			if c.pkgSelector(n) {
				return false
			}
		case *ast.Ident:
			// A name of another package without its selector (a dot
			// import) would not resolve in the generated file.
			if sels[n] {
				return true
			}
			obj := info.Uses[n]
			if v, ok := obj.(*types.Var); ok && v.IsField() {
				return true
			}
			if obj != nil && obj.Pkg() != nil && obj.Pkg() != pkg.Types {
				return fail(noLoop("%s of package %s named without its package", n.Name, obj.Pkg().Path()))
			}
		case *ast.CallExpr:
			fn := calledFunc(info, n.Fun)
			if fn == nil {
				return true
			}
			switch p := fn.Pkg(); {
			case p != nil && p.Path() == kernelPkgPath && fn.Signature().Recv() != nil:
				// Methods of the kernel package's types (vectors,
				// matrices) read no thread.
			case p != nil && p.Path() == kernelPkgPath:
				if collective(fn.Name()) {
					return fail(noLoop("kernel.%s", fn.Name()))
				}
				if r, ok := idFields[fn.Name()]; ok {
					if len(n.Args) != 0 {
						return fail(noLoop("kernel.%s with arguments", fn.Name()))
					}
					c.usesD = c.usesD || fn.Name() == "DispatchID"
					c.replace(n.Pos(), n.End(), r)
					return false
				}
				if fn.Name() == "Printf" {
					c.replace(n.Fun.Pos(), n.Fun.End(), "lucentcB.Printf")
					for _, a := range n.Args {
						ast.Inspect(a, walk)
					}
					return false
				}
			case p == pkg.Types:
				reads, e := g.readsIDs(pkg, fn)
				if e != nil {
					return fail(e)
				}
				if reads {
					return fail(noLoop("helper %s reads thread ids or prints", fn.Name()))
				}
			case p != nil && !standard(p.Path()):
				return fail(noLoop("%s of package %s, which may read thread ids", fn.Name(), p.Path()))
			}
		}
		return true
	}
	ast.Inspect(fd.Body, walk)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// pkgSelector rewrites the package name of a qualified identifier p.X, and
// says whether s was one.
func (c *copier) pkgSelector(s *ast.SelectorExpr) bool {
	x, ok := s.X.(*ast.Ident)
	if !ok {
		return false
	}
	pn, ok := c.pkg.TypesInfo.Uses[x].(*types.PkgName)
	if !ok {
		return false
	}
	c.pkgs[pn.Imported()] = true
	c.edits = append(c.edits, edit{lo: c.off(x.Pos()), hi: c.off(x.End()), pkg: pn.Imported()})
	return true
}

// calledFunc is the function a call's fun names (through parentheses and
// an instantiation), nil for anything else.
func calledFunc(info *types.Info, fun ast.Expr) *types.Func {
	fun = ast.Unparen(fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	var id *ast.Ident
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

// standard says whether path is a standard library package (no dot in its
// first element), which reads no thread ids.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// readsIDs says whether fn, a function of pkg, reads thread ids itself or
// through the functions it calls; an error where it cannot be copied and
// may read them.
func (g *hostGen) readsIDs(pkg *packages.Package, fn *types.Func) (bool, error) {
	if r, ok := g.reads[fn]; ok {
		return r, nil
	}
	g.reads[fn] = false // a cycle reads nothing more than its members do
	fd := funcDecl(pkg, fn)
	if fd == nil || fd.Body == nil {
		return false, noLoop("no source for %s", fn.Name())
	}
	reads := false
	var err error
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if reads || err != nil {
			return false
		}
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		f := calledFunc(pkg.TypesInfo, call.Fun)
		if f == nil || f.Pkg() == nil {
			return true
		}
		switch {
		case f.Pkg().Path() == kernelPkgPath:
			if collective(f.Name()) {
				err = noLoop("%s calls kernel.%s", fn.Name(), f.Name())
			} else if _, ok := idFields[f.Name()]; ok || f.Name() == "Printf" {
				reads = true
			}
		case f.Pkg() == pkg.Types:
			r, e := g.readsIDs(pkg, f)
			reads, err = r, e
		case !standard(f.Pkg().Path()):
			err = noLoop("%s calls %s of package %s, which may read thread ids", fn.Name(), f.Name(), f.Pkg().Path())
		}
		return true
	})
	if err != nil {
		delete(g.reads, fn)
		return false, err
	}
	g.reads[fn] = reads
	return reads, nil
}

func (c *copier) off(p token.Pos) int { return c.file.Offset(p) }

func (c *copier) replace(lo, hi token.Pos, text string) {
	c.edits = append(c.edits, edit{lo: c.off(lo), hi: c.off(hi), text: text})
}

// text is the source in [lo, hi) with c's edits applied.
func (c *copier) text(lo, hi token.Pos) string {
	src := c.g.srcs[c.file.Name()]
	a, b := c.off(lo), c.off(hi)
	es := append([]edit(nil), c.edits...)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].lo != es[j].lo {
			return es[i].lo < es[j].lo
		}
		return es[i].hi-es[i].lo < es[j].hi-es[j].lo // an insertion before a replacement at the same place
	})
	var out strings.Builder
	at := a
	for _, e := range es {
		if e.lo < a || e.hi > b || e.lo < at {
			continue
		}
		out.Write(src[at:e.lo])
		switch {
		case e.pkg != nil:
			out.WriteString(c.g.f.importName(e.pkg))
		default:
			out.WriteString(e.text)
		}
		at = e.hi
	}
	out.Write(src[at:b])
	return out.String()
}

// writeLoop writes kernel d's loop function.
func (g *hostGen) writeLoop(d *kernelDecl, fd *ast.FuncDecl, c *copier, name string) {
	b := &g.code
	kn := g.f.kernel
	params := c.text(fd.Type.Params.Opening+1, fd.Type.Params.Closing)
	if fd.Type.Params.NumFields() > 0 {
		params = ", " + params
	}
	fmt.Fprintf(b, "\n// %s is kernel %s over the threads of block lucentcB, the thread ids\n// loop variables (kernel.RunBlocks); made by lucentc from the kernel's source.\n", name, d.u.k.Name)
	fmt.Fprintf(b, "func %s(lucentcB *%s.Block%s) {\n", name, kn, params)
	// The base in a local: the stores to lucentcB.Thread would make Go
	// load lucentcB.Base again for every thread.
	b.WriteString("\tlucentcBase := lucentcB.Base\n")
	if c.usesD {
		b.WriteString("\tlucentcD := lucentcBase\n")
	}
	bl := d.u.k.Block
	axes := []string{"X", "Y", "Z"}
	// Outer loops for the block's Y and Z extents, X innermost (the
	// order kernel.Run runs a block's threads in).
	var open []string // the axes of the loops open, outermost first
	for i := 2; i >= 0; i-- {
		n := max(bl[i], 1)
		if n == 1 && i > 0 {
			continue // the block's one row or layer: its ids are the base's
		}
		ax := axes[i]
		// The block's base is inside the dispatch (RunBlocks runs no
		// block past it), so every loop runs at least once and tests
		// its condition at the bottom.
		fmt.Fprintf(b, "\tlucentcN%[1]s := lucentcB.Grid.Size.%[1]s - lucentcBase.%[1]s\n\tif lucentcN%[1]s > %[2]d {\n\t\tlucentcN%[1]s = %[2]d\n\t}\n", ax, n)
		fmt.Fprintf(b, "\tfor lucentc%[1]s := uint32(0); ; {\n\t\tlucentcB.Thread.%[1]s = lucentc%[1]s\n", ax)
		if c.usesD {
			fmt.Fprintf(b, "\t\tlucentcD.%[1]s = lucentcBase.%[1]s + lucentc%[1]s\n", ax)
		}
		open = append(open, ax)
	}
	// The body keeps the kernel's own positions (a line directive, the
	// file's name relative to the generated file's directory, which is the
	// kernel's), so that a panic, a stack trace or the race detector names
	// the kernel's line, as under kernel.Run; the generated file's own
	// positions resume after it (lineReset).
	at := c.file.Position(fd.Body.Lbrace)
	fmt.Fprintf(b, "/*line %s:%d:%d*/", filepath.Base(at.Filename), at.Line, at.Column)
	b.WriteString(c.text(fd.Body.Lbrace, fd.Body.Rbrace+1))
	b.WriteString("\n" + lineReset + "\n")
	for j := len(open) - 1; j >= 0; j-- {
		ax := open[j]
		if ax == "X" && c.returns {
			b.WriteString("lucentcNextX:\n")
		}
		fmt.Fprintf(b, "\tlucentc%[1]s++\n\tif lucentc%[1]s >= lucentcN%[1]s {\n\t\tbreak\n\t}\n}\n", ax)
	}
	b.WriteString("}\n")
}

// lineReset marks where the generated file's own positions resume after a
// copied kernel body; resetLines turns each into a line directive.
const lineReset = "//lucentc:resume-lines"

// resetLines replaces each lineReset line of src, the formatted file
// named name, with the line directive giving the next line its own number.
func resetLines(src []byte, name string) []byte {
	if !bytes.Contains(src, []byte(lineReset)) {
		return src
	}
	lines := bytes.Split(src, []byte("\n"))
	for i, l := range lines {
		if string(bytes.TrimSpace(l)) == lineReset {
			lines[i] = fmt.Appendf(nil, "//line %s:%d", name, i+2)
		}
	}
	return bytes.Join(lines, []byte("\n"))
}
