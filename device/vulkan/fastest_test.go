package vulkan

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// BenchmarkVsFastestC runs lucent against raw C used the fastest ways this
// repository knows (bench/vkbench.c, variants 5 and up: a descriptor set bound
// once, the narrowest barrier, a command buffer recorded once and resubmitted,
// fence or timeline waits, blocking or spinning, host copies into mapped
// memory) and against the twin (the calls lucent makes), all in one process,
// interleaved: every round runs a block of operations of each side, the side
// going first rotating. The reference is the C candidate (twin included) with
// the lowest median time per operation in this run. It reports
//
//	ns/op, C-ns/op     lucent's and the reference's median time per operation
//	x-C                median of the per-round ratios lucent/reference
//	x-C-q1, x-C-q3     their quartiles; x-C-lo, x-C-hi a 95% CI of the median
//	x-twin             median of the per-round ratios lucent/twin
//	ref                the reference's variant number (vkb_name names it)
//	cpu-ns/op, C-cpu-ns/op, cpu-x-C, cpu-x-twin, cpu-ref
//	                   the process's CPU time per operation (every thread,
//	                   the driver's included) for lucent and for the C
//	                   candidate using the least (cpu-ref), the median of the
//	                   per-round ratios against it and against the twin: the
//	                   work done, which the machine's load inflates far less
//	                   than time (a spinning wait costs CPU, not time)
//	ns/op:<variant>    every candidate's median, for the record
//	x-C-per-call       for the round trip, the median ratio to the faster of
//	                   rt/timeline and rt/fence entered from Go once per
//	                   round trip (ns/op:<variant>/per-call), as a Go API's
//	                   caller is: what returning to Go between round trips
//	                   costs C itself
//
// b.N is the number of rounds:
//
//	go test -run '^$' -bench '^BenchmarkVsFastestC$' -benchtime 21x ./device/vulkan
//
// LUCENT_VSC_LOG=1 logs every round's figures.
func BenchmarkVsFastestC(b *testing.B) {
	for _, bc := range []struct {
		name    string
		twin    int   // the twin's variant
		fastest []int // the other candidates
		setup   func(*testing.B, *fixture) func()
		per     int
		bytes   int64
		perCall []int // variants also entered once per operation from Go
	}{
		{"DispatchChain", 0, []int{5, 6, 7, 16, 17}, chainOp, chainLength, 0, nil},
		{"RoundTrip", 1, []int{8, 9, 10, 11, 12, 15}, roundTripOp, 0, 0, []int{9, 10}},
		{"Upload", 2, []int{13}, uploadOp, 0, transferBytes, nil},
		{"Download", 3, []int{14}, downloadOp, 0, transferBytes, nil},
		{"Saxpy", 4, nil, saxpyOp, 0, 12 * saxpyN, nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := benchFixture(b)
			tw := loadTwin(b, f.d)
			op := bc.setup(b, f)
			cands := append([]int{bc.twin}, bc.fastest...)
			sides := []func(n int) time.Duration{}
			for _, w := range cands {
				sides = append(sides, func(n int) time.Duration { return tw.run(b, w, n) })
			}
			for _, w := range bc.perCall { // timed in Go: the calls' transitions count
				sides = append(sides, timed(func() { tw.run(b, w, 1) }))
			}
			sides = append(sides, timed(op))
			ns, cpu := interleaved(b, sides)
			lucent := ns[len(ns)-1]
			if len(bc.perCall) > 0 {
				// C entered from Go once per operation, as any Go API is:
				// the floor of what a Go caller sees, the fastest of them.
				pc := len(cands)
				for i := range bc.perCall {
					b.ReportMetric(quantile(ns[len(cands)+i], 0.5), "ns/op:"+tw.variant(bc.perCall[i])+"/per-call")
					if quantile(ns[len(cands)+i], 0.5) < quantile(ns[pc], 0.5) {
						pc = len(cands) + i
					}
				}
				b.ReportMetric(quantile(ratios(lucent, ns[pc]), 0.5), "x-C-per-call")
			}
			ref := 0
			for i := range cands {
				b.ReportMetric(quantile(ns[i], 0.5), "ns/op:"+tw.variant(cands[i]))
				if quantile(ns[i], 0.5) < quantile(ns[ref], 0.5) {
					ref = i
				}
			}
			r := pairedResult{goNs: lucent, cNs: ns[ref], ratios: ratios(lucent, ns[ref])}
			r.report(b, bc.per, bc.bytes)
			b.ReportMetric(quantile(ratios(lucent, ns[0]), 0.5), "x-twin")
			b.ReportMetric(float64(cands[ref]), "ref")
			// CPU time per operation, the process's (the driver's threads
			// included), against the C candidate using the least: the work
			// done, which the machine's load inflates far less than time.
			cref := 0
			for i := range cands {
				if quantile(cpu[i], 0.5) < quantile(cpu[cref], 0.5) {
					cref = i
				}
			}
			b.ReportMetric(quantile(cpu[len(cpu)-1], 0.5), "cpu-ns/op")
			b.ReportMetric(quantile(cpu[cref], 0.5), "C-cpu-ns/op")
			b.ReportMetric(quantile(ratios(cpu[len(cpu)-1], cpu[cref]), 0.5), "cpu-x-C")
			b.ReportMetric(quantile(ratios(cpu[len(cpu)-1], cpu[0]), 0.5), "cpu-x-twin")
			b.ReportMetric(float64(cands[cref]), "cpu-ref")
			if os.Getenv("LUCENT_VSC_LOG") != "" {
				var sb strings.Builder
				for i, w := range cands {
					fmt.Fprintf(&sb, "%s ns/op %.0f\n  cpu %.0f\n", tw.variant(w), ns[i], cpu[i])
				}
				b.Logf("reference %s\n%slucent ns/op %.0f\n  cpu %.0f", tw.variant(cands[ref]), sb.String(), lucent, cpu[len(cpu)-1])
			}
		})
	}
}

