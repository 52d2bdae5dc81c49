package main

import (
	"crypto/sha256"
	"encoding/hex"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"strings"
)

// kernelSourceHash is the hash of kernel name's source in the Go file src:
// its //lucent:kernel directive (fields joined by one space) and the tokens
// of its declaration (comments and layout do not count), the first 16 bytes
// of their SHA-256 in hex. ok is false when src does not parse or declares
// no such function.
//
// A launcher embeds the hash of the source it was generated from and its
// constructor computes it again from the file the program was built from
// (lucentcSourceHash, generated from sourceHashTemplate): the two must stay
// the same algorithm, which TestLauncherStaleAtRunTime checks.
func kernelSourceHash(src []byte, name string) (hash string, ok bool) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return "", false
	}
	for _, decl := range file.Decls {
		fd, isFunc := decl.(*ast.FuncDecl)
		if !isFunc || fd.Recv != nil || fd.Name.Name != name {
			continue
		}
		h := sha256.New()
		if fd.Doc != nil {
			for _, c := range fd.Doc.List {
				if c.Text == "//lucent:kernel" || strings.HasPrefix(c.Text, "//lucent:kernel ") {
					h.Write([]byte(strings.Join(strings.Fields(c.Text), " ") + "\n"))
				}
			}
		}
		tf := fset.File(fd.Pos())
		start, end := tf.Offset(fd.Pos()), tf.Offset(fd.End())
		var s scanner.Scanner
		s.Init(token.NewFileSet().AddFile("", -1, end-start), src[start:end], nil, 0)
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			h.Write([]byte(tok.String() + " " + lit + "\n"))
		}
		return hex.EncodeToString(h.Sum(nil)[:16]), true
	}
	return "", false
}

// sourceHashes computes kernelSourceHash for kernels by file, reading each
// file once.
type sourceHashes map[string][]byte

func (c sourceHashes) hash(file, name string) (string, bool) {
	src, ok := c[file]
	if !ok {
		var err error
		src, err = os.ReadFile(file)
		if err != nil {
			src = nil
		}
		c[file] = src
	}
	if src == nil {
		return "", false
	}
	return kernelSourceHash(src, name)
}

// sourceHashTemplate is the generated file's copy of kernelSourceHash and
// the check each constructor makes with it. @name. stands for the import
// name of package name.
const sourceHashTemplate = `
// lucentcSources caches the kernels' source hashes by file.
var lucentcSources struct {
	@sync.Mutex
	files map[string][]byte
}

// lucentcStale returns an error when kernel name (the function fn) is no
// longer the source its launcher was generated from (its hash is want): it
// reads the file the program was built from where the program can read it
// and it is not newer than the program (a program built elsewhere, with
// -trimpath, or from an older copy is not checked). Only the kernel's own
// declaration and directive count: lucentc -check and the test -gotest
// generates compare the whole kernel (its callees and types too).
func lucentcStale(qualified, name string, fn any, want, rerun string) error {
	pc := @reflect.ValueOf(fn).Pointer()
	rf := @runtime.FuncForPC(pc)
	if rf == nil {
		return nil
	}
	file, _ := rf.FileLine(pc)
	fi, err := @os.Stat(file)
	if err != nil {
		return nil
	}
	if exe, err := @os.Executable(); err == nil {
		if ei, err := @os.Stat(exe); err == nil && fi.ModTime().After(ei.ModTime()) {
			return nil
		}
	}
	lucentcSources.Lock()
	defer lucentcSources.Unlock()
	src, ok := lucentcSources.files[file]
	if !ok {
		src, err = @os.ReadFile(file)
		if err != nil {
			src = nil
		}
		if lucentcSources.files == nil {
			lucentcSources.files = map[string][]byte{}
		}
		lucentcSources.files[file] = src
	}
	if src == nil {
		return nil
	}
	got, ok := lucentcSourceHash(src, name)
	if !ok || got == want {
		return nil
	}
	return @fmt.Errorf("kernel %s (%s) changed since its launcher was generated: the launcher would run the old kernel; %s", qualified, file, rerun)
}

// lucentcSourceHash is lucentc's hash of kernel name's source in src: its
// //lucent:kernel directive and the tokens of its declaration.
func lucentcSourceHash(src []byte, name string) (hash string, ok bool) {
	fset := @token.NewFileSet()
	file, err := @parser.ParseFile(fset, "", src, @parser.ParseComments|@parser.SkipObjectResolution)
	if err != nil {
		return "", false
	}
	for _, decl := range file.Decls {
		fd, isFunc := decl.(*@ast.FuncDecl)
		if !isFunc || fd.Recv != nil || fd.Name.Name != name {
			continue
		}
		h := @sha256.New()
		if fd.Doc != nil {
			for _, c := range fd.Doc.List {
				if c.Text == "//lucent:kernel" || @strings.HasPrefix(c.Text, "//lucent:kernel ") {
					h.Write([]byte(@strings.Join(@strings.Fields(c.Text), " ") + "\n"))
				}
			}
		}
		tf := fset.File(fd.Pos())
		start, end := tf.Offset(fd.Pos()), tf.Offset(fd.End())
		var s @scanner.Scanner
		s.Init(@token.NewFileSet().AddFile("", -1, end-start), src[start:end], nil, 0)
		for {
			_, tok, lit := s.Scan()
			if tok == @token.EOF {
				break
			}
			h.Write([]byte(tok.String() + " " + lit + "\n"))
		}
		return @hex.EncodeToString(h.Sum(nil)[:16]), true
	}
	return "", false
}
`

// sourceHashImports are the packages sourceHashTemplate names.
var sourceHashImports = []string{"crypto/sha256", "encoding/hex", "fmt", "go/ast", "go/parser", "go/scanner", "go/token", "os", "reflect", "runtime", "strings", "sync"}

// sourceHashCode is sourceHashTemplate with the import names of f.
func (f *goFile) sourceHashCode() string {
	var pairs []string
	for _, p := range sourceHashImports {
		n := lastElem(p)
		pairs = append(pairs, "@"+n+".", f.importName(types.NewPackage(p, n))+".")
	}
	return strings.NewReplacer(pairs...).Replace(sourceHashTemplate)
}
