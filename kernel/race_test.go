//go:build race

package kernel_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/testdata/gokernel/racy"
)

// raceBuild: this test binary is built with -race (norace_test.go).
const raceBuild = true

// accessFrame finds the innermost frame of each access of a race report.
var accessFrame = regexp.MustCompile(`(?m)^(?:Previous )?(?:[Rr]ead|[Ww]rite) at 0x[0-9a-f]+ by (?:goroutine \d+|main goroutine):\n  (\S+)`)

// envRaceChild names the kernel TestRaceChild runs.
const envRaceChild = "LUCENT_RACE_CHILD"

// TestRaceChild runs one racy kernel when TestRaceDetector starts this
// binary for it: Go's race detector fails the test a race happens in, so
// the report is read from a child process.
func TestRaceChild(t *testing.T) {
	name := os.Getenv(envRaceChild)
	if name == "" {
		t.Skip("run by TestRaceDetector")
	}
	in, out := make([]float32, 256), make([]float32, 256)
	for i := range in {
		in[i] = float32(i)
	}
	bins := make([]uint32, 4)
	keys := make([]uint32, 256)
	for i := range keys {
		keys[i] = uint32(i * 7)
	}
	g := kernel.Grid1(racy.Block, 256)
	var body func()
	switch name {
	case "ReverseNoBarrier":
		body = func() { racy.ReverseNoBarrier(in, out) }
	case "Reverse":
		body = func() { racy.Reverse(in, out) }
	case "Pairs":
		g, body = kernel.Grid1(64, 64), func() { racy.Pairs(in, out[:32]) }
	case "Histogram":
		g, body = kernel.Grid1(64, 256), func() { racy.Histogram(keys, bins) }
	case "ViaHelper":
		g, body = kernel.Grid1(64, 64), func() { racy.ViaHelper(in, out) }
	case "Shift":
		g, body = kernel.Grid1(64, 256), func() { racy.Shift(in, out) }
	case "ShiftOneBarrier":
		g, body = kernel.Grid1(64, 256), func() { racy.ShiftOneBarrier(in, out) }
	case "CrossBlock": // two blocks write out[0]
		g, body = kernel.Grid1(64, 128), func() {
			if i := kernel.DispatchID().X; i == 63 || i == 64 {
				out[0] = in[i] // the cross-block write
			}
		}
	default:
		t.Fatalf("no kernel %s", name)
	}
	require.NoError(t, kernel.Run(context.Background(), g, body))
	if name == "Reverse" {
		for i := range out {
			require.Equal(t, in[i/128*128+127-i%128], out[i])
		}
	}
	if name == "Shift" {
		for i := range out {
			require.Equal(t, in[i/64*64+(i+1)%64], out[i])
		}
	}
	if name == "Histogram" {
		require.Equal(t, []uint32{64, 64, 64, 64}, bins)
	}
}

// TestRaceDetector: built with -race, kernel.Run runs each thread of a
// block on its own goroutine, ordered only by barriers, so Go's race
// detector reports a kernel's missing barrier with the file:line of both
// accesses, and a buffer element two threads write, within a block and
// across blocks that one worker runs in turn; the corrected kernel and
// atomics are silent.
func TestRaceDetector(t *testing.T) {
	src := "../testdata/gokernel/racy/racy.go"
	line := func(text string, nth int) string {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		for i, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, text) {
				if nth--; nth == 0 {
					return fmt.Sprintf("racy.go:%d ", i+1)
				}
			}
		}
		t.Fatalf("no %q in %s", text, src)
		return ""
	}
	for _, c := range []struct {
		kernel string
		env    []string
		at     []string // the racing accesses' positions; none: no race
		runs   int      // further runs that must report the race
	}{
		{kernel: "ReverseNoBarrier", at: []string{line("tile[t] = in[i]", 2), line("out[i] = tile[Block-1-t]", 2)}},
		{kernel: "Reverse"},
		{kernel: "Pairs", at: []string{line("out[i/2] = in[i]", 1)}},
		{kernel: "Histogram"},
		{kernel: "ViaHelper", at: []string{line("func store(", 1), line("out[i] = tile[63-t]", 1)}},
		// The read of a neighbour's element and its overwrite after the
		// barrier both threads passed: the barrier orders neither.
		{kernel: "Shift"},
		{kernel: "ShiftOneBarrier", at: []string{line("w := tile[(t+1)%64]", 1), line("tile[t] = 2 * w", 1)}, runs: 5},
		{kernel: "CrossBlock", at: []string{"race_test.go"}},
	} {
		t.Run(c.kernel, func(t *testing.T) {
			// A race the runner's own synchronisation could hide on some
			// schedules must be reported on every run.
			for range c.runs {
				cmd := exec.Command(os.Args[0], "-test.run=^TestRaceChild$", "-test.count=1", "-test.v")
				cmd.Env = append(append(os.Environ(), envRaceChild+"="+c.kernel), c.env...)
				out, err := cmd.CombinedOutput()
				require.Error(t, err, "%s", out)
				require.Contains(t, string(out), "WARNING: DATA RACE", "%s", out)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestRaceChild$", "-test.count=1", "-test.v")
			cmd.Env = append(append(os.Environ(), envRaceChild+"="+c.kernel), c.env...)
			out, err := cmd.CombinedOutput()
			if c.at == nil {
				require.NoError(t, err, "%s", out)
				require.NotContains(t, string(out), "DATA RACE")
				require.Contains(t, string(out), "--- PASS: TestRaceChild")
				return
			}
			require.Error(t, err, "%s", out)
			require.Contains(t, string(out), "WARNING: DATA RACE", "%s", out)
			report := string(out)[strings.Index(string(out), "WARNING: DATA RACE"):]
			for _, at := range c.at {
				require.Contains(t, report, at, "%s", out)
			}
			// Each access's innermost frame is the kernel's, not the runner's.
			frames := accessFrame.FindAllStringSubmatch(report, -1)
			require.GreaterOrEqual(t, len(frames), 2, "two accesses:\n%s", out)
			for _, m := range frames {
				require.False(t, strings.HasPrefix(m[1], "github.com/lucent-gpu/lucent/kernel."), "a race in the runner itself:\n%s", out)
			}
		})
	}
}
