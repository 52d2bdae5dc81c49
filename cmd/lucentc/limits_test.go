package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLimits: kernels past the compiler's input bounds give file:line:col
// errors and status 1, in bounded memory and time: an array of 2^40
// elements, 100 nested ifs in a helper the kernel calls (past some 500 the go command itself refuses the file), an
// expression 2000 deep.
func TestLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("package kern\n\nimport \"github.com/lucent-gpu/lucent/kernel\"\n\n")
	b.WriteString("//lucent:kernel block=64\nfunc Huge(out []float32) {\n\tvar a [1 << 40]float32\n\ti := kernel.DispatchID().X\n\tout[i] = a[i%4]\n}\n\n")   // lines 5-10
	b.WriteString("//lucent:kernel block=64\nfunc Deep(out []uint32) {\n\ti := kernel.DispatchID().X\n\tout[i] = i" + strings.Repeat("+i", 2000) + "\n}\n\n") // lines 12-16
	b.WriteString("//lucent:kernel block=64\nfunc Nested(out []uint32) {\n\ti := kernel.DispatchID().X\n\tout[i] = helper(i)\n}\n\n")                         // lines 18-22
	b.WriteString("func helper(i uint32) uint32 {\n")                                                                                                         // line 24
	for d := range 100 {
		fmt.Fprintf(&b, "if i != %d {\n", d) // line 25+d
	}
	b.WriteString("i++\n" + strings.Repeat("}\n", 100) + "return i\n}\n")
	dir := tempModule(t, map[string]string{"kern/kern.go": b.String()})
	out := t.TempDir()
	_, stderr, code := lucentc(t, "-C", dir, "-o", out, "./kern")
	require.Equal(t, 1, code, stderr)
	for _, want := range []string{
		"kern.go:7:6: [1099511627776]float32 is 4 TiB, more than the 1 MiB a type may take (ir.MaxTypeSize)",
		"kern.go:15:11: expression nested more than 1024 deep (ir.MaxExprDepth)",
		fmt.Sprintf("kern.go:%d:1: an if nested 65 deep, more than 64 (ir.MaxNesting", 25+64),
	} {
		require.Contains(t, stderr, want)
	}
	require.Regexp(t, `lucentc: \d+ errors\n$`, stderr)
	files, _ := filepath.Glob(filepath.Join(out, "*"))
	require.Empty(t, files)
}
