package device

import (
	"fmt"
	"sync/atomic"
)

// Handle names a backend resource. A backend hands out handles that are
// non-zero, unique across all kinds and never reused, and unique across every
// device of the process: a backend takes them from a HandleSpace, whose top
// bits name the device. So a handle alone identifies a resource, a handle of
// another device is told apart from one of this device, and 0 is never valid.
type Handle uint64

// Handle layout: the device's serial in the top bits, a per-device counter in
// the low handleCounterBits.
const handleCounterBits = 40

var handleSpaces atomic.Uint64 // serials of the HandleSpaces made so far

// HandleSpace hands out the handles of one device. Every backend takes its
// handles from one, so that a handle of another device (which would otherwise
// name an unrelated resource of this one with the same number) is refused
// wherever it enters. Safe for concurrent use.
type HandleSpace struct {
	base uint64
	last atomic.Uint64 // the counter of the last handle handed out
}

// NewHandleSpace returns the handle space of a new device.
func NewHandleSpace() *HandleSpace {
	return &HandleSpace{base: handleSpaces.Add(1) << handleCounterBits}
}

// New returns a fresh handle.
func (s *HandleSpace) New() Handle { return Handle(s.base | s.last.Add(1)) }

// Device returns the serial of the device a handle was made by (0 for none).
func (h Handle) Device() uint64 { return uint64(h) >> handleCounterBits }

// Owns reports whether h was handed out by this space.
func (s *HandleSpace) Owns(h Handle) bool {
	n := uint64(h) &^ s.base
	return uint64(h)&^(1<<handleCounterBits-1) == s.base && n != 0 && n <= s.last.Load()
}

// Missing explains why a handle names no live resource of this device: 0, a
// handle of another device, one of this device that was destroyed (ErrClosed),
// or one never handed out. kind names what the caller wanted ("buffer").
func (s *HandleSpace) Missing(h Handle, kind string) error {
	switch {
	case h == 0:
		return invalidf("%s handle 0 (a zero value, or a resource never created)", kind)
	case h.Device() != s.base>>handleCounterBits:
		if h.Device() != 0 && h.Device() <= handleSpaces.Load() {
			return invalidf("%s %d belongs to another device (device #%d; this is device #%d)",
				kind, h, h.Device(), s.base>>handleCounterBits)
		}
		return invalidf("unknown %s handle %d", kind, h)
	case s.Owns(h):
		return fmt.Errorf("%s %d: %w", kind, h, ErrClosed)
	}
	return invalidf("unknown %s handle %d", kind, h)
}

// ResourceKind says what a handle names.
type ResourceKind uint8

// Resource kinds. Mesh and Accel are reserved for ray tracing (package accel).
const (
	KindInvalid ResourceKind = iota
	KindBuffer
	KindTexture
	KindBindlessArray
	KindStream
	KindEvent
	KindShader
	KindMesh
	KindAccel
	KindSurface   // presentation (Presenter)
	KindSwapchain // presentation (Presenter)
)

var kindNames = [...]string{
	KindInvalid:       "invalid",
	KindBuffer:        "buffer",
	KindTexture:       "texture",
	KindBindlessArray: "bindless array",
	KindStream:        "stream",
	KindEvent:         "event",
	KindShader:        "shader",
	KindMesh:          "mesh",
	KindAccel:         "accel",
	KindSurface:       "surface",
	KindSwapchain:     "swapchain",
}

func (k ResourceKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ResourceKind(%d)", uint8(k))
}

// StreamKind says which commands a stream (a queue) can run.
type StreamKind uint8

const (
	// StreamCompute runs every command: dispatches, copies, updates.
	StreamCompute StreamKind = iota
	// StreamCopy runs transfers only (uploads, downloads, copies); a backend
	// may map it to a dedicated transfer queue. Dispatches and bindless
	// updates are rejected on it.
	StreamCopy
)

func (k StreamKind) String() string {
	switch k {
	case StreamCompute:
		return "compute"
	case StreamCopy:
		return "copy"
	}
	return fmt.Sprintf("StreamKind(%d)", uint8(k))
}

// Access says how a command uses a resource.
type Access uint8

const (
	Read Access = 1 << iota
	Write
	ReadWrite = Read | Write
)

func (a Access) String() string {
	switch a {
	case Read:
		return "read"
	case Write:
		return "write"
	case ReadWrite:
		return "read-write"
	}
	return fmt.Sprintf("Access(%d)", uint8(a))
}

// Usage is one resource a command reads or writes. Backends derive barriers
// from usages; the validation wrapper checks lifetimes and hazards with them.
// For buffers, Offset and Size give the byte range touched; Size 0 or
// WholeSize mean "to the end" (a usage errs on the side of more barriers).
type Usage struct {
	Handle Handle
	Kind   ResourceKind
	Access Access
	Offset uint64
	Size   uint64
}
