// Command frontcold measures the Go-subset front end's cold start: one new
// process compiling one kernel file to SPIR-V, against glslangValidator on
// the same kernel in GLSL and naga on it in WGSL, run interleaved, one
// round after another, so that all see the same machine.
//
//	go build -o /tmp/frontcold ./bench/frontcold
//	/tmp/frontcold -rounds 31            # cold, from the repository root
//	/tmp/frontcold -warm 200             # warm: repeated compiles in one process
//
// Each round runs, in a rotating order: this program as a child compiling
// bench/frontcold/testdata/saxpy with gokernel.Load (the source loader), the
// same with gokernel.Config.GoPackages (go/packages with export data, the
// path before the source loader), the same file through gokernel.Check, the
// two source loads again with LUCENT_GOKERNEL_CACHE=off (what the first
// compile in a fresh cache costs), this program as a child that compiles
// nothing (the process's start-up: what a compile adds is the difference),
// and `glslangValidator -V` and `naga` when they are on PATH, naga also on
// an empty WGSL file (its start-up, likewise). It prints, per
// tool, the median wall and CPU time (user+system, the go command's included)
// with the fastest and slowest round, and the median over rounds of each
// tool's wall time divided by glslangValidator's in the same round.
//
// -warm N compiles the same file N times in this process (gokernel.Load of
// the package, and gokernel.Check of the file), the one-kernel packages
// mandelbrot and nbody N times, and the whole corpus testdata/gokernel N/10
// times, source to SPIR-V words, and prints the median per kernel.
//
// -naga N runs naga N interleaved rounds on saxpy.wgsl, mandelbrot.wgsl,
// nbody.wgsl and an empty file, and prints per kernel the median over
// rounds of its CPU time minus the empty file's in the same round: naga's
// per-kernel cost without its process start-up (only naga's CLI is here).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/spirv"
)

const (
	pkgDir   = "bench/frontcold/testdata/saxpy"
	glslFile = "testdata/frontend/saxpy.comp"
	wgslFile = "bench/frontcold/testdata/saxpy.wgsl"
	corpus   = "testdata/gokernel"
)

func main() {
	child := flag.String("child", "", "compile the kernels of this package directory (load, gopackages) or file (check) and exit")
	mode := flag.String("mode", "load", "the child's front end: load, gopackages, check, or none (start-up only)")
	out := flag.String("o", "", "where the child writes the SPIR-V of the first kernel")
	rounds := flag.Int("rounds", 21, "interleaved rounds")
	warm := flag.Int("warm", 0, "compile in this process this many times instead")
	naga := flag.Int("naga", 0, "run naga on each kernel and an empty file this many interleaved rounds instead")
	flag.Parse()
	var err error
	switch {
	case *child != "":
		err = compileOnce(*child, *mode, *out)
	case *warm > 0:
		err = warmRuns(*warm)
	case *naga > 0:
		err = nagaRounds(*naga)
	default:
		err = coldRounds(*rounds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "frontcold:", err)
		os.Exit(1)
	}
}

// compile turns the kernels of dir (or of the file dir, with check) into
// SPIR-V words and returns how many kernels and words.
func compile(path, mode string) (kernels int, words [][]uint32, err error) {
	var ks []*gokernel.Kernel
	var errs []error
	switch mode {
	case "load":
		ks, errs = (&gokernel.Config{Dir: path}).Load(".")
	case "gopackages":
		ks, errs = (&gokernel.Config{Dir: path, GoPackages: true}).Load(".")
	case "none":
		return 0, nil, nil
	case "check":
		src, err := os.ReadFile(path)
		if err != nil {
			return 0, nil, err
		}
		ks, errs = gokernel.Check(path, src)
	default:
		return 0, nil, fmt.Errorf("unknown mode %q", mode)
	}
	if len(errs) > 0 {
		return 0, nil, errs[0]
	}
	if len(ks) == 0 && mode != "none" {
		return 0, nil, fmt.Errorf("%s: no kernels", path)
	}
	for _, k := range ks {
		w, err := codegen.Emit(k.Func, codegen.Options{Env: spirv.EnvVulkan1_2})
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w", k.Name, err)
		}
		words = append(words, w)
	}
	return len(ks), words, nil
}

