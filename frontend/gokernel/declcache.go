package gokernel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"golang.org/x/tools/go/gcexportdata"
)

// The declarations cache.
//
// Checking math and the kernel package from source costs a cold process
// more than the rest of a compile of one kernel file. What the check
// produces depends only on their files, this compiler (the Go release it
// was built with, kernelStubs) and nothing else, so the source loader
// writes it as export data (go/gcexportdata, the format go/packages reads
// from the go command) into the user's cache directory, named by a hash of
// all of those with every file's path, size and time; a later process
// reads it back instead of parsing. A copy that does not read is ignored.

// declsFormat changes when what checkDecls keeps changes.
const declsFormat = "gokernel decls v1"

// declsKey names the export data of a declaration-only package checked from
// the stamped files.
func declsKey(lp *listedPackage, stamps []fileStamp) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", declsFormat, runtime.Version(), lp.ImportPath, lp.Dir)
	stubPaths := make([]string, 0, len(kernelStubs))
	for p := range kernelStubs {
		stubPaths = append(stubPaths, p)
	}
	sort.Strings(stubPaths)
	for _, p := range stubPaths {
		fmt.Fprintf(h, "%s\x00%s\x00", p, kernelStubs[p])
	}
	for _, s := range stamps {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", s.path, s.size, s.mtime.UnixNano())
	}
	return "decls-" + hex.EncodeToString(h.Sum(nil)[:16]) + ".x"
}

// readDecls reads a declaration-only package back, or returns nil.
func readDecls(name, path string) *types.Package {
	dir := cacheDir()
	if dir == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil
	}
	pkg, err := gcexportdata.Read(bytes.NewReader(b), token.NewFileSet(), map[string]*types.Package{}, path)
	if err != nil {
		return nil
	}
	return pkg
}

// writeDecls writes a checked declaration-only package for later processes.
func writeDecls(name string, fset *token.FileSet, pkg *types.Package) {
	dir := cacheDir()
	if dir == "" {
		return
	}
	var b bytes.Buffer
	if gcexportdata.Write(&b, fset, pkg) != nil {
		return
	}
	writeCacheFile(dir, name, b.Bytes())
}
