package vk

import (
	"sync"
	"sync/atomic"
)

// Call counting: a diagnostic for what a caller of the bindings costs in
// driver calls. While it is on, every command made through a loaded table or
// a CommandBatch is counted by its function address; off (the default), a
// call pays one atomic load. Counts are process-wide: every device's calls
// are counted together.

var (
	counting  atomic.Bool
	countMu   sync.Mutex
	countByFn map[uintptr]int
	crossings int // transitions to C: a batch is one, however many calls it makes
)

// CountCalls turns call counting on or off. Turning it on clears the counts.
func CountCalls(on bool) {
	countMu.Lock()
	if on {
		countByFn = map[uintptr]int{}
		crossings = 0
	}
	countMu.Unlock()
	counting.Store(on)
}

// countCalls records one transition to C making the calls of fns.
func countCalls(fns ...uintptr) {
	countMu.Lock()
	if countByFn != nil {
		crossings++
		for _, fn := range fns {
			countByFn[fn]++
		}
	}
	countMu.Unlock()
}

// Transitions returns the transitions from Go to C counted since
// CountCalls(true): one per command call, one per CommandBatch flush.
func Transitions() int {
	countMu.Lock()
	defer countMu.Unlock()
	return crossings
}

// CallCounts returns the calls counted since CountCalls(true), by command
// name, for the commands of the given device table (a device-level command
// is named by its address in t; calls of other tables' commands are left
// out). Commands returning a 64-bit value or taking floats go through
// purego and are not counted.
func CallCounts(t *DeviceFuncs) map[string]int {
	countMu.Lock()
	defer countMu.Unlock()
	out := map[string]int{}
	if t == nil {
		return out
	}
	for i, fn := range t.fn {
		if n := countByFn[fn]; fn != 0 && n > 0 {
			if _, seen := out[commandNames[deviceBase+i]]; !seen {
				out[commandNames[deviceBase+i]] = n
			}
		}
	}
	return out
}
