package accel_test

import (
	"context"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/accel"
	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

func init() {
	// Synchronization validation reports missing barriers as errors.
	if os.Getenv("VK_LAYER_ENABLES") == "" {
		os.Setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT")
	}
}

// openVulkan opens the default Vulkan device with the Khronos validation
// layer and lucent's validation wrapper; a layer error or a leak fails the
// test.
func openVulkan(t *testing.T, opts ...device.Option) *device.Device {
	t.Helper()
	var mu sync.Mutex
	var layerErrors []string
	d, err := device.Open(context.Background(), "vulkan", append([]device.Option{device.WithValidation(), device.WithValidationLayer(true),
		device.WithDebug(func(m device.DebugMessage) {
			if m.Severity == device.SeverityError {
				mu.Lock()
				layerErrors = append(layerErrors, m.ID+": "+m.Text)
				mu.Unlock()
			}
		})}, opts...)...)
	testenv.Need(t, "a Vulkan device", err)
	t.Cleanup(func() {
		require.NoError(t, d.Close(), "Close (a leak fails the test)")
		mu.Lock()
		defer mu.Unlock()
		require.Empty(t, layerErrors, "validation layer errors")
	})
	return d
}

// nativeDevice opens a Vulkan device through the validation wrapper and
// layer. It builds structures natively where the device can (Mesa 25's
// lavapipe, LUCENT_EXPECT_SAMPLING=native, must) unless LUCENT_ACCEL=software
// asks for the software path, which every other device takes.
func nativeDevice(t *testing.T, opts ...device.Option) *device.Device {
	d := openVulkan(t, opts...)
	want := device.PathEmulated
	if os.Getenv("LUCENT_EXPECT_SAMPLING") == "native" && os.Getenv("LUCENT_ACCEL") != "software" {
		want = device.PathNative
	}
	if got := d.Capabilities().RayTracing; got != device.PathNative || want == device.PathNative {
		require.Equal(t, want, got, "the ray-tracing path")
	}
	return d
}

func native(d *device.Device) bool { return d.Capabilities().RayTracing == device.PathNative }

func closeAll(t *testing.T, cs ...interface{ Close() error }) {
	t.Cleanup(func() {
		for _, c := range cs {
			require.NoError(t, c.Close())
		}
	})
}

// randomMesh uploads n random triangles over 3n vertices.
func randomMesh(t *testing.T, d *device.Device, rng *rand.Rand, n int) (*device.Buffer[[3]float32], *device.Buffer[[3]uint32], []([3]float32)) {
	verts := make([][3]float32, 3*n)
	for i := range verts {
		verts[i] = [3]float32{rng.Float32()*10 - 5, rng.Float32()*10 - 5, rng.Float32()*10 - 5}
	}
	idx := make([][3]uint32, n)
	for i := range idx {
		idx[i] = [3]uint32{uint32(3 * i), uint32(3*i + 1), uint32(3*i + 2)}
	}
	vb, err := device.NewBufferFrom(d, verts)
	require.NoError(t, err)
	ib, err := device.NewBufferFrom(d, idx)
	require.NoError(t, err)
	closeAll(t, vb, ib)
	return vb, ib, verts
}

func TestVulkanBuildUpdateCompact(t *testing.T) {
	d := nativeDevice(t)
	rng := rand.New(rand.NewPCG(1, 2))
	vb, ib, verts := randomMesh(t, d, rng, 500)
	mesh, err := accel.NewMesh(d, vb.All(), ib.All(), accel.Options{AllowUpdate: true, AllowCompaction: true})
	require.NoError(t, err)
	boxes, err := device.NewBufferFrom(d, []accel.AABB{{Min: [3]float32{0, 0, 0}, Max: [3]float32{1, 1, 1}}, {Min: [3]float32{2, 2, 2}, Max: [3]float32{3, 4, 5}}})
	require.NoError(t, err)
	proc, err := accel.NewProcedural(d, boxes.All(), accel.Options{Hint: accel.FastBuild})
	require.NoError(t, err)
	scene, err := accel.NewAccel(d, accel.Options{AllowUpdate: true, AllowCompaction: true})
	require.NoError(t, err)
	closeAll(t, scene, proc, mesh, boxes)
	for i := range 3 {
		_, err := scene.Add(accel.Instance{Primitive: mesh, Transform: [12]float32{1, 0, 0, float32(10 * i), 0, 1, 0, 0, 0, 0, 1, 0}, Mask: 0xff, ID: uint32(i)})
		require.NoError(t, err)
	}
	_, err = scene.Add(accel.Instance{Primitive: proc, Mask: 1, Opaque: true, ID: 7})
	require.NoError(t, err)

	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	// One list: the mesh and the primitive, then the accel over them.
	require.NoError(t, s.Submit(mesh.Build(), proc.Build(), scene.Build()))
	require.NoError(t, s.Synchronize(ctx))
	ms, err := mesh.Size()
	require.NoError(t, err)
	require.NotZero(t, ms.Bytes)
	require.NotZero(t, ms.Compacted, "the compacted size is known once the build has finished")
	require.LessOrEqual(t, ms.Compacted, ms.Bytes)
	ps, err := proc.Size()
	require.NoError(t, err)
	require.NotZero(t, ps.Bytes)
	require.Zero(t, ps.Compacted, "no AllowCompaction")

	// Refit: the vertices move, one instance moves; only it is sent.
	for i := range verts {
		verts[i][1] += 0.5
	}
	require.NoError(t, scene.SetTransform(1, [12]float32{1, 0, 0, 3, 0, 1, 0, 2, 0, 0, 1, 1}))
	up := scene.Update()
	require.Len(t, up.(*device.AccelBuild).Updates, 1)
	require.NoError(t, s.Submit(vb.Upload(verts), mesh.Update(), up))
	require.NoError(t, s.Synchronize(ctx))

	// Compaction, then the accel again over the compacted mesh.
	require.NoError(t, s.Submit(mesh.Compact()))
	require.NoError(t, s.Submit(scene.Build()))
	require.NoError(t, s.Synchronize(ctx))
	after, err := mesh.Size()
	require.NoError(t, err)
	require.Equal(t, ms.Compacted, after.Bytes, "the mesh takes its compacted size")
	require.Equal(t, after.Bytes, after.Compacted, "a compacted mesh's compacted size is its size")
	require.NoError(t, s.Submit(scene.Compact()))
	require.NoError(t, s.Synchronize(ctx))
	as, err := scene.Size()
	require.NoError(t, err)
	require.NotZero(t, as.Bytes)
	require.Equal(t, as.Bytes, as.Compacted, "a compacted accel's compacted size is its size")
	// A full build starts afresh: the build's own compacted size again.
	require.NoError(t, s.Submit(mesh.Build()))
	require.NoError(t, s.Synchronize(ctx))
	rebuilt, err := mesh.Size()
	require.NoError(t, err)
	require.NotZero(t, rebuilt.Compacted)
	require.LessOrEqual(t, rebuilt.Compacted, rebuilt.Bytes)
}