func compileOnce(path, mode, out string) error {
	_, words, err := compile(path, mode)
	if err != nil {
		return err
	}
	if out != "" && len(words) > 0 {
		b := make([]byte, 0, 4*len(words[0]))
		for _, w := range words[0] {
			b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
		}
		return os.WriteFile(out, b, 0o644)
	}
	return nil
}

// tool is one command a round runs.
type tool struct {
	name string
	args []string
	env  []string // added to the environment
	wall []time.Duration
	cpu  []time.Duration
}

func coldRounds(n int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "frontcold")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	outFile := filepath.Join(tmp, "out.spv")
	tools := []*tool{
		{name: "lucent Load", args: []string{self, "-child", pkgDir, "-mode", "load", "-o", outFile}},
		{name: "lucent Load, no disk cache", args: []string{self, "-child", pkgDir, "-mode", "load", "-o", outFile}, env: []string{"LUCENT_GOKERNEL_CACHE=off"}},
		{name: "lucent Load, go/packages (before)", args: []string{self, "-child", pkgDir, "-mode", "gopackages", "-o", outFile}},
		{name: "lucent Check", args: []string{self, "-child", filepath.Join(pkgDir, "saxpy.go"), "-mode", "check", "-o", outFile}},
		{name: "lucent Check, no disk cache", args: []string{self, "-child", filepath.Join(pkgDir, "saxpy.go"), "-mode", "check", "-o", outFile}, env: []string{"LUCENT_GOKERNEL_CACHE=off"}},
		{name: "lucent start-up only (no compile)", args: []string{self, "-child", pkgDir, "-mode", "none"}},
	}
	var glslang *tool
	if p, err := exec.LookPath("glslangValidator"); err == nil {
		glslang = &tool{name: "glslangValidator -V", args: []string{p, "-V", glslFile, "-o", outFile}}
		tools = append(tools, glslang)
	}
	if p, err := exec.LookPath("naga"); err == nil {
		tools = append(tools, &tool{name: "naga (WGSL)", args: []string{p, wgslFile, outFile}})
		empty := filepath.Join(tmp, "empty.wgsl")
		if err := os.WriteFile(empty, nil, 0o644); err != nil {
			return err
		}
		tools = append(tools, &tool{name: "naga, empty WGSL file (start-up only)", args: []string{p, empty, filepath.Join(tmp, "empty.spv")}})
	}
	// One unmeasured round fills the caches (the go command's, the page cache).
	for _, t := range tools {
		if _, _, err := run(t); err != nil {
			return err
		}
	}
	for r := range n {
		for i := range tools {
			t := tools[(i+r)%len(tools)]
			wall, cpu, err := run(t)
			if err != nil {
				return err
			}
			t.wall = append(t.wall, wall)
			t.cpu = append(t.cpu, cpu)
		}
	}
	fmt.Printf("%d interleaved rounds, one process per compile of one kernel (saxpy)\n\n", n)
	fmt.Println("| tool | wall median (min–max) | CPU median (min–max) | wall / glslangValidator, median of rounds |")
	fmt.Println("|---|---|---|---|")
	for _, t := range tools {
		ratio := "—"
		if glslang != nil {
			rs := make([]float64, n)
			for i := range rs {
				rs[i] = float64(t.wall[i]) / float64(glslang.wall[i])
			}
			ratio = fmt.Sprintf("%.2f×", median(rs))
		}
		fmt.Printf("| %s | %s | %s | %s |\n", t.name, spread(t.wall), spread(t.cpu), ratio)
	}
	return nil
}

