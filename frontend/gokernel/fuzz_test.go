package gokernel_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/spirv"
)

// newForms is a seed that holds every form the language gained with
// helpers over resources, in one file so that splices meet them together:
// pointers into buffer elements and fields, indexing through a pointer to a
// local array, views (x[lo:hi]) passed to helpers and sliced there, run-time
// vector components (At, Set), helpers taking buffers, textures, bindless
// arrays and accels, a generic helper, float atomics, kernel.Printf in a
// helper that takes a buffer, and indices of 2³² and more.
const newForms = `package fuzz

import "github.com/lucent-gpu/lucent/kernel"

type P struct {
	Pos, Vel kernel.Float3
	Sum      float32
}

func lerp[T float32 | float64](a, b, t T) T { return a + (b-a)*t }

func push(stack *[8]uint32, sp *uint32, v uint32) {
	stack[*sp] = v
	*sp++
}

func total(b []float32) float32 {
	s := float32(0)
	for _, x := range b {
		s += x
	}
	return s
}

func nudge(ps []P, i uint32, axis int) {
	p := &ps[i]
	p.Pos.Set(axis, p.Pos.At(axis)+1)
	v := &ps[i].Vel
	v.X = lerp(v.X, 1, 0.5)
	kernel.Printf("nudge %d %v", i, p.Pos)
}

func shade(tex kernel.Texture2D[kernel.Float4], x, y uint32) float32 { return tex.Read(x, y).X }

func fetch(arr kernel.Bindless, slot, i uint32) float32 { return kernel.BindlessBuffer[float32](arr, slot)[i] }

func blocked(scene kernel.Accel, r kernel.Ray) bool { return scene.TraceAny(r) }

//lucent:kernel block=64
func Forms(scene kernel.Accel, tex kernel.Texture2D[kernel.Float4], arr kernel.Bindless, ps []P, x, out []float32, rays []kernel.Ray, w uint32, far int) {
	i := kernel.DispatchID().X
	if i >= uint32(len(out)) || i >= uint32(len(ps)) || i >= uint32(len(rays)) {
		return
	}
	nudge(ps, i, int(i%3))
	var stack [8]uint32
	sp := uint32(0)
	push(&stack, &sp, i)
	win := x[i : i+w]
	inner := win[1:]
	s := total(win) + total(inner[:1]) + inner[0] + x[far] + win[far]
	s += shade(tex, i, 0) + fetch(arr, 0, i)
	if blocked(scene, rays[i]) {
		s++
	}
	kernel.AtomicAdd(&ps[0].Sum, s)
	kernel.AtomicSub(&out[0], 0.5)
	kernel.AtomicMax(&ps[0].Vel.X, s)
	out[i] = s + float32(stack[0]) + float32(sp)
}
`

// seeds are the corpus sources, positive and negative.
func seeds(f *testing.F) [][]byte {
	out := [][]byte{[]byte(newForms)}
	for _, pattern := range []string{"../../testdata/gokernel/*.go", "../../testdata/gokernel/*/*.go"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		sort.Strings(files) // the seed numbers FuzzSplice takes stay put
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
	"lerp(", "lerp[float32](", "lerp[int](", "[T float32 | float64]", "[T any]", "T", "kernel.AtomicAdd(&x[i], 1.5)",
	"kernel.AtomicSub(&p.Sum, s)", "kernel.AtomicMin(&out[0], -0.5)", "kernel.AtomicExchange(&out[0], 2)",
	"kernel.AtomicCAS(&out[0], 1, 2)", "scene", "scene.TraceClosest(rays[i])", "blocked(scene, rays[i])",
	"blocked(nil, rays[i])", "kernel.Accel", "kernel.Ray{}", "shade(tex, 0, 0)", "fetch(arr, i, i)", "nudge(ps, i, 7)",
	"nudge(ps[1:], i, -1)", "total(x[w:])", "x[1<<32+1]", "win[-1]", "x[far:]", "win[:far]", "1 << 40",
	"kernel.Printf(\"%d\", i)", "kernel.Printf(\"%v %g\", s)",
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

// The new-forms seed compiles as it is, to Validate-clean IR and SPIR-V, so
// the fuzzers start from programs that use every form rather than from one
// rejected at its first line.
func TestFuzzSeedCompiles(t *testing.T) {
	ks, errs := gokernel.Check("fuzz.go", []byte(newForms))
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	require.NoError(t, ks[0].Func.Validate())
	_, err := codegen.Emit(ks[0].Func, codegen.Options{Env: spirv.EnvVulkan1_2})
	require.NoError(t, err)
}
