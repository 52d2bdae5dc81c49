package vulkan

import (
	"context"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/stretchr/testify/require"
)

// TestSkippedRebinds: a dispatch that binds what the one before it bound,
// under the same pipeline, records no descriptor push (or set bind) and no
// push constants; a change of shader or a Custom command between them binds
// everything again. The results are checked against the CPU with the
// validation layer on, on both descriptor paths.
func TestSkippedRebinds(t *testing.T) {
	for _, path := range []string{"push", "sets"} {
		t.Run(path, func(t *testing.T) {
			t.Setenv(EnvBinding, path)
			testSkippedRebinds(t)
		})
	}
}

func testSkippedRebinds(t *testing.T) {
	f := newFixture(t)
	step, _ := f.shader("step")
	twin, _ := f.shader("step") // another pipeline and layout, the same bindings
	add, _ := f.shader("add")
	s, err := lookupStream(f.d, f.s)
	require.NoError(t, err)
	const n = 256
	init := make([]uint32, n)
	for i := range init {
		init[i] = uint32(i)
	}
	x, y := f.buffer(4*n), f.buffer(4*n)
	fa, fb, fc := f.buffer(4*n), f.buffer(4*n), f.buffer(4*n)
	fav, fbv := make([]float32, n), make([]float32, n)
	for i := range fav {
		fav[i], fbv[i] = float32(i), float32(2*i+1)
	}
	linkBy := func(sh, src, dst device.Handle, k uint32) device.Command {
		return &device.ShaderDispatch{Shader: sh, Size: [3]uint32{n, 1, 1}, Args: stepArgs(src, dst, n, k)}
	}
	link := func(src, dst device.Handle, k uint32) device.Command { return linkBy(step, src, dst, k) }
	addCmd := func(scale float32) device.Command {
		return &device.ShaderDispatch{Shader: add, Size: [3]uint32{n, 1, 1}, Args: []device.Arg{
			{Kind: device.ArgBuffer, Handle: fa, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: fb, Size: device.WholeSize},
			{Kind: device.ArgBuffer, Handle: fc, Size: device.WholeSize},
			{Kind: device.ArgUniform, Uniform: uniform32(n)}, {Kind: device.ArgUniform, Uniform: bytesOfF32([]float32{scale})},
		}}
	}
	next := func(src []uint32, k uint32) []uint32 {
		out := make([]uint32, n)
		for i := range out {
			out[i] = src[(i+1)%n]*3 + k
		}
		return out
	}
	// run runs the list between an upload of init to x and a download of
	// out, and returns what was skipped.
	run := func(out device.Handle, cmds ...device.Command) ([]uint32, int, int) {
		t.Helper()
		list := (&device.CommandList{}).Add(&device.BufferUpload{Buffer: x, Data: bytesOfU32(init)},
			&device.BufferUpload{Buffer: fa, Data: bytesOfF32(fav)}, &device.BufferUpload{Buffer: fb, Data: bytesOfF32(fbv)})
		list.Add(cmds...)
		data := make([]byte, 4*n)
		list.Add(&device.BufferDownload{Buffer: out, Data: data})
		require.NoError(t, f.d.Dispatch(f.s, list))
		require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
		s.mu.Lock()
		defer s.mu.Unlock()
		return u32s(data), s.enc.lastBind.skippedSets, s.enc.lastBind.skippedPush
	}
	const links = 8

	// The same link again and again: one bind, one push.
	var cmds []device.Command
	for range links {
		cmds = append(cmds, link(x, y, 5))
	}
	got, sets, push := run(y, cmds...)
	require.Equal(t, next(init, 5), got)
	require.Equal(t, links-1, sets, "same bindings")
	require.Equal(t, links-1, push, "same push constants")

	// Only the push constants change: set 0 stays bound.
	cmds = cmds[:0]
	for k := range uint32(links) {
		cmds = append(cmds, link(x, y, k))
	}
	got, sets, push = run(y, cmds...)
	require.Equal(t, next(init, links-1), got)
	require.Equal(t, links-1, sets, "same bindings, new push constants")
	require.Zero(t, push, "new push constants")

	// Ping-pong with the same constants: the bindings change, the push
	// constants stay.
	cmds = cmds[:0]
	want, src, dst := init, x, y
	for range links {
		cmds = append(cmds, link(src, dst, 7))
		want, src, dst = next(want, 7), dst, src
	}
	got, sets, push = run(src, cmds...)
	require.Equal(t, want, got)
	require.Zero(t, sets, "new bindings")
	require.Equal(t, links-1, push, "new bindings, same push constants")

	// Two shaders alternating, each with the arguments it had before: every
	// change of shader binds everything again.
	cmds = cmds[:0]
	for range links {
		cmds = append(cmds, link(x, y, 3), addCmd(0.5))
	}
	got, sets, push = run(y, cmds...)
	require.Equal(t, next(init, 3), got)
	require.Zero(t, sets, "alternating shaders")
	require.Zero(t, push, "alternating shaders")
	// And the other shader's result is right too.
	cmds = append(cmds, &device.BufferCopy{Src: fc, Dst: y, Size: 4 * n})
	got, _, _ = run(y, cmds...)
	for i, v := range f32s(bytesOfU32(got)) {
		require.Equal(t, fav[i]+fbv[i]*0.5, v, "c[%d]", i)
	}

	// Two pipelines with the same bindings and push constants alternating:
	// what one bound is not the other's (a new layout binds again).
	cmds = cmds[:0]
	want, src, dst = init, x, y
	for i := range links {
		cmds = append(cmds, linkBy([]device.Handle{step, twin}[i%2], src, dst, 4))
		want, src, dst = next(want, 4), dst, src
	}
	got, sets, push = run(src, cmds...)
	require.Equal(t, want, got)
	require.Zero(t, sets+push, "two pipelines")
	cmds = cmds[:0]
	for i := range links {
		cmds = append(cmds, linkBy([]device.Handle{step, twin}[i%2], x, y, 4))
	}
	got, sets, push = run(y, cmds...)
	require.Equal(t, next(init, 4), got)
	require.Zero(t, sets+push, "two pipelines, the same arguments")

	// A Custom command between two equal links: the second binds again.
	custom := &device.Custom{Name: "nothing", Func: func(uintptr) error { return nil }}
	got, sets, push = run(y, link(x, y, 9), custom, link(x, y, 9))
	require.Equal(t, next(init, 9), got)
	require.Zero(t, sets, "after a custom command")
	require.Zero(t, push, "after a custom command")

	// A new list starts with nothing bound.
	got, sets, push = run(y, link(x, y, 9))
	require.Equal(t, next(init, 9), got)
	require.Zero(t, sets+push, "a new list")
}
