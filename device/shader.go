package device

import (
	"fmt"
	"reflect"
)

// Shader is a compute pipeline with its Signature.
type Shader struct {
	*resource
	sig         Signature
	name        string
	wholeBlocks bool // ShaderDesc.WholeBlocks
}

// NewShader creates a shader: from a lucent kernel (desc.Kernel, which the
// backend compiles; Compile is the usual way there) or from SPIR-V, which only
// the Vulkan backend takes. With desc.Signature nil the backend reflects the
// argument list from the module; Signature then reports it. Unless
// desc.Trusted, a module is validated with SPIRV-Tools first (for the
// device's Vulkan version and layouts), and refused with ErrUnsupported where
// SPIRV-Tools is missing; every module is checked against the device's
// limits. See ShaderDesc.Trusted.
func (d *Device) NewShader(desc ShaderDesc) (*Shader, error) {
	name := desc.Name
	if name == "" {
		name = "shader"
	}
	return d.newShader(desc, func(err error) error { return fmt.Errorf("device: NewShader %s: %w", name, err) })
}

// newShader is NewShader with wrap applied to the errors of desc and of the
// backend (Compile wraps them its own way).
func (d *Device) newShader(desc ShaderDesc, wrap func(error) error) (*Shader, error) {
	name := desc.Name
	if name == "" {
		name = "shader"
	}
	switch {
	case desc.Host != nil && desc.Kernel == nil:
		return nil, wrap(fmt.Errorf("%w: a host function without the kernel it implements (ShaderDesc.Kernel)", ErrInvalidArgument))
	case desc.Kernel != nil && len(desc.SPIRV) != 0:
		return nil, wrap(fmt.Errorf("%w: both a kernel and SPIR-V", ErrInvalidArgument))
	case desc.Kernel != nil:
		if desc.Signature == nil {
			return nil, wrap(fmt.Errorf("%w: kernel %s without its signature (KernelSignature)", ErrInvalidArgument, desc.Kernel.Name))
		}
	case len(desc.SPIRV) < 5 || desc.SPIRV[0] != 0x07230203:
		return nil, wrap(fmt.Errorf("%w: not a SPIR-V module (%d words)", ErrInvalidArgument, len(desc.SPIRV)))
	}
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	h, sig, err := d.iface.CreateShader(desc)
	if err != nil {
		return nil, wrap(err)
	}
	r, err := d.track(h, KindShader)
	if err != nil {
		return nil, err
	}
	whole := desc.WholeBlocks || (desc.Kernel != nil && desc.Kernel.UsesBarrier())
	return &Shader{resource: r, sig: sig, name: name, wholeBlocks: whole}, nil
}

// Signature returns the argument list the shader is dispatched with.
func (s *Shader) Signature() Signature {
	if s == nil {
		return Signature{}
	}
	return s.sig
}

func (s *Shader) base() *resource {
	if s == nil {
		return nil
	}
	return s.resource
}

// Close destroys the shader once the work using it has finished; later calls,
// and calls on a nil Shader, return nil.
func (s *Shader) Close() error { return s.base().Close() }

// Handle returns the backend handle (0 for a nil Shader).
func (s *Shader) Handle() Handle { return s.base().Handle() }

// SetName gives the shader a debug name.
func (s *Shader) SetName(name string) error { return s.base().SetName(name) }

// Dispatch returns a command running the shader over size threads with args,
// in Signature order: *Buffer[T] or BufferView[T] for buffers (a ReadView[T]
// for one the shader only reads), *Image[T],
// *Volume[T] or a TextureLevel[T] for storage textures, SampledTexture for
// sampled ones, *BindlessArray, an AccelArg (an *accel.Accel) for accels,
// and plain values for uniforms. A zero y or z size counts as 1. A mismatch
// (count, kind, element or value type) gives a command whose error, naming
// the argument, Stream.Submit returns. A shader
// that must run in whole blocks (ShaderDesc.WholeBlocks: a kernel with
// barriers) refuses a size that is not a multiple of its block.
func (s *Shader) Dispatch(size [3]uint32, args ...any) Command {
	if err := s.base().usable("Shader"); err != nil {
		return bad("dispatch", err)
	}
	if s.wholeBlocks {
		bs := s.sig.BlockSize
		up, whole := size, true
		for i := range 3 {
			b := uint64(max(bs[i], 1))
			n := (uint64(max(size[i], 1)) + b - 1) / b * b
			whole = whole && n == uint64(max(size[i], 1))
			up[i] = uint32(min(n, 1<<32-1))
		}
		if !whole {
			return bad("dispatch "+s.name, invalidf("it uses barriers, so its size %v must be a multiple of its block %v: dispatch %v and have the threads past the data skip their work (an early return leaves the others waiting at the barrier)", size, bs, up))
		}
	}
	if size[1] == 0 {
		size[1] = 1
	}
	if size[2] == 0 {
		size[2] = 1
	}
	if size[0] == 0 {
		return bad("dispatch "+s.name, invalidf("dispatch size %v has a zero dimension", size))
	}
	return s.dispatch(size, 0, 0, args)
}

