// Command lucent is lucent's front door: it lists the backends and devices the
// runtime sees and the default choice (`lucent info`), and renders the demo
// scene on the default device (`lucent demo`; the cpu backend where there is
// no Vulkan, LUCENT_BACKEND=<name> to choose). Benchmarks that
// compare lucent with a reference live under bench/ (`make bench`).
//
// Each subcommand lives in its own file and registers itself in init, so this
// file only parses the first argument and reports errors.
package main

import (
	"fmt"
	"os"
	"sort"
)

// subcommand is one verb of the lucent command.
type subcommand struct {
	summary string
	run     func(args []string) error
}

var subcommands = map[string]subcommand{}

func register(name, summary string, run func(args []string) error) {
	subcommands[name] = subcommand{summary: summary, run: run}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: lucent <command> [flags]")
	fmt.Fprintln(os.Stderr, "commands:")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-8s %s\n", n, subcommands[n].summary)
	}
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	cmd, ok := subcommands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "lucent: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err := cmd.run(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "lucent %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
