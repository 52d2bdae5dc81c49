package main

import (
	"crypto/sha256"
	"encoding/hex"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"strings"
)

// kernelSourceHash is the hash of kernel name's source in the Go file src:
// the last //lucent:kernel comment before its declaration (fields joined
// by one space) and the tokens of the declaration from func to the closing
// brace of its body (comments and layout do not count), the first 16 bytes
// of their SHA-256 in hex. ok is false when src declares no such function.
// It scans (go/scanner) rather than parses, so that the launchers, which
// carry a copy of it, do not link go/parser into every program.
//
// A launcher embeds the hash of the source it was generated from and its
// constructor computes it again from the file the program was built from
// (lucentcSourceHash, generated from sourceHashTemplate): the two must stay
// the same algorithm, which TestLauncherStaleAtRunTime checks.
func kernelSourceHash(src []byte, name string) (hash string, ok bool) {
	var s scanner.Scanner
	s.Init(token.NewFileSet().AddFile("", -1, len(src)), src, nil, scanner.ScanComments)
	depth, directive := 0, ""
	for {
		_, tok, lit := s.Scan()
		switch {
		case tok == token.EOF:
			return "", false
		case tok == token.COMMENT:
			if depth == 0 && (lit == "//lucent:kernel" || strings.HasPrefix(lit, "//lucent:kernel ")) {
				directive = strings.Join(strings.Fields(lit), " ")
			}
			continue
		case tok == token.LPAREN || tok == token.LBRACE || tok == token.LBRACK:
			depth++
		case tok == token.RPAREN || tok == token.RBRACE || tok == token.RBRACK:
			depth--
		case tok == token.FUNC && depth == 0:
			_, t2, l2 := s.Scan()
			if t2 != token.IDENT || l2 != name {
				if t2 == token.LPAREN {
					depth++ // a method's receiver
				}
				break
			}
			h := sha256.New()
			h.Write([]byte(directive + "\n" + "func\n" + l2 + "\n"))
			body := false
			for d := 0; ; {
				_, tok, lit := s.Scan()
				switch tok {
				case token.EOF:
					return "", false
				case token.COMMENT:
					continue
				case token.LPAREN, token.LBRACK:
					d++
				case token.RPAREN, token.RBRACK:
					d--
				case token.LBRACE:
					body = body || d == 0
					d++
				case token.RBRACE:
					d--
				}
				h.Write([]byte(tok.String() + " " + lit + "\n"))
				if body && d == 0 {
					return hex.EncodeToString(h.Sum(nil)[:16]), true
				}
			}
		}
		if tok != token.SEMICOLON {
			directive = "" // the directive is in the comments right before func
		}
	}
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

// lucentcSourceHash is lucentc's hash of kernel name's source in src: the
// //lucent:kernel directive before it and the tokens of its declaration.
func lucentcSourceHash(src []byte, name string) (hash string, ok bool) {
	var s @scanner.Scanner
	s.Init(@token.NewFileSet().AddFile("", -1, len(src)), src, nil, @scanner.ScanComments)
	depth, directive := 0, ""
	for {
		_, tok, lit := s.Scan()
		switch {
		case tok == @token.EOF:
			return "", false
		case tok == @token.COMMENT:
			if depth == 0 && (lit == "//lucent:kernel" || @strings.HasPrefix(lit, "//lucent:kernel ")) {
				directive = @strings.Join(@strings.Fields(lit), " ")
			}
			continue
		case tok == @token.LPAREN || tok == @token.LBRACE || tok == @token.LBRACK:
			depth++
		case tok == @token.RPAREN || tok == @token.RBRACE || tok == @token.RBRACK:
			depth--
		case tok == @token.FUNC && depth == 0:
			_, t2, l2 := s.Scan()
			if t2 != @token.IDENT || l2 != name {
				if t2 == @token.LPAREN {
					depth++ // a method's receiver
				}
				break
			}
			h := @sha256.New()
			h.Write([]byte(directive + "\n" + "func\n" + l2 + "\n"))
			body := false
			for d := 0; ; {
				_, tok, lit := s.Scan()
				switch tok {
				case @token.EOF:
					return "", false
				case @token.COMMENT:
					continue
				case @token.LPAREN, @token.LBRACK:
					d++
				case @token.RPAREN, @token.RBRACK:
					d--
				case @token.LBRACE:
					body = body || d == 0
					d++
				case @token.RBRACE:
					d--
				}
				h.Write([]byte(tok.String() + " " + lit + "\n"))
				if body && d == 0 {
					return @hex.EncodeToString(h.Sum(nil)[:16]), true
				}
			}
		}
		if tok != @token.SEMICOLON {
			directive = "" // the directive is in the comments right before func
		}
	}
}
`

// sourceHashImports are the packages sourceHashTemplate names.
var sourceHashImports = []string{"crypto/sha256", "encoding/hex", "fmt", "go/scanner", "go/token", "os", "reflect", "runtime", "strings", "sync"}

// sourceHashCode is sourceHashTemplate with the import names of f.
func (f *goFile) sourceHashCode() string {
	var pairs []string
	for _, p := range sourceHashImports {
		n := lastElem(p)
		pairs = append(pairs, "@"+n+".", f.importName(types.NewPackage(p, n))+".")
	}
	return strings.NewReplacer(pairs...).Replace(sourceHashTemplate)
}
