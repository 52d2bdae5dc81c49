package device

import (
	"context"
	"fmt"
	"sync"
)

// recorder is an Interface that does nothing but hand out handles and record
// calls. It exists ONLY to test the validation wrapper's bookkeeping (what it
// forwards, what it rejects); it runs nothing and is never a stand-in for a
// real backend in tests of behaviour.
type recorder struct {
	mu         sync.Mutex
	next       Handle
	live       map[Handle]ResourceKind
	calls      []string
	closed     bool
	shaderSig  Signature
	lastShader ShaderDesc // the last CreateShader's descriptor
}

func newRecorder() *recorder { return &recorder{live: map[Handle]ResourceKind{}} }

func (r *recorder) log(format string, args ...any) {
	r.calls = append(r.calls, fmt.Sprintf(format, args...))
}

func (r *recorder) create(k ResourceKind) (Handle, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	r.live[r.next] = k
	r.log("create %s %d", k, r.next)
	return r.next, nil
}

func (r *recorder) destroy(h Handle) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.live[h]; !ok {
		return fmt.Errorf("recorder: %w: %d", ErrClosed, h)
	}
	delete(r.live, h)
	r.log("destroy %d", h)
	return nil
}

func (r *recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	r.log("close")
	return nil
}

func (r *recorder) Capabilities() Capabilities { return Capabilities{Backend: "recorder"} }
func (r *recorder) WarpSize() uint32           { return 1 }
func (r *recorder) MemoryGranularity() uint64  { return 4 }
func (r *recorder) SetName(h Handle, n string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log("name %d %s", h, n)
	return nil
}

func (r *recorder) CreateBuffer(BufferDesc) (Handle, error)         { return r.create(KindBuffer) }
func (r *recorder) DestroyBuffer(h Handle) error                    { return r.destroy(h) }
func (r *recorder) CreateTexture(TextureDesc) (Handle, error)       { return r.create(KindTexture) }
func (r *recorder) DestroyTexture(h Handle) error                   { return r.destroy(h) }
func (r *recorder) CreateBindlessArray(uint32) (Handle, error)      { return r.create(KindBindlessArray) }
func (r *recorder) DestroyBindlessArray(h Handle) error             { return r.destroy(h) }
func (r *recorder) CreateStream(StreamKind) (Handle, error)         { return r.create(KindStream) }
func (r *recorder) DestroyStream(h Handle) error                    { return r.destroy(h) }
func (r *recorder) CreateEvent() (Handle, error)                    { return r.create(KindEvent) }
func (r *recorder) DestroyEvent(h Handle) error                     { return r.destroy(h) }
func (r *recorder) DestroyShader(h Handle) error                    { return r.destroy(h) }
func (r *recorder) EventCompleted(Handle, uint64) (bool, error)     { return true, nil }
func (r *recorder) SynchronizeStream(context.Context, Handle) error { return nil }

func (r *recorder) CreateShader(d ShaderDesc) (Handle, Signature, error) {
	r.mu.Lock()
	r.lastShader = d
	r.mu.Unlock()
	h, err := r.create(KindShader)
	return h, r.shaderSig, err
}

func (r *recorder) Dispatch(stream Handle, l *CommandList) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log("dispatch %d: %d commands", stream, len(l.Commands))
	return nil
}

func (r *recorder) SignalEvent(e, s Handle, v uint64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log("signal %d on %d at %d", e, s, v)
	return nil
}

func (r *recorder) WaitEvent(e, s Handle, v uint64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log("wait %d on %d at %d", e, s, v)
	return nil
}

func (r *recorder) SynchronizeEvent(context.Context, Handle, uint64) error { return nil }