// DispatchIndirect returns a command running the shader with workgroup counts
// read on the device from groups (three uint32: x, y, z).
func (s *Shader) DispatchIndirect(groups BufferView[uint32], args ...any) Command {
	if err := s.base().usable("Shader"); err != nil {
		return bad("dispatch", err)
	}
	if err := groups.check(); err != nil {
		return bad("dispatch "+s.name, fmt.Errorf("indirect buffer: %w", err))
	}
	if groups.n < 3 {
		return bad("dispatch "+s.name, invalidf("indirect buffer view holds %d uint32, need 3", groups.n))
	}
	off, _ := groups.byteRange()
	return s.dispatch([3]uint32{}, groups.buf.h, off, args)
}

func (s *Shader) dispatch(size [3]uint32, ind Handle, indOff uint64, args []any) Command {
	if s.isClosed() {
		return bad("dispatch "+s.name, s.errClosed())
	}
	bound, err := bindArgs(s.sig, args)
	if err != nil {
		return bad("dispatch "+s.name, err)
	}
	for i, a := range bound {
		if a.Handle != 0 && a.Handle.Device() != s.h.Device() {
			return bad("dispatch "+s.name, invalidf("%s: %s %d belongs to another device than shader %d", s.sig.Args[i].Label(i), a.Kind, a.Handle, s.h))
		}
	}
	if ind != 0 && ind.Device() != s.h.Device() {
		return bad("dispatch "+s.name, invalidf("indirect buffer %d belongs to another device than shader %d", ind, s.h))
	}
	return &ShaderDispatch{Shader: s.h, Size: size, Args: bound, Indirect: ind, IndirectOffset: indOff}
}

// argType is what a typed argument says about itself, for checking against
// the Signature: its Go element or pixel type, and the resource it names.
type argType struct {
	elem reflect.Type // buffer element or pixel type
	res  ArgResource
}

// AccelArg is an accel as a dispatch argument: package accel's *Accel
// implements it (this package cannot import accel). AccelArgHandle returns
// the accel's handle on its device's RayTracing extension, or an error for
// a zero value or a closed accel. Whether it has been built is checked by
// the validation wrapper when the dispatch is submitted.
type AccelArg interface {
	AccelArgHandle() (Handle, error)
}

// binder is a typed resource usable as a dispatch argument.
type binder interface {
	bindArg() (Arg, argType, error)
}

// bindArgs checks args against sig and converts them. Errors name the argument.
func bindArgs(sig Signature, args []any) ([]Arg, error) {
	if err := CheckArgCount("shader", &sig, len(args)); err != nil {
		return nil, err
	}
	out := make([]Arg, len(args))
	for i, v := range args {
		a, err := bindArg(sig.Args[i], v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sig.Args[i].Label(i), err)
		}
		out[i] = a
	}
	return out, nil
}

// bindArg converts one typed argument. The checks against the signature are
// CheckArg's, as in the validation wrapper and the backend; only the Go
// types (a buffer's element, a uniform's value) are checked here.
func bindArg(want Argument, v any) (Arg, error) {
	if x, ok := v.(AccelArg); ok {
		h, err := x.AccelArgHandle()
		if err != nil {
			return Arg{}, err
		}
		a := Arg{Kind: ArgAccel, Handle: h, Access: Read}
		if err := CheckArg(want, a, ArgResource{}); err != nil {
			return Arg{}, fmt.Errorf("%w (%T)", err, v)
		}
		return a, nil
	}
	if b, ok := v.(binder); ok {
		a, t, err := b.bindArg()
		if err != nil {
			return Arg{}, err
		}
		if err := CheckArg(want, a, t.res); err != nil {
			return Arg{}, fmt.Errorf("%w (%T)", err, v)
		}
		if a.Kind == ArgBuffer && a.Access == Read && want.Access != Read {
			// A ReadView: the shader must only read the argument.
			return Arg{}, fmt.Errorf("%w: a read-only view (%T) for an argument the shader may write (access %v)", ErrInvalidArgument, v, want.Access)
		}
		if a.Kind == ArgBuffer {
			if err := checkScalar(want, t.elem); err != nil {
				return Arg{}, fmt.Errorf("%w: buffer element: %v", ErrInvalidArgument, err)
			}
		}
		if want.Access != 0 && a.Access == 0 {
			a.Access = want.Access
		}
		return a, nil
	}
	if want.Kind != ArgUniform {
		return Arg{}, fmt.Errorf("%w (%T)", CheckArg(want, Arg{Kind: ArgUniform}, ArgResource{}), v)
	}
	b, t, err := uniformBytes(v)
	if err != nil {
		return Arg{}, err
	}
	a := Arg{Kind: ArgUniform, Uniform: b}
	if err := CheckArg(want, a, ArgResource{}); err != nil {
		return Arg{}, fmt.Errorf("%w (%s)", err, t)
	}
	if err := checkScalar(want, t); err != nil {
		return Arg{}, fmt.Errorf("%w: %v", ErrInvalidArgument, err)
	}
	return a, nil
}
