package vulkan

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

const replayN = 256

// replayed is the number of lists the fixture's stream submitted again
// without recording them, and the recordings it keeps.
func (f *fixture) replayed() (replayed, kept int) {
	s, err := lookupStream(f.d, f.s)
	require.NoError(f.t, err)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replayed, len(s.replays)
}

// addList is c = a + b*scale over replayN floats (the "add" shader).
func addList(add, a, b, c device.Handle, scale float32) *device.CommandList {
	return (&device.CommandList{}).Add(&device.ShaderDispatch{Shader: add, Size: [3]uint32{replayN, 1, 1}, Args: []device.Arg{
		{Kind: device.ArgBuffer, Handle: a, Size: device.WholeSize}, {Kind: device.ArgBuffer, Handle: b, Size: device.WholeSize},
		{Kind: device.ArgBuffer, Handle: c, Size: device.WholeSize},
		{Kind: device.ArgUniform, Uniform: uniform32(replayN)}, {Kind: device.ArgUniform, Uniform: uniformF(scale)}}})
}

// replayFixture has the add shader and a = 1, b = 2 (replayN floats each).
func replayFixture(t *testing.T, binding string) (f *fixture, add, a, b device.Handle) {
	t.Setenv(EnvBinding, binding)
	f = newFixture(t)
	if binding == "push" && !f.d.caps.PushDescriptors {
		t.Skip("no push descriptors on this device")
	}
	add, _ = f.shader("add")
	a, b = f.buffer(4*replayN), f.buffer(4*replayN)
	ones, twos := make([]float32, replayN), make([]float32, replayN)
	for i := range ones {
		ones[i], twos[i] = 1, 2
	}
	f.run(&device.BufferUpload{Buffer: a, Data: bytesOfF32(ones)}, &device.BufferUpload{Buffer: b, Data: bytesOfF32(twos)})
	return f, add, a, b
}

// submit runs list and waits for it.
func (f *fixture) submit(list *device.CommandList) {
	f.t.Helper()
	require.NoError(f.t, f.d.Dispatch(f.s, list))
	require.NoError(f.t, f.d.SynchronizeStream(context.Background(), f.s))
}

// expectAll checks that every float of buffer h is want, and clears h.
func (f *fixture) expectAll(h device.Handle, want float32, msg string) {
	f.t.Helper()
	out := make([]byte, 4*replayN)
	f.run(&device.BufferDownload{Buffer: h, Data: out})
	for i, v := range f32s(out) {
		if v != want {
			require.Failf(f.t, "wrong result", "%s: element %d is %v, want %v", msg, i, v, want)
		}
	}
	f.run(&device.BufferFill{Buffer: h, Size: device.WholeSize})
}

