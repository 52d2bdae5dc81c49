package device

import "sync/atomic"

// Command is one unit of work on a stream. The set is closed (the marker method
// is unexported): a backend encodes a CommandList with one type switch over the
// structs below, and adding a command is adding a struct and a case.
//
// Each command states its own facts, so that no code outside the command
// (Submit, the validation wrapper) switches over the set:
//
//   - Usages reports the resources it reads and writes; backends derive
//     barriers from it and the validation wrapper checks lifetimes and
//     hazards.
//   - CommandName is a short name of its kind, for messages ("buffer copy").
//   - Queue is the stream kind it needs: StreamCopy runs on any stream,
//     StreamCompute only on a compute stream.
//   - Check reports the faults in its own fields (those needing no resource
//     to be looked up), wrapping ErrInvalidArgument; Submit calls it on every
//     device, with or without validation.
type Command interface {
	Usages() []Usage
	CommandName() string
	Queue() StreamKind
	Check() error
	command()
}

// BufferUpload copies host bytes into a buffer at Offset. Data is read when the
// command is dispatched (the backend copies it to staging memory then), so the
// caller may reuse it once Dispatch returns.
type BufferUpload struct {
	Buffer Handle
	Offset uint64
	Data   []byte
}

// BufferDownload copies len(Data) bytes of a buffer at Offset to host memory.
// Data is written when the GPU work finishes; it must stay alive and untouched
// until the stream (or an event signalled after it) is synchronized.
type BufferDownload struct {
	Buffer Handle
	Offset uint64
	Data   []byte
}

// BufferCopy copies Size bytes between buffers.
type BufferCopy struct {
	Src       Handle
	SrcOffset uint64
	Dst       Handle
	DstOffset uint64
	Size      uint64
}

// BufferFill writes the 32-bit Value, little-endian, over Size bytes of a
// buffer at Offset; both must be multiples of 4 (vkCmdFillBuffer's rule, and
// cuMemsetD32's). The typed API's Fill takes any element value and falls
// back to an upload where the element's bytes do not repeat every 4.
type BufferFill struct {
	Buffer Handle
	Offset uint64
	Size   uint64
	Value  uint32
}

// Region is a box of texels in one mip level of a texture. A zero Size means
// the whole level (Origin must then be zero).
type Region struct {
	Level  uint32
	Origin [3]uint32
	Size   [3]uint32
}

// BufferToTexture copies tightly packed texels from a buffer at Offset into a
// region of a texture.
type BufferToTexture struct {
	Buffer  Handle
	Offset  uint64
	Texture Handle
	Region  Region
}

// TextureToBuffer copies a region of a texture into a buffer at Offset, tightly
// packed.
type TextureToBuffer struct {
	Texture Handle
	Region  Region
	Buffer  Handle
	Offset  uint64
}

// TextureUpload copies tightly packed host texels into a region of a texture
// (rows of Size[0] pixels, Size[1] rows per slice, Size[2] slices). Data is
// read during Dispatch, as for BufferUpload.
type TextureUpload struct {
	Texture Handle
	Region  Region
	Data    []byte
}

// TextureDownload copies a region of a texture to host memory, tightly packed.
// Data is written when the GPU work finishes, as for BufferDownload.
type TextureDownload struct {
	Texture Handle
	Region  Region
	Data    []byte
}

// TextureCopy copies one whole mip level between textures of the same format
// and level extent.
type TextureCopy struct {
	Src      Handle
	SrcLevel uint32
	Dst      Handle
	DstLevel uint32
}

// WholeSize as the Size of a buffer argument, a bindless slot or a usage means
// "from Offset to the end of the buffer".
const WholeSize = ^uint64(0)

// Arg is one argument of a dispatch, in the order of the shader's Signature.
type Arg struct {
	Kind ArgKind

	// Handle is the resource (buffer, texture, bindless array).
	Handle Handle

	// Offset and Size are the byte range of a buffer argument: exactly Size
	// bytes (0 is an empty range, which the kernel sees as a buffer of
	// length 0), or the rest of the buffer with WholeSize.
	Offset uint64
	Size   uint64

	// Level is the mip level of a texture argument; Sampler goes with an
	// ArgSampledTexture.
	Level   uint32
	Sampler Sampler

	// Uniform holds a uniform argument's bytes, in Go's (= scalar block) layout.
	Uniform []byte

	// Access is how the shader uses the resource (from its Signature);
	// zero counts as ReadWrite.
	Access Access
}

