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
	"errors"
	"flag"
	"fmt"
	"io"
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

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: lucent <command> [flags]")
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, subcommands[n].summary)
	}
	fmt.Fprintln(w, `run "lucent <command> -h" for a command's flags`)
}

// errUsage is a subcommand's error when its command line is wrong: the flag
// package has already printed what and the usage, so main only exits 2.
var errUsage = errors.New("usage")

// parseFlags parses a subcommand's flags. -h prints the usage and returns
// flag.ErrHelp; a flag it does not know, a bad value or an argument left
// over prints the usage and returns errUsage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.Usage = func() {
		flags := ""
		fs.VisitAll(func(*flag.Flag) { flags = " [flags]" })
		fmt.Fprintf(fs.Output(), "usage: lucent %s%s\n%s\n", fs.Name(), flags, subcommands[fs.Name()].summary)
		fs.PrintDefaults()
	}
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		return err
	case err != nil:
		return errUsage
	case fs.NArg() > 0:
		fmt.Fprintf(fs.Output(), "lucent %s takes no arguments, got %q\n", fs.Name(), fs.Args())
		fs.Usage()
		return errUsage
	}
	return nil
}

func main() {
	if len(os.Args) < 2 {
		usage(os.Stderr)
		os.Exit(2)
	}
	name, args := os.Args[1], os.Args[2:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) == 0 {
			usage(os.Stdout)
			os.Exit(0)
		}
		name, args = args[0], []string{"-h"}
	}
	cmd, ok := subcommands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "lucent: unknown command %q\n", name)
		usage(os.Stderr)
		os.Exit(2)
	}
	switch err := cmd.run(args); {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintf(os.Stderr, "lucent %s: %v\n", name, err)
		os.Exit(1)
	}
}
