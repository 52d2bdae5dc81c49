package device

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
)

// Validator is an Interface that checks every call before handing it to the
// Interface it wraps: handles used after Destroy, handles of the wrong kind,
// commands on the wrong kind of stream, dispatch arguments that do not match
// the shader's Signature (count, kind, element size, uniform size, format),
// byte ranges outside buffers and texture levels, cross-stream hazards, and at
// Close the resources still alive. Errors wrap ErrClosed, ErrInvalidArgument
// or ErrHazard and name the command, argument and handle.
//
// Hazards are found with vector clocks. Each Dispatch on a stream is one tick
// of that stream's clock; each stream knows, per other stream, the last tick
// it is ordered after. It learns that from Event waits (a Wait joins the
// clocks recorded by the Signals it waits for) and from the host: after
// SynchronizeStream or SynchronizeEvent returns, everything submitted later on
// any stream is ordered after the work waited for. A resource written at tick
// t of stream A and then used on stream B whose clock for A is below t is a
// hazard; so is a write on B after an unordered read on A. A Wait must be
// issued after the Signal it waits for for the validator to see the order.
//
// A stream destroyed with work that may still run leaves its accesses in
// place: using the resources on another stream is a hazard until that work
// has finished. To know when it has, DestroyStream signals an event of the
// wrapped Interface after the stream's last work; once the event is reached,
// the stream's work counts as waited for by the host.
type Validator struct {
	inner Interface
	log   *slog.Logger

	mu       sync.Mutex
	closed   bool
	res      map[Handle]*vres
	serial   uint64               // the device serial of the handles the backend hands out
	host     clock                // what the host has waited for
	signals  map[Handle][]signal  // per event, in signal order
	accesses map[Handle]*accesses // per buffer, texture or bindless array
	retiring map[Handle]*vres     // destroyed streams whose work may still run
	pend     map[Handle]*accelRec // ray tracing: what the list being checked does (validator_accel.go)
}

// clock maps a stream to a tick of it.
type clock map[Handle]uint64

func (c clock) join(o clock) {
	for s, t := range o {
		if t > c[s] {
			c[s] = t
		}
	}
}

type signal struct {
	value uint64
	at    clock
}

type tick struct {
	stream Handle
	t      uint64
}

type accesses struct {
	write tick              // last write (stream 0: none)
	reads map[Handle]uint64 // per stream, the last read since that write
}

// vres is what the validator knows of one handle.
type vres struct {
	kind   ResourceKind
	name   string
	alive  bool
	buf    BufferDesc
	tex    TextureDesc
	stream StreamKind
	sig    Signature
	kernel string // a shader's kernel name (ShaderDesc.Kernel), which its dispatch errors give
	slots  uint32

	// swapchains only: the surface and the stream presents run on
	surface, present Handle

	// meshes, procedurals and accels only
	accel *accelRec

	// streams only
	tick   uint64
	vc     clock
	retire Handle // destroyed: an event of the wrapped Interface reaching 1 after its last work
}

// errName names a shader in its dispatches' errors: by its kernel, as the
// backends do, else by label.
func (r *vres) errName(h Handle) string {
	if r.kernel != "" {
		return "kernel " + r.kernel
	}
	return r.label(h)
}

func (r *vres) label(h Handle) string {
	if r.name != "" {
		return fmt.Sprintf("%s %d (%q)", r.kind, h, r.name)
	}
	return fmt.Sprintf("%s %d", r.kind, h)
}

// NewValidator wraps inner. Open does this when WithValidation is given.
func NewValidator(inner Interface, log *slog.Logger) *Validator {
	if log == nil {
		log = slog.Default()
	}
	return &Validator{
		inner:    inner,
		log:      log,
		res:      map[Handle]*vres{},
		host:     clock{},
		signals:  map[Handle][]signal{},
		accesses: map[Handle]*accesses{},
		retiring: map[Handle]*vres{},
	}
}

