package device

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// presentingRecorder is the recorder with the presentation extension: it
// hands out surface and swapchain handles, to test the validator's checks.
type presentingRecorder struct{ *recorder }

func (r *presentingRecorder) Extension(t reflect.Type) any {
	if t == reflect.TypeFor[Presenter]() {
		return r
	}
	return nil
}

func (r *presentingRecorder) CreateSurface(string, uintptr, uintptr) (Handle, error) {
	return r.create(KindSurface)
}
func (r *presentingRecorder) DestroySurface(h Handle) error { return r.destroy(h) }
func (r *presentingRecorder) CreateSwapchain(SwapchainDesc) (Handle, error) {
	return r.create(KindSwapchain)
}
func (r *presentingRecorder) DestroySwapchain(h Handle) error              { return r.destroy(h) }
func (r *presentingRecorder) ResizeSwapchain(Handle, uint32, uint32) error { return nil }
func (r *presentingRecorder) SwapchainState(Handle) (SwapchainState, error) {
	return SwapchainState{}, nil
}

func TestExtensionLookup(t *testing.T) {
	plain := NewDevice("recorder", newRecorder())
	_, err := Extension[Presenter](plain)
	require.ErrorIs(t, err, ErrUnsupported)
	require.Contains(t, err.Error(), `"recorder" backend does not offer device.Presenter`)
	_, err = Extension[Presenter](NewDevice("recorder", newRecorder(), WithValidation()))
	require.ErrorIs(t, err, ErrUnsupported, "the validator offers only what the backend has")
	_, err = Extension[int](plain)
	require.ErrorIs(t, err, ErrInvalidArgument)
	_, err = Extension[Presenter](nil)
	require.ErrorIs(t, err, ErrInvalidArgument)

	rec := &presentingRecorder{recorder: newRecorder()}
	p, err := Extension[Presenter](NewDevice("recorder", rec))
	require.NoError(t, err)
	require.Same(t, rec, p, "without validation the backend's own")
	p, err = Extension[Presenter](NewDevice("recorder", rec, WithValidation()))
	require.NoError(t, err)
	require.IsType(t, &validPresenter{}, p, "with validation, wrapped in its checks")
}

// The validator's checks hold for presentation: surfaces and swapchains
// are handles it tracks, and it checks their kinds, streams and textures.
func TestValidatorPresenter(t *testing.T) {
	rec := &presentingRecorder{recorder: newRecorder()}
	v := NewValidator(rec, nil)
	p := v.Extension(reflect.TypeFor[Presenter]()).(Presenter)
	compute, err := v.CreateStream(StreamCompute)
	require.NoError(t, err)
	cp, err := v.CreateStream(StreamCopy)
	require.NoError(t, err)
	tex3, err := v.CreateTexture(TextureDesc{Dim: 3, Format: RGBA8Unorm, Width: 4, Height: 4, Depth: 4, Levels: 1})
	require.NoError(t, err)
	tex2, err := v.CreateTexture(TextureDesc{Dim: 2, Format: RGBA8Unorm, Width: 4, Height: 4, Depth: 1, Levels: 1})
	require.NoError(t, err)

	_, err = p.CreateSurface("xlib", 1, 0)
	require.ErrorIs(t, err, ErrInvalidArgument)
	surf, err := p.CreateSurface("xlib", 1, 2)
	require.NoError(t, err)
	_, err = p.CreateSwapchain(SwapchainDesc{Surface: tex2, Stream: compute})
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "is a texture, not a surface")
	_, err = p.CreateSwapchain(SwapchainDesc{Surface: surf, Stream: cp})
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "copy stream")
	sc, err := p.CreateSwapchain(SwapchainDesc{Surface: surf, Stream: compute, Width: 8, Height: 8})
	require.NoError(t, err)

	err = p.DestroySurface(surf)
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "still has swapchain")

	// Present is a command: checked, and hazard-tracked, like the others.
	present := func(stream, sc, tex Handle) error {
		return v.Dispatch(stream, (&CommandList{}).Add(&Present{Swapchain: sc, Texture: tex}))
	}
	err = present(compute, sc, tex3)
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "command 0 (present)")
	require.Contains(t, err.Error(), "3D")
	err = present(compute, surf, tex2)
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "is a surface, not a swapchain")
	other, err := v.CreateStream(StreamCompute)
	require.NoError(t, err)
	err = present(other, sc, tex2)
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "presents on stream")
	err = present(cp, sc, tex2)
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "needs a compute stream")
	// Written on another stream with no event in between: a hazard.
	require.NoError(t, v.Dispatch(other, (&CommandList{}).Add(&TextureUpload{Texture: tex2, Data: make([]byte, 64)})))
	require.ErrorIs(t, present(compute, sc, tex2), ErrHazard)
	require.NoError(t, v.SynchronizeStream(t.Context(), other))
	n := len(rec.calls)
	require.NoError(t, present(compute, sc, tex2))
	require.Len(t, rec.calls, n+1, "the valid present reached the backend")
	require.NoError(t, v.DestroyStream(other))

	require.NoError(t, p.DestroySwapchain(sc))
	_, err = p.SwapchainState(sc)
	require.ErrorIs(t, err, ErrClosed)
	// A surface left alive is a leak like any other resource.
	require.NoError(t, v.DestroyTexture(tex2))
	require.NoError(t, v.DestroyTexture(tex3))
	require.NoError(t, v.DestroyStream(compute))
	require.NoError(t, v.DestroyStream(cp))
	err = v.Close()
	require.ErrorIs(t, err, ErrLeaked)
	require.Contains(t, err.Error(), "surface")
}

// nativeRecorder is the recorder with the native-handles extension.
type nativeRecorder struct{ *recorder }

func (r *nativeRecorder) Extension(t reflect.Type) any {
	if t == reflect.TypeFor[NativeHandles]() {
		return r
	}
	return nil
}
func (r *nativeRecorder) NativeDevice() uintptr                  { return 7 }
func (r *nativeRecorder) NativeObject(h Handle) (uintptr, error) { return uintptr(h) + 100, nil }

func TestValidatorNativeHandles(t *testing.T) {
	dev := NewDevice("recorder", &nativeRecorder{newRecorder()}, WithValidation())
	n, err := Extension[NativeHandles](dev)
	require.NoError(t, err)
	require.Equal(t, uintptr(7), n.NativeDevice())
	b, err := NewBuffer[float32](dev, 4)
	require.NoError(t, err)
	obj, err := n.NativeObject(b.Handle())
	require.NoError(t, err)
	require.Equal(t, uintptr(b.Handle())+100, obj)
	require.NoError(t, b.Close())
	_, err = n.NativeObject(b.Handle())
	require.ErrorIs(t, err, ErrClosed, "a destroyed handle has no native object")
	_, err = n.NativeObject(12345)
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.NoError(t, dev.Close())
}