// TestReplay submits lists again: the same list replays its recording, and
// every change a recording depends on records afresh — a uniform changed in
// place, a buffer freed (an error naming it, not a replay into freed
// memory) or replaced, other lists in between, more lists than are kept, a
// list submitted again while its first submission is in flight — with both
// ways of binding (push descriptors and cached descriptor sets).
func TestReplay(t *testing.T) {
	for _, binding := range []string{"push", "sets"} {
		t.Run(binding, func(t *testing.T) {
			f, add, a, b := replayFixture(t, binding)
			c := f.buffer(4 * replayN)
			list := addList(add, a, b, c, 3)

			f.submit(list)
			f.expectAll(c, 7, "first submission")
			r0, _ := f.replayed()
			f.submit(list)
			f.expectAll(c, 7, "second submission")
			r1, kept := f.replayed()
			require.Equal(t, r0+1, r1, "the unchanged list is replayed")
			require.Equal(t, 1, kept)

			// A uniform changed in place: the same slice, other bytes.
			binary.LittleEndian.PutUint32(list.Commands[0].(*device.ShaderDispatch).Args[4].Uniform, math.Float32bits(5))
			f.submit(list)
			f.expectAll(c, 11, "after the uniform changed")
			r2, _ := f.replayed()
			require.Equal(t, r1, r2, "a changed uniform records afresh")
			f.submit(list)
			f.expectAll(c, 11, "the changed list again")

			// Another list in between, several times.
			d2 := f.buffer(4 * replayN)
			other := addList(add, b, a, d2, 10) // 2 + 1*10
			for range 3 {
				f.submit(list)
				f.submit(other)
				f.expectAll(c, 11, "interleaved, list")
				f.expectAll(d2, 12, "interleaved, other")
			}

			// The buffer freed: the list names a handle that is gone.
			x, err := f.d.CreateBuffer(device.BufferDesc{Size: 4 * replayN})
			require.NoError(t, err)
			withX := addList(add, a, b, x, 1)
			f.submit(withX)
			f.expectAll(x, 3, "into x")
			f.submit(withX)
			f.expectAll(x, 3, "into x, replayed")
			require.NoError(t, f.d.DestroyBuffer(x))
			err = f.d.Dispatch(f.s, withX)
			require.ErrorIs(t, err, device.ErrClosed)
			require.ErrorContains(t, err, fmt.Sprintf("buffer %d", x))
			// Replaced: a new buffer in the same argument.
			y := f.buffer(4 * replayN)
			withX.Commands[0].(*device.ShaderDispatch).Args[2].Handle = y
			f.submit(withX)
			f.expectAll(y, 3, "into the replacement")

			// More lists than a stream keeps, in turn: each still right.
			outs := make([]device.Handle, maxReplays+2)
			lists := make([]*device.CommandList, len(outs))
			for i := range outs {
				outs[i] = f.buffer(4 * replayN)
				lists[i] = addList(add, a, b, outs[i], float32(i))
			}
			for range 3 {
				for i, l := range lists {
					f.submit(l)
					f.expectAll(outs[i], 1+2*float32(i), "cycling")
				}
			}

			// Evicted while in flight: lists submitted without waiting, more
			// than are kept, twice over. An evicted command buffer is reused
			// only once the GPU is done with it (the layer reports beginning a
			// pending one), and every result is right.
			for range 2 {
				for _, l := range lists {
					require.NoError(t, f.d.Dispatch(f.s, l))
				}
			}
			require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
			for i := range outs {
				f.expectAll(outs[i], 1+2*float32(i), "evicted in flight")
			}

			// Submitted again before the first completed: not the command
			// buffer in flight (the validation layer reports a pending one
			// resubmitted), and both results right.
			e := f.buffer(4 * replayN)
			twice := addList(add, a, b, e, 4)
			f.submit(twice)
			before, _ := f.replayed()
			require.NoError(t, f.d.Dispatch(f.s, twice))
			require.NoError(t, f.d.Dispatch(f.s, twice))
			require.NoError(t, f.d.SynchronizeStream(context.Background(), f.s))
			after, _ := f.replayed()
			require.LessOrEqual(t, after-before, 1, "at most the first of the two is replayed")
			f.expectAll(e, 9, "submitted twice")
		})
	}
}

// TestReplayNotForOtherLists checks what is never replayed: lists with
// uploads (the data is copied at each submission) and timed lists.
func TestReplayNotForOtherLists(t *testing.T) {
	f, add, a, b := replayFixture(t, "push")
	c := f.buffer(4 * replayN)
	data := make([]float32, replayN)
	up := &device.BufferUpload{Buffer: a, Data: bytesOfF32(data)}
	list := addList(add, a, b, c, 1)
	withUpload := (&device.CommandList{}).Add(up, list.Commands[0])
	before, _ := f.replayed()
	for i := range 3 {
		for j := range data {
			data[j] = float32(i)
		}
		copy(up.Data, bytesOfF32(data))
		f.submit(withUpload)
		f.expectAll(c, float32(i)+2, "with an upload")
	}
	timed := addList(add, a, b, c, 1)
	timed.Timings = &device.Timings{}
	f.submit(timed)
	f.submit(timed)
	after, _ := f.replayed()
	require.Equal(t, before, after, "nothing replayed")
	require.Len(t, timed.Timings.Commands, 1, "the timed list was timed")
}