func vinvalid(format string, args ...any) error {
	return fmt.Errorf("validation: %w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

func (v *Validator) errClosed() error { return fmt.Errorf("validation: device %w", ErrClosed) }

// lookup finds a live handle of the wanted kind (KindInvalid: any kind).
func (v *Validator) lookup(h Handle, want ResourceKind) (*vres, error) {
	r, ok := v.res[h]
	switch {
	case h == 0:
		return nil, vinvalid("handle 0 (want a %s)", want)
	case !ok && v.serial != 0 && h.Device() != v.serial:
		return nil, vinvalid("%s %d belongs to another device (device #%d; this is device #%d)", want, h, h.Device(), v.serial)
	case !ok:
		return nil, vinvalid("unknown handle %d (want a %s)", h, want)
	case !r.alive:
		return nil, fmt.Errorf("validation: %s used after Destroy: %w", r.label(h), ErrClosed)
	case want != KindInvalid && r.kind != want:
		return nil, vinvalid("handle %d is a %s, not a %s", h, r.kind, want)
	}
	return r, nil
}

func (v *Validator) add(h Handle, r *vres) {
	v.serial = h.Device()
	r.alive = true
	v.res[h] = r
}

// Leaks returns the resources alive now, in handle order.
func (v *Validator) Leaks() []Leak {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []Leak
	for _, h := range slices.Sorted(maps.Keys(v.res)) {
		if r := v.res[h]; r.alive {
			out = append(out, Leak{Handle: h, Kind: r.kind, Name: r.name})
		}
	}
	return out
}

// Close closes the wrapped Interface and reports, as a *LeakError, the
// resources that were still alive.
func (v *Validator) Close() error {
	leaks := v.Leaks()
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return nil
	}
	v.closed = true
	v.mu.Unlock()
	err := v.inner.Close()
	if len(leaks) > 0 {
		le := &LeakError{Leaks: leaks}
		v.log.Warn("validation: device closed with live resources", "leaks", le.Error())
		return errors.Join(err, le)
	}
	return err
}

// CloseAllowed asks the wrapped Interface, when it is a CloseGuard.
func (v *Validator) CloseAllowed() error {
	if g, ok := v.inner.(CloseGuard); ok {
		return g.CloseAllowed()
	}
	return nil
}

func (v *Validator) Capabilities() Capabilities { return v.inner.Capabilities() }
func (v *Validator) WarpSize() uint32           { return v.inner.WarpSize() }
func (v *Validator) MemoryGranularity() uint64  { return v.inner.MemoryGranularity() }

func (v *Validator) SetName(h Handle, name string) error {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return v.errClosed()
	}
	r, err := v.lookup(h, KindInvalid)
	if err != nil {
		v.mu.Unlock()
		return fmt.Errorf("SetName %q: %w", name, err)
	}
	r.name = name
	v.mu.Unlock()
	return v.inner.SetName(h, name)
}

// create runs a backend create call and records the handle.
func (v *Validator) create(r *vres, f func() (Handle, error)) (Handle, error) {
	v.mu.Lock()
	closed := v.closed
	v.mu.Unlock()
	if closed {
		return 0, v.errClosed()
	}
	h, err := f()
	if err != nil {
		return 0, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if old, dup := v.res[h]; dup {
		return h, fmt.Errorf("validation: backend returned handle %d again (was a %s): %w", h, old.kind, ErrInvalidArgument)
	}
	if h == 0 {
		return 0, fmt.Errorf("validation: backend returned handle 0 for a %s: %w", r.kind, ErrInvalidArgument)
	}
	v.add(h, r)
	return h, nil
}

// destroy checks a handle and marks it dead before the backend destroys it.
func (v *Validator) destroy(h Handle, kind ResourceKind, f func(Handle) error) error {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return v.errClosed()
	}
	r, err := v.lookup(h, kind)
	if err != nil {
		v.mu.Unlock()
		return fmt.Errorf("Destroy: %w", err)
	}
	r.alive = false
	delete(v.accesses, h)
	delete(v.signals, h)
	v.mu.Unlock()
	return f(h)
}

func (v *Validator) CreateBuffer(d BufferDesc) (Handle, error) {
	if d.Size == 0 {
		return 0, vinvalid("CreateBuffer: size 0")
	}
	if d.ElemSize != 0 && d.Size%uint64(d.ElemSize) != 0 {
		return 0, vinvalid("CreateBuffer: size %d is not a multiple of the element size %d", d.Size, d.ElemSize)
	}
	return v.create(&vres{kind: KindBuffer, buf: d}, func() (Handle, error) { return v.inner.CreateBuffer(d) })
}

