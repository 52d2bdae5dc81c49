package gokernel

import (
	"fmt"

	"github.com/lucent-gpu/lucent/frontend/ir"
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
	formats map[string]ir.TexelFormat // texture parameter -> declared storage format
}

// texelFormats names the storage formats a texture parameter may declare
// with format=param:name.
var texelFormats = map[string]ir.TexelFormat{
	"rgba32f": ir.FormatRGBA32F, "rgba16f": ir.FormatRGBA16F, "rgba8": ir.FormatRGBA8,
	"r32f": ir.FormatR32F, "rgba32ui": ir.FormatRGBA32UI, "r32ui": ir.FormatR32UI,
	"rgba32i": ir.FormatRGBA32I, "r32i": ir.FormatR32I,
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

// misspeltDirective returns a line of the function's doc comment that reads
// as the directive but is not spelled as one (// lucent:kernel, with a
// space, or in another case), which would leave the function a plain one.
func misspeltDirective(fn *ast.FuncDecl) *ast.Comment {
	if fn.Doc == nil {
		return nil
	}
	for _, c := range fn.Doc.List {
		t := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(c.Text, "//")))
		if t == "lucent:kernel" || strings.HasPrefix(t, "lucent:kernel ") {
			return c
		}
	}
	return nil
}

// parseDirective reads "//lucent:kernel block=X[,Y[,Z]] [format=param:fmt…]".
// The block size is required: it is part of the compiled kernel (the SPIR-V
// LocalSize). A format option declares a texture parameter's storage format
// (rgba32f, rgba16f, rgba8, r32f, rgba32ui, r32ui, rgba32i, r32i); without
// one a texture of Float4/Int4/Uint4 texels is rgba32f/rgba32i/rgba32ui.
func parseDirective(c *ast.Comment) (directive, error) {
	d := directive{comment: c, block: [3]uint32{1, 1, 1}, formats: map[string]ir.TexelFormat{}}
	fields := strings.Fields(strings.TrimPrefix(c.Text, directivePrefix))
	sawBlock := false
	for _, f := range fields {
		key, val, ok := strings.Cut(f, "=")
		if ok && key == "format" {
			param, name, ok := strings.Cut(val, ":")
			tf, known := texelFormats[name]
			if !ok || param == "" || !known {
				return d, fmt.Errorf("format option %q is not param:format with format one of rgba32f, rgba16f, rgba8, r32f, rgba32ui, r32ui, rgba32i, r32i", val)
			}
			if _, twice := d.formats[param]; twice {
				return d, fmt.Errorf("format of %s is given twice", param)
			}
			d.formats[param] = tf
			continue
		}
		if !ok || key != "block" {
			return d, fmt.Errorf("unknown kernel option %q: the directive takes block=X[,Y[,Z]] and format=param:fmt, e.g. //lucent:kernel block=256", f)
		}
		if sawBlock {
			return d, fmt.Errorf("block is given twice: the directive takes one block=X[,Y[,Z]]")
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