// ratios returns a[i]/c[i] for each round.
func ratios(a, c []float64) []float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / c[i]
		if c[i] == 0 {
			r[i] = math.Inf(1)
		}
	}
	return r
}

// variant is vkb_name(which), "?" past the last.
func (tw *twin) variant(which int) string {
	p, _, _ := purego.SyscallN(tw.name, uintptr(which))
	if p == 0 {
		return "?"
	}
	var sb strings.Builder
	for i := uintptr(0); ; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(nil), p+i)) // a C string in the twin's read-only data
		if c == 0 {
			break
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// TestFastestCVariants runs every variant of bench/vkbench.c twice under the
// validation layer, so that the figures of BenchmarkVsFastestC come from valid
// Vulkan: a command buffer resubmitted while pending, a fence not reset, an
// object not destroyed is an error in the layer's report. (The layer's
// synchronization validation, asked for through VK_LAYER_ENABLES, reported
// nothing even for a chain with its barriers removed on lavapipe, so the
// barriers' correctness rests on reading them.) The layer writes
// to the process's standard output, so the variants run in a child process
// (this test again, with LUCENT_TWIN_CHILD=1) whose output the test reads.
func TestFastestCVariants(t *testing.T) {
	if os.Getenv("LUCENT_TWIN_CHILD") == "1" {
		runTwinVariants(t)
		return
	}
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (cc): the raw-C reference cannot be built")
	}
	openDevice(t) // the layer is there, or the test skips (fails under LUCENT_REQUIRE_VULKAN)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestFastestCVariants$", "-test.v", "-test.count", "1")
	cmd.Env = append(os.Environ(), "LUCENT_TWIN_CHILD=1",
		"VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the variants' child process:\n%s", out)
	require.Contains(t, string(out), "variants run: 18", "the child ran the variants:\n%s", out)
	require.NotContains(t, string(out), "Validation Error", "the layer's errors")
}

// runTwinVariants is TestFastestCVariants's child: a copy of the library of
// its own, every variant twice, everything destroyed.
func runTwinVariants(t *testing.T) {
	d, err := Open(device.Options{DeviceIndex: -1})
	require.NoError(t, err)
	defer d.Close()
	tw, err := buildTwin(t, d)
	testenv.Need(t, "the raw-C reference (libvulkan headers)", err)
	names := map[string]bool{}
	w := 0
	for ; tw.variant(w) != "?"; w++ {
		name := tw.variant(w)
		require.False(t, names[name], "variant %d: name %q used twice", w, name)
		names[name] = true
		require.Positive(t, tw.run(t, w, 2), "variant %d (%s)", w, name)
	}
	purego.SyscallN(tw.close) // the layer checks that everything was destroyed
	t.Logf("variants run: %d", w)
}