func (v *Validator) DestroyBuffer(h Handle) error {
	return v.destroy(h, KindBuffer, v.inner.DestroyBuffer)
}

func (v *Validator) CreateTexture(d TextureDesc) (Handle, error) {
	if err := d.Check(); err != nil {
		return 0, fmt.Errorf("validation: CreateTexture: %w", err)
	}
	return v.create(&vres{kind: KindTexture, tex: d}, func() (Handle, error) { return v.inner.CreateTexture(d) })
}

func (v *Validator) DestroyTexture(h Handle) error {
	return v.destroy(h, KindTexture, v.inner.DestroyTexture)
}

func (v *Validator) CreateBindlessArray(size uint32) (Handle, error) {
	if size == 0 {
		return 0, vinvalid("CreateBindlessArray: size 0")
	}
	return v.create(&vres{kind: KindBindlessArray, slots: size}, func() (Handle, error) { return v.inner.CreateBindlessArray(size) })
}

func (v *Validator) DestroyBindlessArray(h Handle) error {
	return v.destroy(h, KindBindlessArray, v.inner.DestroyBindlessArray)
}

func (v *Validator) CreateStream(kind StreamKind) (Handle, error) {
	if kind != StreamCompute && kind != StreamCopy {
		return 0, vinvalid("CreateStream: kind %v", kind)
	}
	return v.create(&vres{kind: KindStream, stream: kind, vc: clock{}}, func() (Handle, error) { return v.inner.CreateStream(kind) })
}

// DestroyStream destroys the stream; when the host has not waited for all
// its work, an event signalled after that work tells later hazard checks
// when it has finished.
func (v *Validator) DestroyStream(h Handle) error {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return v.errClosed()
	}
	r, err := v.lookup(h, KindStream)
	if err != nil {
		v.mu.Unlock()
		return fmt.Errorf("Destroy: %w", err)
	}
	r.alive = false
	pending := r.tick > v.host[h]
	v.mu.Unlock()
	if pending {
		// No retirement event (the device failing): the stream's work
		// stays unordered, as it may be.
		if ev, err := v.inner.CreateEvent(); err == nil {
			if err := v.inner.SignalEvent(ev, h, 1); err != nil {
				_ = v.inner.DestroyEvent(ev)
			} else {
				v.mu.Lock()
				r.retire = ev
				v.retiring[h] = r
				v.mu.Unlock()
			}
		}
	}
	return v.inner.DestroyStream(h)
}

// settleRetired counts the work of destroyed streams that has finished as
// waited for by the host; v.mu held.
func (v *Validator) settleRetired() {
	for h, r := range v.retiring {
		if done, err := v.inner.EventCompleted(r.retire, 1); err != nil || !done {
			continue
		}
		v.host.join(clock{h: r.tick})
		_ = v.inner.DestroyEvent(r.retire)
		r.retire = 0
		delete(v.retiring, h)
	}
}

func (v *Validator) CreateShader(d ShaderDesc) (Handle, Signature, error) {
	if len(d.SPIRV) == 0 && d.Kernel == nil {
		return 0, Signature{}, vinvalid("CreateShader %q: neither a kernel nor SPIR-V", d.Name)
	}
	if len(d.SPIRV) != 0 && d.Kernel != nil {
		return 0, Signature{}, vinvalid("CreateShader %q: both a kernel and SPIR-V", d.Name)
	}
	if d.Host != nil && d.Kernel == nil {
		return 0, Signature{}, vinvalid("CreateShader %q: a host function without the kernel it implements", d.Name)
	}
	var sig Signature
	r := &vres{kind: KindShader, name: d.Name}
	if d.Kernel != nil {
		r.kernel = d.Kernel.Name
	}
	h, err := v.create(r, func() (Handle, error) {
		h, s, err := v.inner.CreateShader(d)
		sig = s
		return h, err
	})
	if err != nil {
		return h, sig, err
	}
	v.mu.Lock()
	r.sig = sig
	v.mu.Unlock()
	return h, sig, nil
}

