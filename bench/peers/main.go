// Command peers runs lucent beside github.com/gogpu/wgpu (a pure-Go WebGPU
// over Vulkan) on the same work, in one process, on the same Vulkan driver,
// in interleaved rounds, and prints the ratio of their times per operation:
//
//	chain      10,000 dependent dispatches (a barrier between each pair) of a
//	           64-thread kernel on one buffer, submitted and waited for
//	roundtrip  one 64-thread dispatch submitted and waited for
//	saxpy      y = a*x + y over 16M floats, submitted and waited for
//	upload     64 MiB from a Go slice into a device buffer, waited for
//	download   64 MiB from a device buffer into a Go slice, waited for
//
// lucent's kernels come from its Go DSL (frontend/dsl), wgpu's from WGSL.
// Each side's results are checked once before timing. Within a round each
// operation runs on both sides back to back (the order alternates between
// rounds); the table gives each side's median time, the median of the
// per-round ratios lucent/wgpu and their range.
//
// Build and run it inside this module with
//
//	CGO_ENABLED=0 go run -tags nofakecgo . -rounds 11
//
// (both libraries carry purego's fake cgo runtime; nofakecgo keeps one copy).
// run.sh runs it on both lavapipes of the test machine.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// side is one library's implementation of the operations.
type side interface {
	name() string
	// op runs one operation (by name) once, start to finish.
	op(name string) error
	// check runs each operation once and verifies its results.
	check() error
	close()
}

var ops = []string{"chain", "roundtrip", "saxpy", "upload", "download"}

// reps is how many times an operation runs inside one timed sample, so that
// the short ones are not dominated by the clock and scheduling noise.
var reps = map[string]int{"chain": 1, "roundtrip": 200, "saxpy": 1, "upload": 1, "download": 1}

const (
	chainLength  = 10000
	chainThreads = 64
	saxpyN       = 16 << 20
	transferN    = 16 << 20 // float32s: 64 MiB
)

func main() {
	rounds := flag.Int("rounds", 11, "interleaved rounds")
	only := flag.String("ops", strings.Join(ops, ","), "operations to run, comma-separated")
	flag.Parse()
	if err := run(*rounds, strings.Split(*only, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

func run(rounds int, names []string) error {
	for _, n := range names {
		if !slices.Contains(ops, n) {
			return fmt.Errorf("unknown operation %q (have %s)", n, strings.Join(ops, ", "))
		}
	}
	l, err := newLucent()
	if err != nil {
		return fmt.Errorf("lucent: %w", err)
	}
	defer l.close()
	w, err := newWGPU()
	if err != nil {
		return fmt.Errorf("wgpu: %w", err)
	}
	defer w.close()
	fmt.Printf("lucent: %s\nwgpu:   %s\n", l.device, w.device)
	sides := []side{l, w}
	for _, s := range sides {
		if err := s.check(); err != nil {
			return fmt.Errorf("%s: %w", s.name(), err)
		}
	}
	// times[op][side] holds one sample per round.
	times := map[string][2][]time.Duration{}
	for r := range rounds {
		for _, n := range names {
			t := times[n]
			for k := range 2 {
				i := (k + r) % 2 // alternate who goes first
				d, err := sample(sides[i], n)
				if err != nil {
					return fmt.Errorf("round %d: %s %s: %w", r, sides[i].name(), n, err)
				}
				t[i] = append(t[i], d)
			}
			times[n] = t
		}
	}
	fmt.Printf("%d rounds; per operation: median time of each side, median of the per-round ratios lucent/wgpu [min, max]\n", rounds)
	fmt.Printf("%-10s %14s %14s %8s  %s\n", "op", "lucent", "wgpu", "ratio", "range")
	for _, n := range names {
		t := times[n]
		ratios := make([]float64, len(t[0]))
		for i := range ratios {
			ratios[i] = float64(t[0][i]) / float64(t[1][i])
		}
		slices.Sort(ratios)
		fmt.Printf("%-10s %14s %14s %8.3f  [%.3f, %.3f]\n", n, per(n, median(t[0])), per(n, median(t[1])),
			medianF(ratios), ratios[0], ratios[len(ratios)-1])
	}
	return nil
}

// sample times reps[n] runs of operation n on s.
func sample(s side, n string) (time.Duration, error) {
	t0 := time.Now()
	for range reps[n] {
		if err := s.op(n); err != nil {
			return 0, err
		}
	}
	return time.Since(t0) / time.Duration(reps[n]), nil
}

// per formats an operation's time in its natural unit.
func per(n string, d time.Duration) string {
	switch n {
	case "chain":
		return fmt.Sprintf("%.2f µs/disp", float64(d.Nanoseconds())/1e3/chainLength)
	case "roundtrip":
		return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1e3)
	case "upload", "download":
		return fmt.Sprintf("%.2f GB/s", float64(transferN*4)/float64(d.Nanoseconds()))
	}
	return fmt.Sprintf("%.2f ms", float64(d.Nanoseconds())/1e6)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func medianF(s []float64) float64 {
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// saxpyWant is what y holds after one saxpy of the fill pattern below.
func saxpyInput(i int) (x, y float32) { return float32(i % 1000), float32(i % 7) }

const saxpyA = 2

func checkSaxpy(who string, got []float32) error {
	for i, g := range got {
		x, y := saxpyInput(i)
		if want := saxpyA*x + y; g != want {
			return fmt.Errorf("%s saxpy: element %d: got %v, want %v", who, i, g, want)
		}
	}
	return nil
}

func checkChain(who string, got []float32) error {
	for i, g := range got {
		if g != chainLength {
			return fmt.Errorf("%s chain: element %d: got %v, want %v", who, i, g, float32(chainLength))
		}
	}
	return nil
}

func checkTransfer(who string, got []float32) error {
	for i, g := range got {
		if g != float32(i%4099) {
			return fmt.Errorf("%s transfer: element %d: got %v, want %v", who, i, g, float32(i%4099))
		}
	}
	return nil
}

func transferData() []float32 {
	d := make([]float32, transferN)
	for i := range d {
		d[i] = float32(i % 4099)
	}
	return d
}