func (a Arg) access() Access {
	if a.Access == 0 {
		return ReadWrite
	}
	return a.Access
}

// ShaderDispatch runs a shader over Size threads (not workgroups: the backend
// divides by the shader's block size, rounding up, and splits dispatches larger
// than the device's workgroup-count limit, per kernel ABI v1).
type ShaderDispatch struct {
	Shader Handle
	Size   [3]uint32
	Args   []Arg

	// Indirect, when non-zero, names a buffer holding the workgroup counts
	// (three uint32, VkDispatchIndirectCommand) at IndirectOffset; Size is then
	// ignored. The header's dispatch_size then reads 0xFFFFFFFF in all three
	// components (kernel ABI v1), and a lucent kernel's DispatchSize is the
	// group count times the block size.
	Indirect       Handle
	IndirectOffset uint64
}

// BindlessOp is what a BindlessUpdate does to one slot.
type BindlessOp uint8

const (
	BindlessSetBuffer BindlessOp = iota
	BindlessSetTexture
	BindlessRemove
)

// BindlessSlot is one slot change of a bindless array.
type BindlessSlot struct {
	Slot uint32
	Op   BindlessOp

	// Buffer, Offset and Size: the buffer range put in the slot: exactly Size
	// bytes (0: an empty range, whose accesses read zero and drop writes), or
	// the rest of the buffer with WholeSize.
	Buffer Handle
	Offset uint64
	Size   uint64

	// Texture and Sampler: the texture put in the slot.
	Texture Handle
	Sampler Sampler
}

// BindlessUpdate applies slot changes to a bindless array; later dispatches on
// any stream ordered after it see them.
type BindlessUpdate struct {
	Array Handle
	Slots []BindlessSlot

	accepted atomic.Bool
}

// Accepted reports whether Stream.Submit handed a list holding c to its
// backend without an error (see AccelBuild).
func (c *BindlessUpdate) Accepted() bool { return c.accepted.Load() }

// A delta is a command that carries the changes made since an earlier one
// (AccelBuild, BindlessUpdate). Stream.Submit marks those of a list its
// backend took; the changes of one it did not take are sent again by the
// next, so a refused or dropped command loses nothing.
type delta interface{ accept() }

func (c *AccelBuild) accept()     { c.accepted.Store(true) }
func (c *BindlessUpdate) accept() { c.accepted.Store(true) }

// Custom runs Func with the backend's native command buffer (a VkCommandBuffer
// for the Vulkan backend) while the command list is being encoded. Resources
// declares what Func touches, so barriers and validation still work. A panic
// in Func fails the submission with an error wrapping ErrPanicked.
//
// The cpu backend has no command buffer and records nothing: it calls Func
// with 0 in stream order, at the command's place, on the stream's goroutine,
// once the work of the commands before it is complete and before the
// commands after it start, so that Func does the command's work itself. An
// error from Func (wrapped with the command's Name) or a panic in it
// (wrapping ErrPanicked) fails the list there: its later commands do not
// run, and the stream's next SynchronizeStream returns the error. As in a
// callback, Func must not wait for its own stream (SynchronizeStream of it
// is refused).
type Custom struct {
	Name      string
	Resources []Usage
	Func      func(nativeCommandBuffer uintptr) error
}

// Present shows level 0 of a 2D texture in a window (see Presenter): after
// the stream's earlier work, and the list's commands before it, the texture
// is blitted (scaled where the sizes differ) to the swapchain's next back
// buffer, which is queued for display once the list's work is done. The
// stream must be the one the swapchain was made with; a list presents a
// swapchain at most once. At most two frames are in flight: Dispatch waits
// for the one before last.
//
// Shown, when not nil, is set during Dispatch: false when no frame could be
// shown (a minimised or out-of-date window; the swapchain is recreated for
// the next present), which is not an error.
type Present struct {
	Swapchain Handle
	Texture   Handle
	Shown     *bool
}

