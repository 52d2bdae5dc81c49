package gokernel

import (
	"fmt"
	"go/ast"
	"strconv"
	"strings"
)

// directivePrefix marks a kernel in a function's doc comment.
const directivePrefix = "//lucent:kernel"

// directive is a parsed //lucent:kernel line.
type directive struct {
	comment *ast.Comment
	dim     int
	block   [3]uint32
}

// findDirective returns the function's //lucent:kernel directive, or nil.
func findDirective(fn *ast.FuncDecl) *ast.Comment {
	if fn.Doc == nil {
		return nil
	}
	for _, c := range fn.Doc.List {
		if c.Text == directivePrefix || strings.HasPrefix(c.Text, directivePrefix+" ") {
			return c
		}
	}
	return nil
}

// parseDirective reads "//lucent:kernel block=X[,Y[,Z]]". The block size is
// required: it is part of the compiled kernel (the SPIR-V LocalSize).
func parseDirective(c *ast.Comment) (directive, error) {
	d := directive{comment: c, block: [3]uint32{1, 1, 1}}
	fields := strings.Fields(strings.TrimPrefix(c.Text, directivePrefix))
	sawBlock := false
	for _, f := range fields {
		key, val, ok := strings.Cut(f, "=")
		if !ok || key != "block" {
			return d, fmt.Errorf("unknown kernel option %q: the directive takes block=X[,Y[,Z]], e.g. //lucent:kernel block=256", f)
		}
		parts := strings.Split(val, ",")
		if len(parts) > 3 {
			return d, fmt.Errorf("block=%s has %d dimensions: a kernel has 1, 2 or 3", val, len(parts))
		}
		total := uint64(1)
		for i, p := range parts {
			n, err := strconv.ParseUint(p, 10, 32)
			if err != nil || n == 0 {
				return d, fmt.Errorf("block size %q is not a positive integer: write e.g. block=16,16", p)
			}
			d.block[i] = uint32(n)
			total *= n
		}
		if total > 1024 {
			return d, fmt.Errorf("block=%s has %d threads: a block holds at most 1024", val, total)
		}
		d.dim = len(parts)
		sawBlock = true
	}
	if !sawBlock {
		return d, fmt.Errorf("kernel directive has no block size: write e.g. //lucent:kernel block=256")
	}
	return d, nil
}