func (v *Validator) DestroyShader(h Handle) error {
	return v.destroy(h, KindShader, v.inner.DestroyShader)
}

func (v *Validator) CreateEvent() (Handle, error) {
	return v.create(&vres{kind: KindEvent}, v.inner.CreateEvent)
}

func (v *Validator) DestroyEvent(h Handle) error {
	return v.destroy(h, KindEvent, v.inner.DestroyEvent)
}

// Dispatch checks every command, then the list's hazards against other
// streams, and records its accesses before handing it on.
func (v *Validator) Dispatch(stream Handle, list *CommandList) error {
	if list == nil {
		return vinvalid("Dispatch: nil command list")
	}
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return v.errClosed()
	}
	s, err := v.lookup(stream, KindStream)
	if err != nil {
		v.mu.Unlock()
		return fmt.Errorf("Dispatch: %w", err)
	}
	clear(v.pend)
	for i, c := range list.Commands {
		if err := v.checkCommand(s, stream, c); err != nil {
			v.mu.Unlock()
			return fmt.Errorf("command %d (%s): %w", i, c.CommandName(), err)
		}
	}
	if len(v.retiring) > 0 {
		v.settleRetired()
	}
	vc := maps.Clone(s.vc)
	vc.join(v.host)
	t := s.tick + 1
	for i, c := range list.Commands {
		for _, u := range append(c.Usages(), v.accelUsages(c)...) {
			if err := v.hazard(stream, vc, u); err != nil {
				v.mu.Unlock()
				return fmt.Errorf("command %d (%s): %w", i, c.CommandName(), err)
			}
		}
	}
	s.tick, s.vc = t, vc
	vc[stream] = t
	for _, c := range list.Commands {
		for _, u := range append(c.Usages(), v.accelUsages(c)...) {
			v.record(stream, t, u)
		}
	}
	v.commitAccels(stream, t)
	v.mu.Unlock()
	return v.inner.Dispatch(stream, list)
}

func (v *Validator) hazard(stream Handle, vc clock, u Usage) error {
	a := v.accesses[u.Handle]
	if a == nil {
		return nil
	}
	r := v.res[u.Handle]
	if w := a.write; w.stream != 0 && w.stream != stream && vc[w.stream] < w.t {
		if v.retiring[w.stream] != nil {
			return fmt.Errorf("validation: %w: %s is %s on stream %d but written on stream %d, destroyed before that write finished "+
				"(synchronize stream %d before destroying it, or wait until its work is done)",
				ErrHazard, r.label(u.Handle), accessVerb(u.Access), stream, w.stream, w.stream)
		}
		return fmt.Errorf("validation: %w: %s is %s on stream %d but written on stream %d with no event in between "+
			"(signal an Event on stream %d after the write and Wait on it on stream %d)",
			ErrHazard, r.label(u.Handle), accessVerb(u.Access), stream, w.stream, w.stream, stream)
	}
	if u.Access&Write != 0 {
		for _, rs := range slices.Sorted(maps.Keys(a.reads)) {
			if rs != stream && vc[rs] < a.reads[rs] {
				if v.retiring[rs] != nil {
					return fmt.Errorf("validation: %w: %s is written on stream %d while stream %d, destroyed before its read finished, may still read it",
						ErrHazard, r.label(u.Handle), stream, rs)
				}
				return fmt.Errorf("validation: %w: %s is written on stream %d while stream %d may still read it (no event in between)",
					ErrHazard, r.label(u.Handle), stream, rs)
			}
		}
	}
	return nil
}

func accessVerb(a Access) string {
	switch a {
	case Read:
		return "read"
	case Write:
		return "written"
	}
	return "read and written"
}

func (v *Validator) record(stream Handle, t uint64, u Usage) {
	a := v.accesses[u.Handle]
	if a == nil {
		a = &accesses{reads: map[Handle]uint64{}}
		v.accesses[u.Handle] = a
	}
	if u.Access&Write != 0 {
		a.write = tick{stream, t}
		clear(a.reads)
	}
	if u.Access&Read != 0 {
		a.reads[stream] = t
	}
}

