// Package embree measures accel/bvh against Embree 3 on the same mesh, rays
// and threads: shim/embree.c, built with cc as a shared library and loaded into
// the benchmark's process (no cgo), runs interleaved with the Go rounds.
//
//	go test -run '^$' -bench VsEmbree -benchtime 5x ./bench/embree
//
// It needs cc and Debian's libembree-dev; without them it skips.
package embree
