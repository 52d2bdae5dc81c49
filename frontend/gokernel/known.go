package gokernel

import (
	"bytes"
	"embed"
	"fmt"
	"go/token"
	"go/types"
	"sync"

	"golang.org/x/tools/go/gcexportdata"
)

// The known packages.
//
// Kernels import the kernel package, math and math/bits: packages fixed
// for a given lucent, whose declarations (not their bodies, which are never
// lowered) are all a kernel package is checked against. lucent ships them
// checked, as export data (go/gcexportdata) under known/, written by go
// generate from their source; TestKnownPackagesCurrent fails when the copy
// no longer declares what the source does. A process reads them once, on
// first use, instead of finding, parsing and checking their source or
// asking the go command for them. The kernel package's export data carries
// the declarations of the standard packages its API names (context, sync
// …) that it needs, so nothing else is imported.

//go:generate go test -run ^TestKnownPackagesCurrent$ -update-known .

//go:embed known/*.x
var knownFiles embed.FS

// knownOrder is the order the known packages are read in, each after those
// it imports, so that all share one package per path.
var knownOrder = []struct{ path, file string }{
	{"math/bits", "known/bits.x"},
	{"math", "known/math.x"},
	{kernelPath, "known/kernel.x"},
}

// knownPackages reads the known packages, once per process.
var knownPackages = sync.OnceValues(func() (map[string]*types.Package, error) {
	imports := map[string]*types.Package{}
	fset := token.NewFileSet()
	for _, k := range knownOrder {
		b, err := knownFiles.ReadFile(k.file)
		if err != nil {
			return nil, err
		}
		pkg, err := gcexportdata.Read(bytes.NewReader(b), fset, imports, k.path)
		if err != nil {
			return nil, fmt.Errorf("reading the export data of %s: %w", k.path, err)
		}
		imports[k.path] = pkg
	}
	known := map[string]*types.Package{"unsafe": types.Unsafe}
	for _, k := range knownOrder {
		known[k.path] = imports[k.path]
	}
	return known, nil
})

// isKnown reports whether path is a package lucent ships checked (or
// unsafe).
func isKnown(path string) bool {
	return path == "unsafe" || path == "math" || path == "math/bits" || path == kernelPath
}

// knownPackage returns one of the known packages.
func knownPackage(path string) (*types.Package, error) {
	if !isKnown(path) {
		return nil, fmt.Errorf("%s is not a package lucent knows", path)
	}
	known, err := knownPackages()
	if err != nil {
		return nil, err
	}
	return known[path], nil
}
