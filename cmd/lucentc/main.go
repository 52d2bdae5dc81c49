package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lucent-gpu/lucent/spirv"
)

// config is the parsed command line.
type config struct {
	outDir   string          // -o: where .spv files go ("" writes none)
	asm      bool            // -S: print disassembly on stdout
	printIR  bool            // -ir: print each kernel's IR on stdout
	optimize bool            // -O
	size     bool            // -Os
	validate bool            // -validate
	env      spirv.TargetEnv // -target
	goFile   bool            // -go: write lucent_kernels.go into each package
	goOut    string          // -goout: write the launchers into this directory instead
	goPkg    string          // -gopkg: package name of the -goout package
	goTest   bool            // -gotest: with -go, also write lucent_kernels_test.go
	atomics  bool            // -atomicfloat: native float32 atomic add
	names    bool            // -names: keep debug names
	verbose  bool            // -v
	check    bool            // -check: compare outputs with the files instead of writing them
	stale    []string        // -check: the outputs that differ
	dir      string          // -C: directory the patterns are resolved in
	patterns []string
	stdout   io.Writer
	stderr   io.Writer
	progress int // kernels from which progress is shown without -v
}

// targets maps the -target spellings to environments.
var targets = map[string]spirv.TargetEnv{
	"vulkan1.1": spirv.EnvVulkan1_1,
	"vulkan1.2": spirv.EnvVulkan1_2,
	"vulkan1.3": spirv.EnvVulkan1_3,
}

const usageText = `usage: lucentc [flags] [packages]

lucentc compiles every //lucent:kernel function of the named packages
(default ".") to SPIR-V: one <pkg>.<Kernel>.spv file per kernel in the -o
directory, and with -go a Go file per package embedding the modules with a
typed launcher per kernel (NewKernel(dev), Dispatch, Close), so that a
"//go:generate go tool lucentc -go ." line (after go get -tool
github.com/lucent-gpu/lucent/cmd/lucentc) is all a package needs.

Errors are listed together as file:line:col: message; the exit status is 1
when any kernel fails to compile and 2 for a bad command line.

flags:
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command with its streams, returning the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stdout, stderr)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "lucentc: %v\n", err)
		fmt.Fprintln(stderr, "run 'lucentc -h' for usage")
		return 2
	}
	errs := compile(cfg)
	if len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintln(stderr, e)
		}
		if len(errs) > 1 {
			fmt.Fprintf(stderr, "lucentc: %d errors\n", len(errs))
		}
		return 1
	}
	return 0
}

func parseFlags(args []string, stdout, stderr io.Writer) (*config, error) {
	cfg := &config{stdout: stdout, stderr: stderr, progress: 5}
	fs := flag.NewFlagSet("lucentc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.outDir, "o", "", "write one `dir`/<pkg>.<Kernel>.spv per kernel (default: the current directory when neither -S nor -go is given)")
	fs.BoolVar(&cfg.asm, "S", false, "print each module's disassembly on standard output")
	fs.BoolVar(&cfg.printIR, "ir", false, "print each kernel's IR (its text form, with the callables it calls) on standard output")
	fs.BoolVar(&cfg.optimize, "O", false, "optimize for speed with SPIRV-Tools (spirv-opt -O); measure first, it can be slower on some drivers")
	fs.BoolVar(&cfg.size, "Os", false, "optimize for size with SPIRV-Tools (spirv-opt -Os)")
	fs.BoolVar(&cfg.validate, "validate", true, "check every module with the SPIR-V validator")
	target := fs.String("target", "vulkan1.2", "target `environment`: vulkan1.1, vulkan1.2 or vulkan1.3")
	fs.BoolVar(&cfg.goFile, "go", false, "write lucent_kernels.go with the modules and typed launchers into each kernel package")
	fs.StringVar(&cfg.goOut, "goout", "", "with -go, write the launchers into `dir` (a separate package) instead of the kernel package")
	fs.StringVar(&cfg.goPkg, "gopkg", "", "package `name` of the -goout file (default: the directory's base name)")
	fs.BoolVar(&cfg.goTest, "gotest", false, "with -go, also write lucent_kernels_test.go beside the launchers: a test failing, as -check does, for each kernel changed since its launcher was generated, without one, or gone")
	fs.BoolVar(&cfg.atomics, "atomicfloat", false, "use native float32 atomic add (SPV_EXT_shader_atomic_float_add) instead of compare-and-swap loops")
	fs.BoolVar(&cfg.names, "names", false, "keep debug names (OpName) in the modules")
	fs.BoolVar(&cfg.check, "check", false, "write nothing; fail naming each kernel whose launcher (lucent_kernels.go, found with or without -go) was generated from other source, each output file that is missing or differs, and each .spv in -o of a compiled package's kernel that is gone (for a test or CI step that catches stale generated files)")
	fs.BoolVar(&cfg.verbose, "v", false, "print each kernel and the time of each stage on standard error")
	fs.StringVar(&cfg.dir, "C", "", "resolve packages in `dir` (as go -C)")
	// The flag package would print a bad flag's error and the usage itself;
	// run prints the error once, and -h the usage on stdout.
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fs.SetOutput(stdout)
			fmt.Fprint(stdout, usageText)
			fs.PrintDefaults()
		}
		return nil, err
	}
	env, ok := targets[strings.ToLower(*target)]
	if !ok {
		return nil, fmt.Errorf("-target %q: want vulkan1.1, vulkan1.2 or vulkan1.3", *target)
	}
	cfg.env = env
	if cfg.optimize && cfg.size {
		return nil, fmt.Errorf("-O and -Os exclude each other")
	}
	if (cfg.goOut != "" || cfg.goPkg != "" || cfg.goTest) && !cfg.goFile {
		return nil, fmt.Errorf("-goout, -gopkg and -gotest need -go")
	}
	if cfg.dir != "" {
		if st, err := os.Stat(cfg.dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("-C %s: not a directory", cfg.dir)
		}
	}
	if cfg.goPkg != "" && !isIdent(cfg.goPkg) {
		return nil, fmt.Errorf("-gopkg %q is not a Go identifier", cfg.goPkg)
	}
	if cfg.goPkg != "" && cfg.goOut == "" {
		return nil, fmt.Errorf("-gopkg names the package of -goout, which is not given")
	}
	if cfg.outDir == "" && !cfg.asm && !cfg.printIR && !cfg.goFile && !cfg.check {
		cfg.outDir = "."
	}
	cfg.patterns = fs.Args()
	if len(cfg.patterns) == 0 {
		cfg.patterns = []string{"."}
	}
	return cfg, nil
}
