//go:build race

package kernel

import (
	"runtime"
	"unsafe"
)

// raceBuild: the binary is built with -race, so Run gives every thread of
// a block its own goroutine, ordered with the block's others only by
// barriers (and subgroup operations, atomics and printing, which
// synchronise as Go does), and Go's race detector reports a kernel's data
// races with the file:line of both accesses (race.md in RATIONALE.md:
// "kernel.Run under -race").
const raceBuild = true

// raceOff and raceOn bracket the runner's own synchronisation that must
// not order kernel threads (the goroutine registry, Shared's table, the
// wait for a block's threads): Go's detector ignores what it synchronises.
func raceOff() { runtime.RaceDisable() }
func raceOn()  { runtime.RaceEnable() }

// raceRelease and raceAcquire order what the threads did before what
// reads it: a failing thread's error before the block's goroutine, every
// thread before Run's return.
func raceRelease(p unsafe.Pointer) { runtime.RaceReleaseMerge(p) }
func raceAcquire(p unsafe.Pointer) { runtime.RaceAcquire(p) }

func init() { raceSlots = make([]raceSlot, 1<<raceSlotBits) }
