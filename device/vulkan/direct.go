package vulkan

import "github.com/lucent-gpu/lucent/device"

// Direct uploads. Where a buffer lives in host-visible, host-coherent memory
// (lavapipe, integrated GPUs: every resource of a unified device), an upload
// can be a plain copy into the buffer's mapping instead of a copy into
// staging and a GPU copy from there — when doing it at Dispatch, ahead of
// the list's place in its stream, cannot be seen:
//
//   - no submission on any stream is still outstanding (the device's
//     in-flight count is zero), so nothing on the device reads or writes the
//     buffer, directly or through a bindless slot, and no parked submission
//     waits to run before this list;
//   - no earlier command of the list touches the buffer, binds a bindless
//     array or is a custom command (which may touch anything).
//
// The copies are made once the whole list has encoded, just before it is
// submitted, so a list that fails leaves the buffers as they were; a later
// command of the list sees the data (host writes to coherent memory before
// vkQueueSubmit are visible to the device). Every other upload is staged.
//
//	list: upload a; dispatch(a, b); upload b     stream idle
//	upload a  → direct (first to touch a)
//	upload b  → staged (the dispatch reads b first)

// directWrite is one upload made by the host.
type directWrite struct {
	dst, src []byte
}

// planDirect decides which uploads of list write directly (e.direct[i]).
func (e *encoder) planDirect(list *device.CommandList) {
	e.direct = e.direct[:0]
	if e.d.inflight.Load() != 0 || !hasUpload(list) {
		return
	}
	e.direct = append(e.direct, make([]bool, len(list.Commands))...)
	if e.seen == nil {
		e.seen = map[device.Handle]bool{}
	}
	clear(e.seen)
	for i, c := range list.Commands {
		switch c := c.(type) {
		case *device.BufferUpload:
			if !e.seen[c.Buffer] && len(c.Data) > 0 {
				if b, err := lookup[*buffer](e.d, c.Buffer, "buffer"); err == nil && b.raw.coherent && (!b.needsClear.Load() || b.whole(c.Offset, uint64(len(c.Data)))) {
					e.direct[i] = true
				}
			}
		case *device.ShaderDispatch:
			for _, a := range c.Args {
				if a.Kind == device.ArgBindlessArray {
					return // the kernel may touch any buffer a slot points at
				}
			}
		case *device.Custom:
			return
		}
		for _, u := range c.Usages() {
			e.seen[u.Handle] = true
		}
	}
}

func hasUpload(list *device.CommandList) bool {
	for _, c := range list.Commands {
		if _, ok := c.(*device.BufferUpload); ok {
			return true
		}
	}
	return false
}

// isDirect reports whether command i of the list being encoded writes directly.
func (e *encoder) isDirect(i int) bool { return i < len(e.direct) && e.direct[i] }

// writeDirect makes the list's direct uploads (it has encoded).
func (e *encoder) writeDirect() {
	for _, w := range e.writesDirect {
		hostCopy(w.dst, w.src)
	}
	e.lastDirect = len(e.writesDirect)
}