// TestReplayKeyInPlace compares lists with a kept key in place: a list equal
// to it is a hit and builds nothing (a command like the one before it is a
// word of the key), and a list differing from it anywhere —
// a uniform in its last command, a size in its middle, one command fewer
// (a prefix of the kept list) or one more — is a miss whose key is the one
// built from scratch. The prefix and the longer list, submitted, record
// afresh and compute their own results.
func TestReplayKeyInPlace(t *testing.T) {
	f, add, a, b := replayFixture(t, "push")
	c, err := f.d.CreateBuffer(device.BufferDesc{Size: 4 * replayN}) // destroyed at the end
	require.NoError(t, err)
	chain := func(n int, scale float32) *device.CommandList {
		l := &device.CommandList{}
		for range n {
			l.Add(addList(add, a, b, c, scale).Commands[0])
		}
		return l
	}
	s, err := lookupStream(f.d, f.s)
	require.NoError(t, err)
	trust := false
	walk := func(list *device.CommandList, ref []byte) (key []byte, hit bool) {
		f.d.live.RLock()
		defer f.d.live.RUnlock()
		s.mu.Lock()
		defer s.mu.Unlock()
		k := keyer{ref: ref, cmp: ref != nil}
		require.True(t, s.walkKey(&k, list, trust && ref != nil), "replayable")
		if k.cmp && k.n == len(k.ref) {
			return nil, true
		}
		if k.cmp {
			k.differ()
		}
		return k.key, false
	}
	base := chain(5, 1)
	ref, hit := walk(base, nil)
	require.False(t, hit)
	one, _ := walk(chain(1, 1), nil)
	require.Len(t, ref, len(one)+4*8, "a command like the one before is one word")
	key, hit := walk(chain(5, 1), ref)
	require.True(t, hit, "the same content, another list")
	require.Nil(t, key, "a hit builds no key")

	lastUniform := chain(5, 1)
	lastUniform.Commands[4] = addList(add, a, b, c, 3).Commands[0]
	midSize := chain(5, 1)
	midSize.Commands[2].(*device.ShaderDispatch).Size[0] = replayN / 2
	midBuffer := chain(5, 1)
	midBuffer.Commands[2] = addList(add, b, a, c, 1).Commands[0] // a and b swapped, whole sizes
	for _, trust = range []bool{false, true} {                   // trusted: no look-ups where the list matches
		for name, list := range map[string]*device.CommandList{
			"last uniform": lastUniform, "middle size": midSize, "middle buffer": midBuffer, "prefix": chain(4, 1), "longer": chain(6, 1),
		} {
			fresh, hit := walk(list, nil)
			require.False(t, hit, name)
			key, hit := walk(list, ref)
			require.False(t, hit, "%s: a miss", name)
			require.Equal(t, fresh, key, "%s: the key built on a miss", name)
		}
		_, hit = walk(chain(5, 1), ref)
		require.True(t, hit, "trusted %v", trust)
	}

	f.submit(base)
	f.submit(base)
	before, _ := f.replayed()
	f.submit(chain(4, 2))
	f.expectAll(c, 5, "the prefix")
	f.submit(chain(6, 3))
	f.expectAll(c, 7, "the longer list")
	after, _ := f.replayed()
	require.Equal(t, before, after, "neither replayed")

	// Another buffer destroyed: the kept handles are looked up again, and the
	// list still replays; its own buffer destroyed, it is refused.
	f.submit(base)
	after, _ = f.replayed()
	other, err := f.d.CreateBuffer(device.BufferDesc{Size: 64})
	require.NoError(t, err)
	require.NoError(t, f.d.DestroyBuffer(other))
	f.submit(base)
	again, _ := f.replayed()
	require.Equal(t, after+1, again, "replayed after another buffer was destroyed")
	require.NoError(t, f.d.DestroyBuffer(c))
	err = f.d.Dispatch(f.s, base)
	require.ErrorIs(t, err, device.ErrClosed, "a destroyed buffer")
	require.ErrorContains(t, err, fmt.Sprint(c))
}
