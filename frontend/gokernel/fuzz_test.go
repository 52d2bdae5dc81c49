package gokernel_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/spirv"
)

// seeds are the corpus sources, positive and negative.
func seeds(f *testing.F) [][]byte {
	var out [][]byte
	for _, pattern := range []string{"../../testdata/gokernel/*.go", "../../testdata/gokernel/bad/*.go"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range files {
			src, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			out = append(out, src)
		}
	}
	return out
}

// checkNoCrash compiles src and, for every kernel that compiles, emits
// SPIR-V: nothing may panic, and no error may be one the compiler blames on
// itself.
func checkNoCrash(t *testing.T, src []byte) {
	kernels, errs := gokernel.Check("fuzz.go", src)
	for _, e := range errs {
		if strings.Contains(e.Error(), "compiler bug") || strings.Contains(e.Error(), "internal error") {
			t.Fatalf("front end blames itself: %v\nsource:\n%s", e, src)
		}
	}
	for _, k := range kernels {
		if err := k.Func.Validate(); err != nil {
			t.Fatalf("kernel %s passed the front end but not Validate: %v", k.Name, err)
		}
		_, _ = codegen.Emit(k.Func, codegen.Options{Env: spirv.EnvVulkan1_2})
	}
}

// FuzzCheck mutates kernel source bytes.
func FuzzCheck(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkNoCrash(t, src) })
}

// splices are Go fragments FuzzSplice drops into kernels: most of them are
// outside the subset, or change types, so the front end's errors (not only
// the parser's) are exercised.
var splices = []string{
	"go ", "defer ", "&", "*", "-", "^", "!", "<-", "[]float32{1}", "make([]int, 1)", "new(int32)",
	"map[int]int{}", "func() {}", "string", "int64", "uint8", "float64", "int", "kernel.Barrier()",
	"kernel.DispatchID()", "kernel.ThreadID().Y", "kernel.Shared[[4]int32]()", "len(", "min(", "math.Sqrt(",
	"float32(", "uint32(", "[2]", ".X", ".W", "break", "continue", "return", "fallthrough", "switch", "case 1:",
	"for ", "range ", "if ", "else ", "{", "}", "(", ")", ",", ";", ":=", "=", "+=", "<<", ">>", "&^", "%",
	"x", "i", "y", "0", "1", "1.5", "1e40", "-1", "true", "nil", "_", "kernel.AtomicAdd(&", "kernel.SubgroupAdd(",
	"kernel.F3(1, 2, 3)", "kernel.Float4x4{}", "struct{ A bool }{}", "any(1)", "interface{}", "chan int",
	"goto L", "L:", "select {}", "panic(0)", "println()", "complex(1, 2)", "y[1:]", "append(y, 1)",
	"arr.Texture2D(0)", "arr.Texture2D(i)", ".Sample(kernel.F2(0, 1))", ".Sample(", "tex", "src", ".Read(0, 0)", ".Size()",
	"[]float32", "*[]float32", "nodes", "spheres", "prev", "closestHit(nodes, b, r)", "readState(prev, 0, 0)", "load(arr, 0, i)",
	"p := &y[i]", "&y[i].Pos", "p.Vel", "*p", "y[1:3]", "y[i:i+w]", "y[:n]", "[1:]", "[lo:hi:max]", "win", "inner",
	".At(i)", ".At(int(i))", ".Set(0, 1)", ".Set(int(axis), v.At(2))", "(*stack)[*sp]", "stack[*sp]", "&stack", "&sp",
}

// FuzzSplice inserts or replaces fragments at token boundaries of corpus kernels.
func FuzzSplice(f *testing.F) {
	srcs := seeds(f)
	for i := range srcs {
		f.Add(uint8(i), uint16(i*37), uint8(i), false)
		f.Add(uint8(i), uint16(i*91), uint8(i*7), true)
	}
	f.Fuzz(func(t *testing.T, which uint8, at uint16, frag uint8, replace bool) {
		src := srcs[int(which)%len(srcs)]
		// Cut at a byte that starts or ends a token-ish run.
		pos := int(at) % (len(src) + 1)
		for pos < len(src) && isIdent(src[pos]) && pos > 0 && isIdent(src[pos-1]) {
			pos++
		}
		end := pos
		if replace {
			for end < len(src) && isIdent(src[end]) {
				end++
			}
			if end == pos && end < len(src) {
				end++
			}
		}
		mut := make([]byte, 0, len(src)+32)
		mut = append(mut, src[:pos]...)
		mut = append(mut, splices[int(frag)%len(splices)]...)
		mut = append(mut, src[end:]...)
		checkNoCrash(t, mut)
	})
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
