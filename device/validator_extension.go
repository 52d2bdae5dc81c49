package device

import (
	"fmt"
	"reflect"
)

// Extension hands out the wrapped Interface's extension t with the
// validator's checks around it where it has some (Presenter: surfaces and
// swapchains are tracked like every other handle, so use after Destroy,
// wrong kinds, wrong streams and leaks are caught; NativeHandles: handles
// must be alive; RayTracing: validator_accel.go). Extensions it has no
// checks for (PipelineCacheReporter) are handed out as they are.
func (v *Validator) Extension(t reflect.Type) any {
	x := extensionOf(v.inner, t)
	if x == nil {
		return nil
	}
	switch t {
	case reflect.TypeFor[Presenter]():
		return &validPresenter{v: v, inner: x.(Presenter)}
	case reflect.TypeFor[NativeHandles]():
		return &validNative{v: v, inner: x.(NativeHandles)}
	case reflect.TypeFor[RayTracing]():
		return &validRayTracing{v: v, inner: x.(RayTracing)}
	}
	return x
}

// validNative is the validator's NativeHandles: handles must be alive.
type validNative struct {
	v     *Validator
	inner NativeHandles
}

func (n *validNative) NativeDevice() uintptr { return n.inner.NativeDevice() }

func (n *validNative) NativeObject(h Handle) (uintptr, error) {
	v := n.v
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return 0, v.errClosed()
	}
	_, err := v.lookup(h, KindInvalid)
	v.mu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("NativeObject: %w", err)
	}
	return n.inner.NativeObject(h)
}

// validPresenter is the validator's Presenter.
type validPresenter struct {
	v     *Validator
	inner Presenter
}

func (p *validPresenter) CreateSurface(kind string, display, window uintptr) (Handle, error) {
	if window == 0 {
		return 0, vinvalid("CreateSurface: %s surface: the window handle is 0", kind)
	}
	return p.v.create(&vres{kind: KindSurface}, func() (Handle, error) { return p.inner.CreateSurface(kind, display, window) })
}

func (p *validPresenter) DestroySurface(h Handle) error {
	v := p.v
	v.mu.Lock()
	for sh, r := range v.res {
		if r.alive && r.kind == KindSwapchain && r.surface == h {
			v.mu.Unlock()
			return vinvalid("DestroySurface: surface %d still has swapchain %d", h, sh)
		}
	}
	v.mu.Unlock()
	return v.destroy(h, KindSurface, p.inner.DestroySurface)
}

func (p *validPresenter) CreateSwapchain(d SwapchainDesc) (Handle, error) {
	v := p.v
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return 0, v.errClosed()
	}
	if _, err := v.lookup(d.Surface, KindSurface); err != nil {
		v.mu.Unlock()
		return 0, fmt.Errorf("CreateSwapchain: %w", err)
	}
	s, err := v.lookup(d.Stream, KindStream)
	if err != nil {
		v.mu.Unlock()
		return 0, fmt.Errorf("CreateSwapchain: %w", err)
	}
	if s.stream != StreamCompute {
		v.mu.Unlock()
		return 0, vinvalid("CreateSwapchain: stream %d is a %s stream (presents run on a compute stream)", d.Stream, s.stream)
	}
	v.mu.Unlock()
	if d.Width > 1<<16 || d.Height > 1<<16 || d.Images > 16 {
		return 0, vinvalid("CreateSwapchain: %dx%d with %d images", d.Width, d.Height, d.Images)
	}
	return v.create(&vres{kind: KindSwapchain, surface: d.Surface, present: d.Stream}, func() (Handle, error) { return p.inner.CreateSwapchain(d) })
}

func (p *validPresenter) DestroySwapchain(h Handle) error {
	return p.v.destroy(h, KindSwapchain, p.inner.DestroySwapchain)
}

func (p *validPresenter) swapchain(op string, h Handle) (*vres, error) {
	v := p.v
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return nil, v.errClosed()
	}
	r, err := v.lookup(h, KindSwapchain)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return r, nil
}

func (p *validPresenter) ResizeSwapchain(h Handle, width, height uint32) error {
	if _, err := p.swapchain("ResizeSwapchain", h); err != nil {
		return err
	}
	if width > 1<<16 || height > 1<<16 {
		return vinvalid("ResizeSwapchain: %dx%d", width, height)
	}
	return p.inner.ResizeSwapchain(h, width, height)
}

func (p *validPresenter) SwapchainState(h Handle) (SwapchainState, error) {
	if _, err := p.swapchain("SwapchainState", h); err != nil {
		return SwapchainState{}, err
	}
	return p.inner.SwapchainState(h)
}