// checkCommand validates one command's handles, kinds and ranges.
func (v *Validator) checkCommand(s *vres, stream Handle, c Command) error {
	if c == nil {
		return vinvalid("nil command")
	}
	if err := CommandError(c); err != nil {
		return err
	}
	if c.Queue() == StreamCompute && s.stream != StreamCompute {
		return vinvalid("%s needs a compute stream, stream %d is a %s stream", c.CommandName(), stream, s.stream)
	}
	if err := c.Check(); err != nil {
		return fmt.Errorf("validation: %w", err)
	}
	if d, ok := c.(*ShaderDispatch); ok {
		// Checked argument by argument, so errors name the argument.
		return v.checkDispatch(d)
	}
	switch c.(type) {
	case *MeshBuild, *ProceduralBuild, *AccelBuild, *AccelCompact:
		return v.checkAccelCommand(c)
	}
	for _, u := range c.Usages() {
		if _, err := v.lookup(u.Handle, u.Kind); err != nil {
			return err
		}
	}
	// What remains needs the resources' descriptions: ranges and levels.
	switch c := c.(type) {
	case *BufferUpload:
		return v.bufRange(c.Buffer, c.Offset, uint64(len(c.Data)))
	case *BufferDownload:
		return v.bufRange(c.Buffer, c.Offset, uint64(len(c.Data)))
	case *BufferFill:
		return v.bufRange(c.Buffer, c.Offset, c.Size)
	case *BufferCopy:
		// A copy of 0 bytes (between empty views) does nothing; its offsets
		// must still lie in the buffers.
		if err := v.bufRange(c.Src, c.SrcOffset, c.Size); err != nil {
			return fmt.Errorf("source: %w", err)
		}
		if err := v.bufRange(c.Dst, c.DstOffset, c.Size); err != nil {
			return fmt.Errorf("destination: %w", err)
		}
	case *BufferToTexture:
		n, err := v.regionBytes(c.Texture, c.Region)
		if err != nil {
			return err
		}
		return v.bufRange(c.Buffer, c.Offset, n)
	case *TextureToBuffer:
		n, err := v.regionBytes(c.Texture, c.Region)
		if err != nil {
			return err
		}
		return v.bufRange(c.Buffer, c.Offset, n)
	case *TextureUpload:
		return v.texData(c.Texture, c.Region, len(c.Data))
	case *TextureDownload:
		return v.texData(c.Texture, c.Region, len(c.Data))
	case *TextureCopy:
		src, dst := v.res[c.Src], v.res[c.Dst]
		if c.SrcLevel >= src.tex.Levels || c.DstLevel >= dst.tex.Levels {
			return vinvalid("level %d of %d-level texture %d to level %d of %d-level texture %d",
				c.SrcLevel, src.tex.Levels, c.Src, c.DstLevel, dst.tex.Levels, c.Dst)
		}
		if src.tex.Format != dst.tex.Format || src.tex.LevelExtent(c.SrcLevel) != dst.tex.LevelExtent(c.DstLevel) {
			return vinvalid("copy between %v %v and %v %v", src.tex.Format, src.tex.LevelExtent(c.SrcLevel),
				dst.tex.Format, dst.tex.LevelExtent(c.DstLevel))
		}
	case *Present:
		if t := v.res[c.Texture]; t.tex.Dim != 2 {
			return vinvalid("%s is %dD (want a 2D image)", t.label(c.Texture), t.tex.Dim)
		}
		if sc := v.res[c.Swapchain]; sc.present != stream {
			return vinvalid("%s presents on stream %d, not on stream %d", sc.label(c.Swapchain), sc.present, stream)
		}
	case *BindlessUpdate:
		arr := v.res[c.Array]
		for _, sl := range c.Slots {
			if sl.Slot >= arr.slots {
				return vinvalid("slot %d of %d-slot bindless array %d", sl.Slot, arr.slots, c.Array)
			}
			if sl.Op == BindlessSetBuffer {
				if err := v.bufRange(sl.Buffer, sl.Offset, sl.Size); err != nil {
					return fmt.Errorf("slot %d: %w", sl.Slot, err)
				}
			}
		}
	}
	return nil
}

