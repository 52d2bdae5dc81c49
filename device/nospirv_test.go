package device_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/frontend/programs"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/shadercache"
)

// noSPIRV is a backend that takes kernels only, as one that compiles the IR
// to another target would: the Vulkan backend with CreateShader refusing
// SPIR-V.
type noSPIRV struct{ device.Interface }

func (b noSPIRV) CreateShader(desc device.ShaderDesc) (device.Handle, device.Signature, error) {
	if desc.Kernel == nil {
		return 0, device.Signature{}, fmt.Errorf("%w: this backend takes no SPIR-V", device.ErrUnsupported)
	}
	return b.Interface.CreateShader(desc)
}

type noSPIRVFactory struct{}

func (noSPIRVFactory) Enumerate(ctx context.Context, _ device.Options) ([]device.Adapter, error) {
	return device.Enumerate(ctx, "vulkan")
}

func (noSPIRVFactory) Open(_ context.Context, opts device.Options) (device.Interface, error) {
	d, err := vulkan.Open(opts)
	if err != nil {
		return nil, err
	}
	return noSPIRV{d}, nil
}

func init() { device.Register("test-no-spirv", noSPIRVFactory{}) }

// TestLoadKernelFromIR: on a backend that takes no SPIR-V, an ahead-of-time
// kernel is compiled from the IR its record carries, and runs.
func TestLoadKernelFromIR(t *testing.T) {
	store := shadercache.NewMemory()
	f, err := programs.Saxpy()
	require.NoError(t, err)
	text, err := device.SaveKernel(store, "saxpy", f)
	require.NoError(t, err)

	d, err := device.Open(context.Background(), "test-no-spirv", device.WithValidation())
	testenv.Need(t, "a Vulkan device", err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	// The backend refuses the module itself...
	_, err = d.NewShader(device.ShaderDesc{SPIRV: []uint32{0x07230203, 0x00010000, 0, 1, 0}})
	require.ErrorIs(t, err, device.ErrUnsupported)
	// ...so LoadKernel compiles the stored IR.
	k, err := device.LoadKernel(d, store, "saxpy", text)
	require.NoError(t, err)
	defer func() { require.NoError(t, k.Close()) }()
	require.NotNil(t, k.Function(), "compiled from the IR")
	require.Equal(t, text, device.SignatureText(k.Signature()))

	const n = 300
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i), 1
	}
	x, y := upload(t, d, xs), upload(t, d, ys)
	run(t, d, k.Dispatch([3]uint32{n}, float32(3), x, y))
	got := download(t, d, y)
	for i := range got {
		require.InDelta(t, 3*xs[i]+1, got[i], 1e-5, "element %d", i)
	}
}
