package device

import (
	"fmt"

	"github.com/lucent-gpu/lucent/frontend/ir"
)

// KernelPrint is one text a kernel printed (kernel.Printf, dsl's K.Printf),
// formatted as Go's fmt formats the same values. Backends deliver a
// command list's prints once the list has finished, in each thread's program
// order, to the device's print handler (WithPrint; by default the device's
// Logger at Info level).
type KernelPrint struct {
	Kernel string    // the kernel's name
	Thread [3]uint32 // the printing thread's dispatch id
	Text   string

	// Dropped, when not 0, makes this a notice instead of a text: that many
	// prints of Kernel were lost because the stream's print buffer was full
	// (WithPrintCapacity). Thread and Text are then empty.
	Dropped uint64
}

// DefaultPrintCapacity is the default size of a stream's print buffer in
// bytes (WithPrintCapacity).
const DefaultPrintCapacity = 1 << 20

// WithPrint hands what kernels print to f instead of the device's Logger. f
// runs on the backend's completion goroutine (as a stream callback does), one
// call at a time per stream; a panic in it is recovered and logged.
func WithPrint(f func(KernelPrint)) Option { return func(o *Options) { o.Print = f } }

// WithPrintCapacity sets the bytes of device memory each stream keeps for
// the prints of one command list (default DefaultPrintCapacity). Prints past
// it are counted and reported as a KernelPrint with Dropped set, never a
// fault. Backends that print directly from the host (cpu) ignore it.
func WithPrintCapacity(bytes int) Option { return func(o *Options) { o.PrintCapacity = bytes } }

// PrintTo returns the print handler of o: o.Print, else one logging each
// print to o.Logger.
func (o *Options) PrintTo() func(KernelPrint) {
	if o.Print != nil {
		return o.Print
	}
	log := o.Logger
	return func(p KernelPrint) {
		if log == nil {
			return
		}
		if p.Dropped > 0 {
			log.Warn("kernel prints dropped: the stream's print buffer is full (WithPrintCapacity)", "kernel", p.Kernel, "dropped", p.Dropped)
			return
		}
		log.Info("kernel print", "kernel", p.Kernel, "thread", p.Thread, "text", p.Text)
	}
}

// PrintSite describes one Print statement of a kernel, by its index in
// ir.Function.Prints: its format and its arguments' types, which is all a
// backend needs to format a record a kernel wrote.
type PrintSite struct {
	Format string
	Args   []PrintArg
}

// PrintArg is the type of one argument of a PrintSite: a scalar or a vector.
type PrintArg struct {
	Scalar     ScalarKind
	ScalarBits uint8
	Components uint8
}

// Type is the kernel type of the argument.
func (a PrintArg) Type() (*ir.Type, error) {
	var s *ir.Type
	bits := int(a.ScalarBits)
	sized := bits == 16 || bits == 32 || bits == 64 || bits == 8 && a.Scalar != ScalarFloat
	switch {
	case a.Scalar == ScalarBool:
		s = ir.TBool
	case a.Scalar == ScalarInt && sized:
		s = ir.Int(bits)
	case a.Scalar == ScalarUint && sized:
		s = ir.Uint(bits)
	case a.Scalar == ScalarFloat && sized:
		s = ir.Float(bits)
	}
	if s == nil || a.Components == 0 || a.Components > 4 {
		return nil, fmt.Errorf("%w: print argument of %v%d×%d", ErrInvalidArgument, a.Scalar, a.ScalarBits, a.Components)
	}
	if a.Components > 1 {
		return ir.Vector(s, int(a.Components)), nil
	}
	return s, nil
}

// PrintStatement rebuilds the site as an ir.Print whose arguments are
// placeholders of the right types, for ir.PrintText.
func (s PrintSite) PrintStatement() (*ir.Print, error) {
	p := &ir.Print{Format: s.Format, Args: make([]ir.Expr, len(s.Args))}
	for i, a := range s.Args {
		t, err := a.Type()
		if err != nil {
			return nil, err
		}
		p.Args[i] = &ir.Ref{Var: &ir.Var{Type: t}}
	}
	if err := ir.CheckPrint(p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidArgument, err)
	}
	return p, nil
}

