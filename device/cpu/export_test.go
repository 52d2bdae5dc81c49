package cpu

import (
	"time"

	"github.com/lucent-gpu/lucent/accel/bvh"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// SetCloseTimeout shortens how long Close waits, for tests of kernels that
// do not end; it returns the previous value.
func SetCloseTimeout(d time.Duration) time.Duration {
	old := closeTimeout
	closeTimeout = d
	return old
}

// SceneOf returns the hierarchy an accel of d was last built into.
func SceneOf(d *Device, h device.Handle) *bvh.Scene {
	s, err := d.structure(h, device.KindAccel)
	if err != nil {
		return nil
	}
	return s.Scene()
}

// SetLaneEngine turns the lane engine on or off for shaders created after
// it (off: every kernel runs on the per-thread engine); it returns the
// previous setting.
func SetLaneEngine(on bool) bool {
	old := laneEngine
	laneEngine = on
	return old
}

// LaneEngine reports whether kernel f runs on the lane engine, or why not.
func LaneEngine(f *ir.Function) (bool, string, error) {
	p, err := compileKernel(f, false, false)
	if err != nil {
		return false, "", err
	}
	return p.lanes != nil, p.laneWhy, nil
}

// SetLaneFusion turns the lane engine's fusion of expression trees on or
// off for shaders created after it; it returns the previous setting.
func SetLaneFusion(on bool) bool {
	old := laneFuse
	laneFuse = on
	return old
}

// LaneFusedVectors is the number of vector nodes kernel f's lane program
// fuses component by component (dot, length and distance among them).
func LaneFusedVectors(f *ir.Function) (int, error) {
	p, err := compileKernel(f, false, false)
	if err != nil || p.lanes == nil {
		return 0, err
	}
	return p.lanes.fusedV, nil
}

// LaneUniformLoops is the number of loops of kernel f's lane program whose
// condition the first lane in the loop decides for all.
func LaneUniformLoops(f *ir.Function) (int, error) {
	p, err := compileKernel(f, false, false)
	if err != nil || p.lanes == nil {
		return 0, err
	}
	return p.lanes.uniL, nil
}

// LaneEndsDecided is the number of ifs of kernel f whose condition (the x
// id against a uniform) a batch's first and last lanes may decide.
func LaneEndsDecided(f *ir.Function) (int, error) {
	p, err := compileKernel(f, false, false)
	if err != nil || p.lanes == nil {
		return 0, err
	}
	return p.lanes.monoIf, nil
}

// LaneSubstituted is the number of locals kernel f's lane program compiles
// as their value where the next statement reads them.
func LaneSubstituted(f *ir.Function) (int, error) {
	p, err := compileKernel(f, false, false)
	if err != nil || p.lanes == nil {
		return 0, err
	}
	return p.lanes.substs, nil
}

// LaneWidth is the most lanes of a batch of a kernel without barriers or
// shared memory.
const LaneWidth = laneWidth

// LaneMerged is how many consecutive blocks kernel f's lane program runs
// as one (1: none merged, 0: not on the lane engine).
func LaneMerged(f *ir.Function) (uint32, error) {
	p, err := compileKernel(f, false, false)
	if err != nil || p.lanes == nil {
		return 0, err
	}
	return p.lanes.merge, nil
}