func (*BufferUpload) command()    {}
func (*BufferDownload) command()  {}
func (*BufferCopy) command()      {}
func (*BufferFill) command()      {}
func (*BufferToTexture) command() {}
func (*TextureToBuffer) command() {}
func (*TextureUpload) command()   {}
func (*TextureDownload) command() {}
func (*TextureCopy) command()     {}
func (*ShaderDispatch) command()  {}
func (*BindlessUpdate) command()  {}
func (*Custom) command()          {}
func (*Present) command()         {}

func (*BufferUpload) CommandName() string    { return "buffer upload" }
func (*BufferDownload) CommandName() string  { return "buffer download" }
func (*BufferCopy) CommandName() string      { return "buffer copy" }
func (*BufferFill) CommandName() string      { return "buffer fill" }
func (*BufferToTexture) CommandName() string { return "buffer-to-texture copy" }
func (*TextureToBuffer) CommandName() string { return "texture-to-buffer copy" }
func (*TextureUpload) CommandName() string   { return "texture upload" }
func (*TextureDownload) CommandName() string { return "texture download" }
func (*TextureCopy) CommandName() string     { return "texture copy" }
func (*BindlessUpdate) CommandName() string  { return "bindless update" }
func (*Present) CommandName() string         { return "present" }

func (c *ShaderDispatch) CommandName() string {
	if c.Indirect != 0 {
		return "indirect dispatch"
	}
	return "dispatch"
}

func (c *Custom) CommandName() string {
	if c.Name != "" {
		return "custom " + c.Name
	}
	return "custom"
}

func (*BufferUpload) Queue() StreamKind    { return StreamCopy }
func (*BufferDownload) Queue() StreamKind  { return StreamCopy }
func (*BufferCopy) Queue() StreamKind      { return StreamCopy }
func (*BufferFill) Queue() StreamKind      { return StreamCopy }
func (*BufferToTexture) Queue() StreamKind { return StreamCopy }
func (*TextureToBuffer) Queue() StreamKind { return StreamCopy }
func (*TextureUpload) Queue() StreamKind   { return StreamCopy }
func (*TextureDownload) Queue() StreamKind { return StreamCopy }
func (*TextureCopy) Queue() StreamKind     { return StreamCopy }
func (*ShaderDispatch) Queue() StreamKind  { return StreamCompute }
func (*BindlessUpdate) Queue() StreamKind  { return StreamCompute }
func (*Custom) Queue() StreamKind          { return StreamCompute }
func (*Present) Queue() StreamKind         { return StreamCompute }

func (*BufferUpload) Check() error    { return nil }
func (*BufferDownload) Check() error  { return nil }
func (*BufferToTexture) Check() error { return nil }
func (*TextureToBuffer) Check() error { return nil }
func (*TextureUpload) Check() error   { return nil }
func (*TextureDownload) Check() error { return nil }

// Check refuses a copy between overlapping ranges of one buffer. A copy of
// 0 bytes does nothing; its offsets are checked against the buffers where
// those are known (the validation wrapper, the backend).
func (c *BufferCopy) Check() error {
	if c.Src == c.Dst && c.SrcOffset < c.DstOffset+c.Size && c.DstOffset < c.SrcOffset+c.Size {
		return invalidf("overlapping copy within buffer %d", c.Src)
	}
	return nil
}

// Check refuses an offset or size that is not a multiple of 4.
func (c *BufferFill) Check() error {
	if c.Offset%4 != 0 || c.Size%4 != 0 {
		return invalidf("fill of buffer %d at offset %d, %d bytes: offset and size must be multiples of 4", c.Buffer, c.Offset, c.Size)
	}
	return nil
}

func (c *TextureCopy) Check() error {
	if c.Src == c.Dst && c.SrcLevel == c.DstLevel {
		return invalidf("copy of texture %d level %d onto itself", c.Src, c.SrcLevel)
	}
	return nil
}

func (c *ShaderDispatch) Check() error {
	if c.Indirect != 0 {
		if c.IndirectOffset%4 != 0 {
			return invalidf("indirect offset %d is not a multiple of 4", c.IndirectOffset)
		}
	} else if c.Size[0] == 0 || c.Size[1] == 0 || c.Size[2] == 0 {
		return invalidf("dispatch size %v has a zero dimension", c.Size)
	}
	return nil
}

