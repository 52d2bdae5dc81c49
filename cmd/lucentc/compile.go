package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// buildTag is set while lucentc loads packages; generated files carry
// !buildTag so that a stale one is never loaded by the compiler regenerating it.
const buildTag = "lucentc"

// ErrCompile is wrapped by every error lucentc reports about a kernel after
// the front end accepted it (codegen, optimizer, validator, signature).
var ErrCompile = errors.New("lucentc: kernel compilation failed")

// unit is one kernel going through the pipeline.
type unit struct {
	k     *gokernel.Kernel
	pkg   *packages.Package // the kernel's package (name, directory, and types with -go)
	words []uint32
	ir    []byte // the kernel serialised (ir.MarshalKernel), for launchers
	sig   device.Signature
	file  string // <pkg>.<Kernel>.spv
}

// stageTimes is what -v reports.
type stageTimes struct {
	load, packages, emit, optimize, validate time.Duration
}

// compile runs the whole pipeline and returns every error, sorted by
// position; nothing is written when there is one.
func compile(cfg *config) []error {
	errs := dropRepeats(pipeline(cfg))
	sortErrors(errs)
	// Drop repeats (go list and the type checker can report one error twice).
	var out []error
	for _, e := range errs {
		if len(out) > 0 && e.Error() == out[len(out)-1].Error() {
			continue
		}
		out = append(out, e)
	}
	return out
}

func pipeline(cfg *config) []error {
	times := &stageTimes{}
	env := loadEnv()
	t0 := time.Now()
	kernels, errs := (&gokernel.Config{Dir: cfg.dir, Env: env}).Load(cfg.patterns...)
	times.load = time.Since(t0)
	for i, e := range errs {
		errs[i] = relativeError(e, cfg.dir)
	}
	if len(kernels) == 0 {
		if len(errs) == 0 {
			if cfg.goFile || cfg.check {
				if pkgs, err := loadPackages(cfg, env); err == nil {
					errs = append(orphanLaunchers(cfg, pkgs, nil), orphanSPV(cfg, pkgs, nil)...)
				}
			}
			errs = append(errs, fmt.Errorf("lucentc: no //lucent:kernel functions in %s", strings.Join(cfg.patterns, " ")))
		}
		return errs
	}
	t1 := time.Now()
	pkgs, err := loadPackages(cfg, env)
	times.packages = time.Since(t1)
	if err != nil {
		return append(errs, err)
	}
	if cfg.goFile || cfg.check {
		errs = append(errs, orphanLaunchers(cfg, pkgs, kernels)...)
	}

	units := make([]*unit, 0, len(kernels))
	files := map[string]*unit{}
	for _, k := range kernels {
		u := &unit{k: k, pkg: pkgs[k.Package]}
		if u.pkg == nil {
			errs = append(errs, newKernelError(k, fmt.Errorf("package %s was not loaded", k.Package)))
			continue
		}
		u.file = u.pkg.Name + "." + k.Name + ".spv"
		if prev, ok := files[u.file]; ok && cfg.outDir != "" {
			errs = append(errs, newKernelError(k, fmt.Errorf("output %s is also written by the kernel at %s: compile the two packages separately", u.file, relPos(prev.k.Pos))))
			continue
		}
		files[u.file] = u
		units = append(units, u)
	}

	show := cfg.verbose || len(units) >= cfg.progress
	for i, u := range units {
		if show {
			fmt.Fprintf(cfg.stderr, "[%d/%d] %s.%s\n", i+1, len(units), u.pkg.Name, u.k.Name)
		}
		if err := u.build(cfg, times); err != nil {
			errs = append(errs, newKernelError(u.k, err))
		}
	}
	if cfg.verbose {
		fmt.Fprintf(cfg.stderr, "lucentc: %d kernel(s): load %v, packages %v, codegen %v, optimize %v, validate %v\n",
			len(units), times.load.Round(time.Millisecond), times.packages.Round(time.Millisecond),
			times.emit.Round(time.Microsecond), times.optimize.Round(time.Microsecond), times.validate.Round(time.Microsecond))
	}
	if len(errs) > 0 {
		return errs
	}
	var goFiles map[string][]byte
	if cfg.goFile {
		goFiles, errs = genGo(cfg, units)
		if len(errs) > 0 {
			return errs
		}
	}
	var stale []error
	if cfg.check {
		stale = append(checkLaunchers(cfg, units), orphanSPV(cfg, pkgs, units)...)
	}
	if err := write(cfg, units, goFiles); err != nil {
		return append(stale, err)
	}
	return stale
}