// printSites describes the Print statements of f, by site.
func printSites(f *ir.Function) []PrintSite {
	var sites []PrintSite
	for _, p := range f.Prints() {
		s := PrintSite{Format: p.Format, Args: make([]PrintArg, len(p.Args))}
		for i, a := range p.Args {
			var arg Argument
			describeScalar(&arg, a.Type())
			s.Args[i] = PrintArg{Scalar: arg.Scalar, ScalarBits: arg.ScalarBits, Components: arg.Components}
		}
		sites = append(sites, s)
	}
	return sites
}

// FaultKind is what a checked kernel did wrong.
type FaultKind uint8

const (
	FaultBufferIndex  FaultKind = iota + 1 // a buffer (or view) index out of range
	FaultSharedIndex                       // a shared-memory index out of range
	FaultDivideByZero                      // an integer division or remainder by zero
	FaultAssert                            // a failed assertion (kernel.Assert); Msg says what
	FaultTextureCoord                      // a texel coordinate out of the texture level's extent
	FaultBindlessSlot                      // a bindless slot out of range, or empty
	FaultArrayIndex                        // an index out of range of an array, vector or matrix value
	// FaultLoopLimit: the thread's loop iterations, all its loops together,
	// reached the driver's bound (Len), past which the driver ends every
	// loop of the thread without an error (lavapipe before Mesa 25: 65535);
	// the kernel's later iterations, if it had any, did not run.
	FaultLoopLimit
)

// SitePos is the position of site in sig (Signature.Sites), "" when unknown.
func (sig *Signature) SitePos(site uint32) string {
	if int64(site) < int64(len(sig.Sites)) {
		return sig.Sites[site]
	}
	return ""
}

// KernelFault is the error a stream's Synchronize returns after a kernel
// compiled in the checked mode (WithChecked, WithCheckedKernels) faulted:
// the first fault recorded, and how many there were. It wraps
// ErrInvalidArgument, as the cpu backend's checked accesses do.
type KernelFault struct {
	Kernel string
	Kind   FaultKind
	// What names the argument ("argument 0 (src)") or shared variable
	// ("shared variable 1") indexed; empty for a division.
	What  string
	Index uint64 // the index used, saturated to 32 bits on Vulkan (4294967295 for 2³² or more, or negative)
	Len   uint64 // the length it was out of
	// Msg is the message of a failed assertion (FaultAssert).
	Msg    string
	Thread [3]uint32
	// Pos is the source position of the statement that faulted
	// ("file:line:col" for Go kernels, "file:line" of the builder's call for
	// DSL kernels; ir.StmtPos), empty where unknown.
	Pos string
	// Count is the faults recorded in the list (at least 1); more may have
	// been lost with a full print buffer (WithPrintCapacity).
	Count int
}

func (f *KernelFault) Error() string {
	var what string
	index := fmt.Sprint(f.Index)
	if int64(f.Index) < 0 {
		index = fmt.Sprint(int64(f.Index))
	}
	switch f.Kind {
	case FaultDivideByZero:
		what = "integer division by zero"
	case FaultAssert:
		what = fmt.Sprintf("assertion failed: %s", f.Msg)
	case FaultLoopLimit:
		what = fmt.Sprintf("the thread's loops reached the driver's bound of %d iterations in all, where it ends them silently: any later iteration did not run", f.Len)
	case FaultTextureCoord:
		what = fmt.Sprintf("%s: texel coordinate %s out of range [0, %d)", f.What, index, f.Len)
	case FaultBindlessSlot:
		if f.Index < f.Len {
			what = fmt.Sprintf("%s: slot %s is empty", f.What, index)
		} else {
			what = fmt.Sprintf("%s: slot %s out of range [0, %d)", f.What, index, f.Len)
		}
	default:
		what = fmt.Sprintf("%s: index %s out of range [0, %d)", f.What, index, f.Len)
	}
	more := ""
	if f.Count > 1 {
		more = fmt.Sprintf(" (and %d more faults)", f.Count-1)
	}
	at := ""
	if f.Pos != "" {
		at = f.Pos + ": "
	}
	return fmt.Sprintf("%skernel %s: thread %v: %s%s: %v", at, f.Kernel, f.Thread, what, more, ErrInvalidArgument)
}

func (f *KernelFault) Unwrap() error { return ErrInvalidArgument }