func (c *BindlessUpdate) Check() error {
	for _, sl := range c.Slots {
		switch sl.Op {
		case BindlessSetBuffer, BindlessRemove:
		case BindlessSetTexture:
			if !sl.Sampler.Valid() {
				return invalidf("slot %d: sampler %v", sl.Slot, sl.Sampler)
			}
		default:
			return invalidf("slot %d: operation %d", sl.Slot, sl.Op)
		}
	}
	return nil
}

func (c *Present) Check() error {
	if c.Swapchain == 0 || c.Texture == 0 {
		return invalidf("present of texture %d to swapchain %d: a zero handle", c.Texture, c.Swapchain)
	}
	return nil
}

func (c *Custom) Check() error {
	if c.Func == nil {
		return invalidf("custom command %q has no Func", c.Name)
	}
	return nil
}

func bufUse(h Handle, a Access, off, size uint64) Usage {
	return Usage{Handle: h, Kind: KindBuffer, Access: a, Offset: off, Size: size}
}

func texUse(h Handle, a Access) Usage { return Usage{Handle: h, Kind: KindTexture, Access: a} }

func (c *BufferUpload) Usages() []Usage {
	return []Usage{bufUse(c.Buffer, Write, c.Offset, uint64(len(c.Data)))}
}

func (c *BufferDownload) Usages() []Usage {
	return []Usage{bufUse(c.Buffer, Read, c.Offset, uint64(len(c.Data)))}
}

func (c *BufferCopy) Usages() []Usage {
	return []Usage{bufUse(c.Src, Read, c.SrcOffset, c.Size), bufUse(c.Dst, Write, c.DstOffset, c.Size)}
}

func (c *BufferFill) Usages() []Usage {
	return []Usage{bufUse(c.Buffer, Write, c.Offset, c.Size)}
}

func (c *BufferToTexture) Usages() []Usage {
	return []Usage{bufUse(c.Buffer, Read, c.Offset, 0), texUse(c.Texture, Write)}
}

func (c *TextureToBuffer) Usages() []Usage {
	return []Usage{texUse(c.Texture, Read), bufUse(c.Buffer, Write, c.Offset, 0)}
}

func (c *TextureUpload) Usages() []Usage { return []Usage{texUse(c.Texture, Write)} }

func (c *TextureDownload) Usages() []Usage { return []Usage{texUse(c.Texture, Read)} }

func (c *TextureCopy) Usages() []Usage {
	return []Usage{texUse(c.Src, Read), texUse(c.Dst, Write)}
}

func (c *ShaderDispatch) Usages() []Usage {
	u := make([]Usage, 0, len(c.Args)+1)
	for _, a := range c.Args {
		switch a.Kind {
		case ArgBuffer:
			u = append(u, bufUse(a.Handle, a.access(), a.Offset, a.Size))
		case ArgTexture, ArgSampledTexture:
			u = append(u, texUse(a.Handle, a.access()))
		case ArgBindlessArray:
			// The array's slots are read; what the slots point at is the
			// caller's to order (as in LuisaCompute).
			u = append(u, Usage{Handle: a.Handle, Kind: KindBindlessArray, Access: Read})
		case ArgAccel:
			// Ray queries read the accel: a build of it earlier in the
			// list is waited for, one on another stream is a hazard.
			u = append(u, Usage{Handle: a.Handle, Kind: KindAccel, Access: Read})
		}
	}
	if c.Indirect != 0 {
		u = append(u, bufUse(c.Indirect, Read, c.IndirectOffset, 12))
	}
	return u
}

func (c *BindlessUpdate) Usages() []Usage {
	u := []Usage{{Handle: c.Array, Kind: KindBindlessArray, Access: Write}}
	for _, s := range c.Slots {
		switch s.Op {
		case BindlessSetBuffer:
			u = append(u, bufUse(s.Buffer, Read, s.Offset, s.Size))
		case BindlessSetTexture:
			u = append(u, texUse(s.Texture, Read))
		}
	}
	return u
}

func (c *Custom) Usages() []Usage { return c.Resources }

// Usages: the blit reads the texture; the swapchain's next back buffer is
// written.
func (c *Present) Usages() []Usage {
	return []Usage{texUse(c.Texture, Read), {Handle: c.Swapchain, Kind: KindSwapchain, Access: Write}}
}