// codegenOptions are the options every module is compiled with: the
// command line's, and every entry of codegen's driver-workaround table, as
// device.SaveKernel compiles its artefacts (vulkan.OfflineOptions). No device
// is there to say which entries apply, and a launcher's SPIR-V runs as it
// is on whatever driver the program meets (without loop-exit-flags, a loop
// that threads leave at different iterations loses the values assigned
// before its break on Mesa 22.3's lavapipe).
func (cfg *config) codegenOptions() codegen.Options {
	o := codegen.Options{Env: cfg.env, FloatAtomicAdd: cfg.atomics, Names: cfg.names}
	for _, w := range codegen.AllWorkarounds() {
		w.Apply(&o)
	}
	return o
}

// build takes one kernel from AST to checked SPIR-V words and signature.
func (u *unit) build(cfg *config, times *stageTimes) error {
	t0 := time.Now()
	words, err := codegen.Emit(u.k.Func, cfg.codegenOptions())
	times.emit += time.Since(t0)
	if err != nil {
		return fmt.Errorf("codegen: %w", err)
	}
	layout := spvtools.ValidateOptions{ScalarBlockLayout: true}
	if cfg.optimize || cfg.size {
		level := spvtools.Performance
		if cfg.size {
			level = spvtools.Size
		}
		t1 := time.Now()
		words, err = spvtools.OptimizeWith(words, cfg.env, level, layout)
		times.optimize += time.Since(t1)
		if err != nil {
			return fmt.Errorf("optimizer (%s): %w", level, err)
		}
	}
	if cfg.validate {
		t2 := time.Now()
		err := spvtools.ValidateWith(words, cfg.env, layout)
		times.validate += time.Since(t2)
		if err != nil {
			return fmt.Errorf("validator (%s): %w", cfg.env, err)
		}
	}
	// The signature and the serial form with the positions the launcher
	// carries (portably).
	var (
		sig      device.Signature
		captured []any
		blob     []byte
		sigErr   error
	)
	err = portably(u.k.Func, func() (err error) {
		if sig, captured, sigErr = device.KernelSignature(u.k.Func); sigErr != nil {
			return nil
		}
		blob, err = ir.MarshalKernel(u.k.Func)
		return err
	})
	if sigErr != nil {
		return fmt.Errorf("signature: %w", sigErr)
	}
	for i, c := range captured {
		if c != nil {
			return fmt.Errorf("argument %d (%s) captures a host resource, which an offline kernel cannot carry", i, sig.Args[i].Name)
		}
	}
	if err != nil {
		return fmt.Errorf("serialising the kernel: %w", err)
	}
	u.words, u.ir, u.sig = words, blob, sig
	return nil
}

// write produces every output once all kernels compiled.
func write(cfg *config, units []*unit, goFiles map[string][]byte) error {
	if cfg.printIR {
		for _, u := range units {
			fmt.Fprintf(cfg.stdout, "// %s.%s (%s)\n%s\n", u.pkg.Name, u.k.Name, relPos(u.k.Pos), u.k.Func)
		}
	}
	if cfg.asm {
		for _, u := range units {
			text, err := spvtools.Disassemble(u.words, cfg.env)
			if err != nil {
				return fmt.Errorf("lucentc: disassembling %s.%s: %w", u.pkg.Name, u.k.Name, err)
			}
			fmt.Fprintf(cfg.stdout, "; %s.%s (%s, %s)\n%s\n", u.pkg.Name, u.k.Name, relPos(u.k.Pos), cfg.env, text)
		}
	}
	if cfg.outDir != "" {
		dir := cfg.outDir
		if cfg.dir != "" && !filepath.IsAbs(dir) {
			dir = filepath.Join(cfg.dir, dir)
		}
		if !cfg.check {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("lucentc: -o: %w", err)
			}
		}
		for _, u := range units {
			if err := cfg.output(filepath.Join(dir, u.file), spvBytes(u.words)); err != nil {
				return err
			}
			if cfg.verbose && !cfg.check {
				fmt.Fprintf(cfg.stderr, "lucentc: wrote %s (%d words)\n", filepath.Join(dir, u.file), len(u.words))
			}
		}
	}
	paths := make([]string, 0, len(goFiles))
	for p := range goFiles {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if !cfg.check {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return fmt.Errorf("lucentc: writing %s: %w", p, err)
			}
		}
		if err := cfg.output(p, goFiles[p]); err != nil {
			return err
		}
		if cfg.verbose && !cfg.check {
			fmt.Fprintf(cfg.stderr, "lucentc: wrote %s\n", p)
		}
	}
	if len(cfg.stale) > 0 {
		return fmt.Errorf("lucentc: -check: out of date: %s: rerun lucentc without -check", strings.Join(cfg.stale, ", "))
	}
	return nil
}