// bufRange checks [off, off+size) (WholeSize: to the end) against a buffer.
func (v *Validator) bufRange(h Handle, off, size uint64) error {
	b, err := v.lookup(h, KindBuffer)
	if err != nil {
		return err
	}
	if size == WholeSize && off <= b.buf.Size {
		size = b.buf.Size - off
	}
	if off > b.buf.Size || size > b.buf.Size-off {
		return vinvalid("bytes [%d, %d+%d) out of range of %d-byte %s", off, off, size, b.buf.Size, b.label(h))
	}
	return nil
}

// regionBytes checks a region against the texture and returns its packed size.
func (v *Validator) regionBytes(h Handle, rg Region) (uint64, error) {
	t, err := v.lookup(h, KindTexture)
	if err != nil {
		return 0, err
	}
	if rg.Level >= t.tex.Levels {
		return 0, vinvalid("level %d of %d-level %s", rg.Level, t.tex.Levels, t.label(h))
	}
	ext := t.tex.LevelExtent(rg.Level)
	size := rg.Size
	if size == [3]uint32{} {
		if rg.Origin != [3]uint32{} {
			return 0, vinvalid("whole-level region with origin %v", rg.Origin)
		}
		size = ext
	}
	for i := range 3 {
		if size[i] == 0 || rg.Origin[i] > ext[i] || size[i] > ext[i]-rg.Origin[i] {
			return 0, vinvalid("region at %v of size %v out of range of level %d (%v) of %s", rg.Origin, size, rg.Level, ext, t.label(h))
		}
	}
	return uint64(size[0]) * uint64(size[1]) * uint64(size[2]) * uint64(t.tex.Format.PixelSize()), nil
}

func (v *Validator) texData(h Handle, rg Region, n int) error {
	want, err := v.regionBytes(h, rg)
	if err != nil {
		return err
	}
	if uint64(n) != want {
		return vinvalid("%d bytes of data for a %d-byte region of texture %d", n, want, h)
	}
	return nil
}

func (v *Validator) checkDispatch(c *ShaderDispatch) error {
	sh, err := v.lookup(c.Shader, KindShader)
	if err != nil {
		if r, ok := v.res[c.Shader]; ok && !r.alive && r.kind == KindShader && r.kernel != "" {
			return fmt.Errorf("%s: %w", r.errName(c.Shader), err)
		}
		return err
	}
	sig := sh.sig
	if err := CheckArgCount(sh.errName(c.Shader), &sig, len(c.Args)); err != nil {
		return fmt.Errorf("validation: %w", err)
	}
	if c.Indirect != 0 {
		if err := v.bufRange(c.Indirect, c.IndirectOffset, 12); err != nil {
			return fmt.Errorf("indirect buffer: %w", err)
		}
	}
	for i, a := range c.Args {
		// The handle is looked up as the kind the argument says it is;
		// CheckArg compares that kind with the signature's.
		var r ArgResource
		switch a.Kind {
		case ArgBuffer:
			b, err := v.lookup(a.Handle, KindBuffer)
			if err != nil {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), sig.Args[i].Label(i), err)
			}
			r.Buffer = b.buf
		case ArgTexture, ArgSampledTexture:
			t, err := v.lookup(a.Handle, KindTexture)
			if err != nil {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), sig.Args[i].Label(i), err)
			}
			r.Texture = t.tex
		case ArgBindlessArray:
			if _, err := v.lookup(a.Handle, KindBindlessArray); err != nil {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), sig.Args[i].Label(i), err)
			}
		case ArgAccel:
			r, err := v.lookup(a.Handle, KindAccel)
			if err != nil {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), sig.Args[i].Label(i), err)
			}
			p := v.pend[a.Handle] // as the list's earlier builds leave it
			if p == nil {
				p = r.accel
			}
			if !p.built {
				return fmt.Errorf("%s %s: %w", sh.errName(c.Shader), sig.Args[i].Label(i), vinvalid("%s has not been built: submit its Build before tracing it", r.label(a.Handle)))
			}
		}
		if err := CheckArg(sig.Args[i], a, r); err != nil {
			return fmt.Errorf("%s %s: validation: %w", sh.errName(c.Shader), sig.Args[i].Label(i), err)
		}
	}
	return nil
}

