package device

import (
	"cmp"
	"slices"
	"time"
)

// Timings is what a timed command list reports (CommandList.Timings): how
// long each of its commands took on the device. The backend fills it once
// the list's device work has finished, before the list's callbacks run, as
// it writes download data: read it after synchronizing the stream (or an
// event signalled after the list), or from one of the list's callbacks, and
// do not hand the same Timings to another list before then. Filling it
// reuses its storage, so one Timings reused list after list allocates
// nothing once it has grown.
//
// The Vulkan backend writes a timestamp before the list's first command and
// after each command, each once everything before it has finished
// (vkCmdWriteTimestamp2 at ALL_COMMANDS): command i's Duration is from the
// end of the commands before it to its own end, so commands that overlap on
// the device (no barrier between them) share their time out in order, and
// the durations add up to Total. A timestamp's own cost falls inside the
// durations: small on a GPU, 35–85 µs on lavapipe, where commands much
// shorter than that are mostly timestamp (docs/PERFORMANCE.md). The cpu
// backend measures each command's wall-clock time on its stream's
// goroutine.
type Timings struct {
	// Commands has one entry per command of the list, in order.
	Commands []Timing
	// Total is the list's device time: from the start of its first command
	// to the end of its last.
	Total time.Duration
}

// Timing is one command's share of a timed list.
type Timing struct {
	Index   int    // the command's index in the list
	Command string // its CommandName ("dispatch", "buffer upload", ...)
	Kernel  string // the kernel a dispatch ran (its shader's name); "" for other commands
	// Start is when the command started, from the start of the list's
	// device work; it does not decrease from one command to the next.
	Start    time.Duration
	Duration time.Duration
}

// KernelTiming is the device time of the dispatches of one kernel in a list.
type KernelTiming struct {
	Kernel string
	Count  int // dispatches
	Total  time.Duration
}

// ByKernel adds up the dispatches' durations by kernel name, the longest
// first (then by name). Commands that are not dispatches are left out.
func (t *Timings) ByKernel() []KernelTiming {
	if t == nil {
		return nil
	}
	var out []KernelTiming
	for _, c := range t.Commands {
		if c.Kernel == "" {
			continue
		}
		i := slices.IndexFunc(out, func(k KernelTiming) bool { return k.Kernel == c.Kernel })
		if i < 0 {
			out = append(out, KernelTiming{Kernel: c.Kernel})
			i = len(out) - 1
		}
		out[i].Count++
		out[i].Total += c.Duration
	}
	slices.SortFunc(out, func(a, b KernelTiming) int {
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return cmp.Compare(a.Kernel, b.Kernel)
	})
	return out
}

// Reset is for backends: it empties t for list, keeping its storage, with
// one entry per command holding its index and name and no time. The
// backend names the kernels of dispatches (t.Commands[i].Kernel), then
// calls Record once the list has run.
func (t *Timings) Reset(list *CommandList) {
	t.Commands = t.Commands[:0]
	t.Total = 0
	for i, c := range list.Commands {
		name := ""
		if c != nil { // a nil command is the backend's to refuse
			name = c.CommandName()
		}
		t.Commands = append(t.Commands, Timing{Index: i, Command: name})
	}
}

// Record is for backends: it sets the commands' times from the instants
// taken around them, stamps[0] before the first command and stamps[i+1]
// after command i, from any origin; len(stamps) must be len(t.Commands)+1
// (Record does nothing otherwise). An instant earlier than the one before it
// (a clock read out of order) counts as that one, so no time is negative.
func (t *Timings) Record(stamps []time.Duration) {
	if len(stamps) != len(t.Commands)+1 {
		return
	}
	origin, prev := stamps[0], stamps[0]
	for i := range t.Commands {
		end := max(stamps[i+1], prev)
		t.Commands[i].Start = prev - origin
		t.Commands[i].Duration = end - prev
		prev = end
	}
	t.Total = prev - origin
}