// output writes one file, or with -check compares it with what is there
// and records it as stale when it differs.
func (cfg *config) output(name string, data []byte) error {
	if !cfg.check {
		return writeFile(name, data)
	}
	old, err := os.ReadFile(name)
	if err != nil || !bytes.Equal(old, data) {
		stale := relFile(name)
		if was, now := generatedBy(old), generatedBy(data); err == nil && was != "" && now != "" && was != now {
			stale += fmt.Sprintf(" (generated by %q, checked with %q)", was, now)
		}
		cfg.stale = append(cfg.stale, stale)
	}
	return nil
}

// generatedBy is the command a generated Go file's header records (its
// second line, "// lucentc -go -target vulkan1.2 -O"), or "".
func generatedBy(src []byte) string {
	_, rest, ok := bytes.Cut(src, []byte("\n"))
	if !ok || !bytes.HasPrefix(src, []byte("// Code generated by lucentc.")) {
		return ""
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	cmd, ok := bytes.CutPrefix(line, []byte("// lucentc "))
	if !ok {
		return ""
	}
	return "lucentc " + string(cmd)
}

// relFile shortens name to a path relative to the current directory when it is below it.
func relFile(name string) string {
	return relPosition(token.Position{Filename: name}).Filename
}

// spvBytes is the module as a .spv file: little-endian words.
func spvBytes(words []uint32) []byte {
	b := make([]byte, 0, 4*len(words))
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

// writeFile replaces name atomically, so an interrupted run leaves the old file.
func writeFile(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		// The temporary file's name means nothing to the user: the
		// cause is the directory's.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("lucentc: writing %s: %w", name, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), name)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("lucentc: writing %s: %w", name, werr)
	}
	return nil
}

// loadEnv is the environment of the go command behind the loads: the
// process's, with the lucentc build tag added to GOFLAGS.
func loadEnv() []string {
	env := os.Environ()
	flags := os.Getenv("GOFLAGS")
	fields := strings.Fields(flags)
	tagged := false
	for i, f := range fields {
		if v, ok := strings.CutPrefix(f, "-tags="); ok {
			fields[i] = "-tags=" + strings.TrimPrefix(v+","+buildTag, ",")
			tagged = true
		}
	}
	if !tagged {
		fields = append(fields, "-tags="+buildTag)
	}
	return append(env, "GOFLAGS="+strings.Join(fields, " "))
}

// loadPackages loads the packages behind the kernels: names and directories,
// and with -go their types, to spell the launchers' parameter types.
func loadPackages(cfg *config, env []string) (map[string]*packages.Package, error) {
	mode := packages.NeedName | packages.NeedFiles
	if cfg.goFile {
		mode |= packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedImports
	}
	pkgs, err := packages.Load(&packages.Config{Mode: mode, Dir: cfg.dir, Env: env}, cfg.patterns...)
	if err != nil {
		return nil, fmt.Errorf("lucentc: loading %s: %w", strings.Join(cfg.patterns, " "), err)
	}
	m := make(map[string]*packages.Package, len(pkgs))
	for _, p := range pkgs {
		m[p.PkgPath] = p
	}
	return m, nil
}

// kernelError is a failure of kernel k after the front end accepted it,
// positioned at the kernel's declaration.
type kernelError struct {
	pos  token.Position
	name string
	err  error
}

func newKernelError(k *gokernel.Kernel, err error) error {
	return &kernelError{pos: relPosition(k.Pos), name: k.Name, err: err}
}

func (e *kernelError) Error() string {
	return fmt.Sprintf("%s: kernel %s: %s", e.pos, e.name, flatten(e.err))
}

// Unwrap makes errors.Is hold for ErrCompile and for the cause.
func (e *kernelError) Unwrap() []error { return []error{ErrCompile, e.err} }

// flatten keeps a multi-line diagnostic on one line per error.
func flatten(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// relativeError shortens the file name of a positioned error; a name
// relative to dir (the go command's, with -C) is resolved first, so that
// one error reported under both spellings is listed once.
func relativeError(err error, dir string) error {
	var ge *gokernel.Error
	if errors.As(err, &ge) && ge.Pos.IsValid() {
		p := ge.Pos
		if !filepath.IsAbs(p.Filename) && dir != "" {
			if abs, err := filepath.Abs(filepath.Join(dir, p.Filename)); err == nil {
				p.Filename = abs
			}
		}
		return &gokernel.Error{Pos: relPosition(p), Msg: ge.Msg}
	}
	return err
}

func relPosition(p token.Position) token.Position {
	if wd, err := os.Getwd(); err == nil && filepath.IsAbs(p.Filename) {
		if r, err := filepath.Rel(wd, p.Filename); err == nil && !strings.HasPrefix(r, "..") {
			p.Filename = r
		}
	}
	return p
}

func relPos(p token.Position) string { return relPosition(p).String() }

// portably runs fn with the source positions of kernel f (of its
// functions, variables and statements) cut to the file's name
// ("kern.go:14:6"), so that what fn makes of f for a generated launcher is
// the same on every machine. The positions are put back afterwards.
func portably(f *ir.Function, fn func() error) error {
	var undo []func()
	short := func(pos *string) {
		old := *pos
		if i := strings.LastIndex(old, ":"); i > 0 {
			if j := strings.LastIndex(old[:i], ":"); j > 0 {
				*pos = filepath.Base(old[:j]) + old[j:]
				undo = append(undo, func() { *pos = old })
			}
		}
	}
	for _, s := range f.Sites() {
		short(ir.StmtPosRef(s))
	}
	for _, g := range append([]*ir.Function{f}, f.Callees()...) {
		short(&g.Pos)
		for _, list := range [][]*ir.Var{g.Params, g.Locals, g.Shared} {
			for _, v := range list {
				short(&v.Pos)
			}
		}
	}
	defer func() {
		for _, u := range undo {
			u()
		}
	}()
	return fn()
}

// dropRepeats removes the errors without a position that only repeat
// positioned ones: the go command's build output ("# pkg" and then
// file:line:col lines) comes back beside the type checker's own errors.
func dropRepeats(errs []error) []error {
	known := map[string]bool{}
	for _, e := range errs {
		var ge *gokernel.Error
		if errors.As(e, &ge) && ge.Pos.IsValid() {
			known[fmt.Sprintf("%s:%d:%d: %s", filepath.Base(ge.Pos.Filename), ge.Pos.Line, ge.Pos.Column, ge.Msg)] = true
		}
	}
	var out []error
	for _, e := range errs {
		var ge *gokernel.Error
		if errors.As(e, &ge) && !ge.Pos.IsValid() && repeats(ge.Msg, known) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// repeats reports whether every line of msg but "# pkg" headers is a known
// positioned error.
func repeats(msg string, known map[string]bool) bool {
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(msg), "\n") {
		if strings.HasPrefix(line, "# ") {
			continue
		}
		line = strings.TrimSpace(line)
		if end := strings.Index(line, ".go:"); end >= 0 {
			line = line[strings.LastIndex(line[:end], "/")+1:]
		}
		if !known[line] {
			return false
		}
		n++
	}
	return n > 0
}

// sortErrors orders positioned errors by file, line and column, after the
// errors without a position (a failed go list), keeping the order of equals.
func sortErrors(errs []error) {
	pos := func(err error) token.Position {
		var ge *gokernel.Error
		if errors.As(err, &ge) {
			return ge.Pos
		}
		var ke *kernelError
		if errors.As(err, &ke) {
			return ke.pos
		}
		return token.Position{}
	}
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := pos(errs[i]), pos(errs[j])
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// sortUnits orders units by package path and kernel name, the order of the generated files.
func sortUnits(us []*unit) {
	sort.SliceStable(us, func(i, j int) bool {
		if us[i].k.Package != us[j].k.Package {
			return us[i].k.Package < us[j].k.Package
		}
		return us[i].k.Name < us[j].k.Name
	})
}