func (v *Validator) SynchronizeStream(ctx context.Context, stream Handle) error {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return v.errClosed()
	}
	s, err := v.lookup(stream, KindStream)
	if err != nil {
		v.mu.Unlock()
		return fmt.Errorf("SynchronizeStream: %w", err)
	}
	t := s.tick
	v.mu.Unlock()
	err = v.inner.SynchronizeStream(ctx, stream)
	if err != nil && !workFinished(err) {
		return err
	}
	v.mu.Lock()
	v.host.join(clock{stream: t})
	v.mu.Unlock()
	return err
}

// workFinished reports whether an error of SynchronizeStream still saw the
// stream's work finish: a callback that panicked (ErrPanicked), a checked
// kernel's *KernelFault (which a backend reports once the work it was
// recorded in has run), or a failure a backend reports with an error whose
// WorkFinished method says so (any fault on the cpu backend). The work is
// then ordered before the host all the same.
func workFinished(err error) bool {
	var f interface{ WorkFinished() bool }
	var kf *KernelFault
	return errors.Is(err, ErrPanicked) || errors.As(err, &kf) || errors.As(err, &f) && f.WorkFinished()
}

func (v *Validator) eventAndStream(op string, event, stream Handle) (*vres, error) {
	if v.closed {
		return nil, v.errClosed()
	}
	if _, err := v.lookup(event, KindEvent); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	s, err := v.lookup(stream, KindStream)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return s, nil
}

func (v *Validator) SignalEvent(event, stream Handle, value uint64) error {
	v.mu.Lock()
	s, err := v.eventAndStream("SignalEvent", event, stream)
	if err != nil {
		v.mu.Unlock()
		return err
	}
	sigs := v.signals[event]
	if n := len(sigs); n > 0 && value <= sigs[n-1].value {
		v.mu.Unlock()
		return vinvalid("SignalEvent: value %d of event %d is not above %d, signalled before (timeline values must increase)",
			value, event, sigs[n-1].value)
	}
	if value == 0 {
		v.mu.Unlock()
		return vinvalid("SignalEvent: value 0 (events start at 0)")
	}
	at := maps.Clone(s.vc)
	at.join(v.host)
	at[stream] = s.tick
	v.signals[event] = append(sigs, signal{value: value, at: at})
	v.mu.Unlock()
	return v.inner.SignalEvent(event, stream, value)
}

// reached returns the clock of everything ordered before the event reaching
// value: the signals up to the first one at or above value.
func (v *Validator) reached(event Handle, value uint64) clock {
	c := clock{}
	for _, s := range v.signals[event] {
		c.join(s.at)
		if s.value >= value {
			break
		}
	}
	return c
}

func (v *Validator) WaitEvent(event, stream Handle, value uint64) error {
	v.mu.Lock()
	s, err := v.eventAndStream("WaitEvent", event, stream)
	if err != nil {
		v.mu.Unlock()
		return err
	}
	s.vc.join(v.reached(event, value))
	v.mu.Unlock()
	return v.inner.WaitEvent(event, stream, value)
}

func (v *Validator) EventCompleted(event Handle, value uint64) (bool, error) {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return false, v.errClosed()
	}
	if _, err := v.lookup(event, KindEvent); err != nil {
		v.mu.Unlock()
		return false, fmt.Errorf("EventCompleted: %w", err)
	}
	v.mu.Unlock()
	done, err := v.inner.EventCompleted(event, value)
	if err == nil && done {
		v.mu.Lock()
		v.host.join(v.reached(event, value))
		v.mu.Unlock()
	}
	return done, err
}

func (v *Validator) SynchronizeEvent(ctx context.Context, event Handle, value uint64) error {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return v.errClosed()
	}
	if _, err := v.lookup(event, KindEvent); err != nil {
		v.mu.Unlock()
		return fmt.Errorf("SynchronizeEvent: %w", err)
	}
	v.mu.Unlock()
	if err := v.inner.SynchronizeEvent(ctx, event, value); err != nil {
		return err
	}
	v.mu.Lock()
	v.host.join(v.reached(event, value))
	v.mu.Unlock()
	return nil
}
