//go:build !race

package kernel

import "unsafe"

// raceBuild is false without -race: Run runs a block's threads one after
// another until a collective (see race.go for the -race build).
const raceBuild = false

func raceOff()                     {}
func raceOn()                      {}
func raceRelease(p unsafe.Pointer) {}
func raceAcquire(p unsafe.Pointer) {}
