package device

import "fmt"

// ResourceKind says what a handle names.
type ResourceKind uint8

// Resource kinds. Mesh, Procedural and Accel are ray tracing's (RayTracing,
// package accel).
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
	KindSurface    // presentation (Presenter)
	KindSwapchain  // presentation (Presenter)
	KindProcedural // ray tracing: axis-aligned boxes (RayTracing)
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
	KindProcedural:    "procedural",
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