// run runs one command and returns its wall and CPU time.
func run(t *tool) (time.Duration, time.Duration, error) {
	args := t.args
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), t.env...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%v: %w", args, err)
	}
	wall := time.Since(start)
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func spread(ds []time.Duration) string {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d) / 1e6
	}
	return fmt.Sprintf("%.1f ms (%.1f–%.1f)", median(xs), slices.Min(xs), slices.Max(xs))
}

// warmRuns compiles in this process: the first compile pays for go list and
// for type-checking math and the kernel package; the rest are what a tool
// that compiles again and again pays.
func warmRuns(n int) error {
	for _, c := range []struct {
		name, path, mode string
		n                int
	}{
		{"Load saxpy (1 kernel)", pkgDir, "load", n},
		{"Check saxpy.go (1 kernel)", filepath.Join(pkgDir, "saxpy.go"), "check", n},
		{"Load mandelbrot (1 kernel)", "bench/frontcold/testdata/mandelbrot", "load", n},
		{"Load nbody (1 kernel)", "bench/frontcold/testdata/nbody", "load", n},
		{"Load testdata/gokernel", corpus, "load", max(n/10, 3)},
		{"Load saxpy, go/packages", pkgDir, "gopackages", max(n/10, 3)},
	} {
		var per []float64
		var first time.Duration
		kernels := 0
		for i := range c.n + 1 {
			start := time.Now()
			k, _, err := compile(c.path, c.mode)
			if err != nil {
				return err
			}
			d := time.Since(start)
			kernels = k
			if i == 0 {
				first = d
				continue
			}
			per = append(per, float64(d)/float64(k)/1e3)
		}
		s := slices.Clone(per)
		sort.Float64s(s)
		fmt.Printf("| %s | %d kernels | first %.1f ms | then %.0f µs per kernel (p10 %.0f, p90 %.0f), %d runs |\n",
			c.name, kernels, float64(first)/1e6, median(per), s[len(s)/10], s[len(s)*9/10], c.n)
	}
	return nil
}

// nagaRounds measures naga's per-kernel CPU time: each kernel's process
// minus the empty file's process in the same round.
func nagaRounds(n int) error {
	p, err := exec.LookPath("naga")
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "frontcold")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	empty := filepath.Join(tmp, "empty.wgsl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		return err
	}
	out := filepath.Join(tmp, "out.spv")
	files := []string{wgslFile, "bench/frontcold/testdata/mandelbrot.wgsl", "bench/frontcold/testdata/nbody.wgsl", empty}
	tools := make([]*tool, len(files))
	for i, f := range files {
		tools[i] = &tool{name: f, args: []string{p, f, out}}
	}
	for r := range n + 1 {
		for i := range tools {
			t := tools[(i+r)%len(tools)]
			_, cpu, err := run(t)
			if err != nil {
				return err
			}
			if r > 0 { // the first round fills the page cache
				t.cpu = append(t.cpu, cpu)
			}
		}
	}
	base := tools[len(tools)-1]
	fmt.Printf("%d interleaved rounds; naga on an empty file: CPU median %.2f ms\n\n", n, median(ms(base.cpu)))
	fmt.Println("| kernel | naga CPU median | minus the empty file, median of rounds (p25–p75) |")
	fmt.Println("|---|---|---|")
	for _, t := range tools[:len(tools)-1] {
		d := make([]float64, n)
		for i := range d {
			d[i] = float64(t.cpu[i]-base.cpu[i]) / 1e6
		}
		s := slices.Clone(d)
		sort.Float64s(s)
		fmt.Printf("| %s | %.2f ms | %.2f ms (%.2f–%.2f) |\n", filepath.Base(t.name), median(ms(t.cpu)), median(d), s[n/4], s[n*3/4])
	}
	return nil
}

func ms(ds []time.Duration) []float64 {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = float64(d) / 1e6
	}
	return xs
}
