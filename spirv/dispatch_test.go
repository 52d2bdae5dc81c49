package spirv_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
	"github.com/lucent-gpu/lucent/vk"
)

// This file runs builder-made modules on the Vulkan device (lavapipe in CI)
// with the validation layer on, and checks every element of the results
// against a CPU reference. The harness is deliberately small: one queue, host-
// visible storage buffers bound to set 0 in order, push constants, one dispatch.

type vkMessages struct {
	mu   sync.Mutex
	list []string
}

func (m *vkMessages) add(sev vk.DebugUtilsMessageSeverityFlagsEXT, _ vk.DebugUtilsMessageTypeFlagsEXT, msg string) {
	m.mu.Lock()
	m.list = append(m.list, sev.String()+": "+msg)
	m.mu.Unlock()
}

func (m *vkMessages) all() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.list...)
}

type vkDevice struct {
	it     *vk.InstanceFuncs
	dt     *vk.DeviceFuncs
	phys   vk.PhysicalDevice
	dev    vk.Device
	family uint32
	queue  vk.Queue
}

const validationLayer = "VK_LAYER_KHRONOS_validation"

func hasValidationLayer() error {
	var n uint32
	if err := vk.EnumerateInstanceLayerProperties(&n, nil).Err(); err != nil {
		return err
	}
	props := make([]vk.LayerProperties, n)
	if n > 0 {
		if err := vk.EnumerateInstanceLayerProperties(&n, &props[0]).Err(); err != nil {
			return err
		}
	}
	for _, p := range props[:n] {
		if vk.ByteString(p.LayerName[:]) == validationLayer {
			return nil
		}
	}
	return fmt.Errorf("layer %s not installed", validationLayer)
}

// newVkDevice opens a Vulkan 1.3 device with the validation layer, scalar
// block layout and float32 atomic add on buffers enabled.
func newVkDevice(t *testing.T) *vkDevice {
	t.Helper()
	testenv.Need(t, "the Vulkan loader", vk.Available())
	testenv.Need(t, "the Khronos validation layer", hasValidationLayer())
	msgs := &vkMessages{}
	sev := vk.DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | vk.DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT
	types := vk.DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | vk.DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT
	dbg, release := vk.DebugMessengerCreateInfo(sev, types, msgs.add)
	t.Cleanup(release)
	var inst vk.Instance
	r := vk.CreateInstance(&vk.InstanceCreateInfo{
		SType: vk.STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		PNext: unsafe.Pointer(dbg),
		PApplicationInfo: &vk.ApplicationInfo{
			SType:            vk.STRUCTURE_TYPE_APPLICATION_INFO,
			PApplicationName: vk.CString("lucent spirv test"),
			ApiVersion:       vk.API_VERSION_1_3,
		},
		EnabledLayerCount:       1,
		PpEnabledLayerNames:     vk.CStrings([]string{validationLayer}),
		EnabledExtensionCount:   1,
		PpEnabledExtensionNames: vk.CStrings([]string{vk.EXT_DEBUG_UTILS_EXTENSION_NAME}),
	}, nil, &inst)
	if errors.Is(r, vk.ERROR_INCOMPATIBLE_DRIVER) || errors.Is(r, vk.ERROR_INITIALIZATION_FAILED) {
		testenv.Need(t, "a Vulkan driver", r)
	}
	require.NoError(t, r.Err(), "vkCreateInstance")
	it, err := vk.LoadInstance(inst)
	require.NoError(t, err)
	messenger, err := vk.NewDebugMessenger(it, inst, sev, types, msgs.add)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, messenger.Close())
		require.NoError(t, it.DestroyInstance(inst, nil))
		require.Empty(t, msgs.all(), "validation messages:\n%s", strings.Join(msgs.all(), "\n"))
	})

	d := &vkDevice{it: it}
	var n uint32
	require.NoError(t, it.EnumeratePhysicalDevices(inst, &n, nil).Err())
	if n == 0 {
		testenv.Need(t, "a Vulkan physical device", errors.New("none enumerated"))
	}
	phys := make([]vk.PhysicalDevice, n)
	require.NoError(t, it.EnumeratePhysicalDevices(inst, &n, &phys[0]).Err())
	found := false
	for _, p := range phys[:n] {
		var props vk.PhysicalDeviceProperties
		require.NoError(t, it.GetPhysicalDeviceProperties(p, &props))
		if props.ApiVersion < vk.API_VERSION_1_3 {
			continue
		}
		var qn uint32
		require.NoError(t, it.GetPhysicalDeviceQueueFamilyProperties(p, &qn, nil))
		qs := make([]vk.QueueFamilyProperties, qn)
		require.NoError(t, it.GetPhysicalDeviceQueueFamilyProperties(p, &qn, &qs[0]))
		for i, q := range qs[:qn] {
			if q.QueueFlags&vk.QUEUE_COMPUTE_BIT != 0 {
				d.phys, d.family, found = p, uint32(i), true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		testenv.Need(t, "a Vulkan 1.3 device with a compute queue", errors.New("none found"))
	}
	atomicFloat := vk.PhysicalDeviceShaderAtomicFloatFeaturesEXT{
		SType:                        vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT,
		ShaderBufferFloat32AtomicAdd: vk.TRUE,
	}
	v12 := vk.PhysicalDeviceVulkan12Features{
		SType:               vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
		PNext:               unsafe.Pointer(&atomicFloat),
		ScalarBlockLayout:   vk.TRUE,
		BufferDeviceAddress: vk.TRUE,
	}
	prio := float32(1)
	require.NoError(t, it.CreateDevice(d.phys, &vk.DeviceCreateInfo{
		SType:                vk.STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		PNext:                unsafe.Pointer(&v12),
		QueueCreateInfoCount: 1,
		PQueueCreateInfos: &vk.DeviceQueueCreateInfo{
			SType:            vk.STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
			QueueFamilyIndex: d.family,
			QueueCount:       1,
			PQueuePriorities: &prio,
		},
		EnabledExtensionCount:   1,
		PpEnabledExtensionNames: vk.CStrings([]string{"VK_EXT_shader_atomic_float"}),
	}, nil, &d.dev).Err(), "vkCreateDevice")
	d.dt, err = vk.LoadDevice(it, d.dev)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.dt.DestroyDevice(d.dev, nil)) })
	require.NoError(t, d.dt.GetDeviceQueue(d.dev, d.family, 0, &d.queue))
	return d
}

func (d *vkDevice) memoryType(t *testing.T, bits uint32, want vk.MemoryPropertyFlags) uint32 {
	var mp vk.PhysicalDeviceMemoryProperties
	require.NoError(t, d.it.GetPhysicalDeviceMemoryProperties(d.phys, &mp))
	for i := uint32(0); i < mp.MemoryTypeCount; i++ {
		if bits&(1<<i) != 0 && mp.MemoryTypes[i].PropertyFlags&want == want {
			return i
		}
	}
	t.Fatalf("no memory type with %v in %#x", want, bits)
	return 0
}

// run dispatches groups workgroups of the module with buffers bound at set 0,
// bindings 0…, and the push constants pushFn makes from the buffers' device
// addresses (nil for none), then copies the buffers' contents back.
func (d *vkDevice) run(t *testing.T, code []uint32, buffers [][]byte, pushFn func(addrs []uint64) []byte, groups uint32) {
	dt, dev := d.dt, d.dev
	var push []byte
	if pushFn != nil {
		push = pushFn(make([]uint64, len(buffers))) // sized now, filled once the buffers exist
	}
	bindings := make([]vk.DescriptorSetLayoutBinding, len(buffers))
	for i := range bindings {
		bindings[i] = vk.DescriptorSetLayoutBinding{Binding: uint32(i), DescriptorType: vk.DESCRIPTOR_TYPE_STORAGE_BUFFER,
			DescriptorCount: 1, StageFlags: vk.SHADER_STAGE_COMPUTE_BIT}
	}
	var setLayout vk.DescriptorSetLayout
	require.NoError(t, dt.CreateDescriptorSetLayout(dev, &vk.DescriptorSetLayoutCreateInfo{
		SType: vk.STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, BindingCount: uint32(len(bindings)), PBindings: &bindings[0],
	}, nil, &setLayout).Err())
	defer func() { require.NoError(t, dt.DestroyDescriptorSetLayout(dev, setLayout, nil)) }()
	plci := &vk.PipelineLayoutCreateInfo{SType: vk.STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, SetLayoutCount: 1, PSetLayouts: &setLayout}
	if len(push) > 0 {
		plci.PushConstantRangeCount = 1
		plci.PPushConstantRanges = &vk.PushConstantRange{StageFlags: vk.SHADER_STAGE_COMPUTE_BIT, Size: uint32(len(push))}
	}
	var layout vk.PipelineLayout
	require.NoError(t, dt.CreatePipelineLayout(dev, plci, nil, &layout).Err())
	defer func() { require.NoError(t, dt.DestroyPipelineLayout(dev, layout, nil)) }()
	var module vk.ShaderModule
	require.NoError(t, dt.CreateShaderModule(dev, &vk.ShaderModuleCreateInfo{
		SType: vk.STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, CodeSize: uintptr(4 * len(code)), PCode: &code[0],
	}, nil, &module).Err())
	pci := vk.ComputePipelineCreateInfo{
		SType: vk.STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		Stage: vk.PipelineShaderStageCreateInfo{SType: vk.STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			Stage: vk.SHADER_STAGE_COMPUTE_BIT, Module: module, PName: vk.CString("main")},
		Layout: layout,
	}
	var pipeline vk.Pipeline
	require.NoError(t, dt.CreateComputePipelines(dev, 0, 1, &pci, nil, &pipeline).Err())
	require.NoError(t, dt.DestroyShaderModule(dev, module, nil))
	defer func() { require.NoError(t, dt.DestroyPipeline(dev, pipeline, nil)) }()

	bufs := make([]vk.Buffer, len(buffers))
	mems := make([]vk.DeviceMemory, len(buffers))
	mapped := make([][]byte, len(buffers))
	infos := make([]vk.DescriptorBufferInfo, len(buffers))
	for i, data := range buffers {
		require.NoError(t, dt.CreateBuffer(dev, &vk.BufferCreateInfo{SType: vk.STRUCTURE_TYPE_BUFFER_CREATE_INFO,
			Size: vk.DeviceSize(len(data)), Usage: vk.BUFFER_USAGE_STORAGE_BUFFER_BIT | vk.BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, SharingMode: vk.SHARING_MODE_EXCLUSIVE}, nil, &bufs[i]).Err())
		var req vk.MemoryRequirements
		require.NoError(t, dt.GetBufferMemoryRequirements(dev, bufs[i], &req))
		require.NoError(t, dt.AllocateMemory(dev, &vk.MemoryAllocateInfo{SType: vk.STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
			PNext: unsafe.Pointer(&vk.MemoryAllocateFlagsInfo{SType: vk.STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
				Flags: vk.MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT}),
			AllocationSize: req.Size, MemoryTypeIndex: d.memoryType(t, req.MemoryTypeBits,
				vk.MEMORY_PROPERTY_HOST_VISIBLE_BIT|vk.MEMORY_PROPERTY_HOST_COHERENT_BIT)}, nil, &mems[i]).Err())
		require.NoError(t, dt.BindBufferMemory(dev, bufs[i], mems[i], 0).Err())
		var p unsafe.Pointer
		require.NoError(t, dt.MapMemory(dev, mems[i], 0, vk.WHOLE_SIZE, 0, &p).Err())
		mapped[i] = unsafe.Slice((*byte)(p), len(data))
		copy(mapped[i], data)
		infos[i] = vk.DescriptorBufferInfo{Buffer: bufs[i], Range: vk.WHOLE_SIZE}
	}
	if pushFn != nil {
		addrs := make([]uint64, len(bufs))
		for i, buf := range bufs {
			a, err := dt.GetBufferDeviceAddress(dev, &vk.BufferDeviceAddressInfo{SType: vk.STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, Buffer: buf})
			require.NoError(t, err)
			addrs[i] = uint64(a)
		}
		push = pushFn(addrs)
	}
	defer func() {
		for i := range bufs {
			require.NoError(t, dt.UnmapMemory(dev, mems[i]))
			require.NoError(t, dt.DestroyBuffer(dev, bufs[i], nil))
			require.NoError(t, dt.FreeMemory(dev, mems[i], nil))
		}
	}()

	var pool vk.DescriptorPool
	require.NoError(t, dt.CreateDescriptorPool(dev, &vk.DescriptorPoolCreateInfo{SType: vk.STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		MaxSets: 1, PoolSizeCount: 1, PPoolSizes: &vk.DescriptorPoolSize{Type: vk.DESCRIPTOR_TYPE_STORAGE_BUFFER, DescriptorCount: uint32(len(buffers))}}, nil, &pool).Err())
	defer func() { require.NoError(t, dt.DestroyDescriptorPool(dev, pool, nil)) }()
	var set vk.DescriptorSet
	require.NoError(t, dt.AllocateDescriptorSets(dev, &vk.DescriptorSetAllocateInfo{SType: vk.STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		DescriptorPool: pool, DescriptorSetCount: 1, PSetLayouts: &setLayout}, &set).Err())
	writes := make([]vk.WriteDescriptorSet, len(buffers))
	for i := range writes {
		writes[i] = vk.WriteDescriptorSet{SType: vk.STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, DstSet: set, DstBinding: uint32(i),
			DescriptorCount: 1, DescriptorType: vk.DESCRIPTOR_TYPE_STORAGE_BUFFER, PBufferInfo: &infos[i]}
	}
	require.NoError(t, dt.UpdateDescriptorSets(dev, uint32(len(writes)), &writes[0], 0, nil))

	var cmdPool vk.CommandPool
	require.NoError(t, dt.CreateCommandPool(dev, &vk.CommandPoolCreateInfo{SType: vk.STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		QueueFamilyIndex: d.family}, nil, &cmdPool).Err())
	defer func() { require.NoError(t, dt.DestroyCommandPool(dev, cmdPool, nil)) }()
	var cb vk.CommandBuffer
	require.NoError(t, dt.AllocateCommandBuffers(dev, &vk.CommandBufferAllocateInfo{SType: vk.STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		CommandPool: cmdPool, Level: vk.COMMAND_BUFFER_LEVEL_PRIMARY, CommandBufferCount: 1}, &cb).Err())
	require.NoError(t, dt.BeginCommandBuffer(cb, &vk.CommandBufferBeginInfo{SType: vk.STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		Flags: vk.COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT}).Err())
	require.NoError(t, dt.CmdBindPipeline(cb, vk.PIPELINE_BIND_POINT_COMPUTE, pipeline))
	require.NoError(t, dt.CmdBindDescriptorSets(cb, vk.PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nil))
	if len(push) > 0 {
		require.NoError(t, dt.CmdPushConstants(cb, layout, vk.SHADER_STAGE_COMPUTE_BIT, 0, uint32(len(push)), unsafe.Pointer(&push[0])))
	}
	require.NoError(t, dt.CmdDispatch(cb, groups, 1, 1))
	require.NoError(t, dt.CmdPipelineBarrier(cb, vk.PIPELINE_STAGE_COMPUTE_SHADER_BIT, vk.PIPELINE_STAGE_HOST_BIT, 0,
		1, &vk.MemoryBarrier{SType: vk.STRUCTURE_TYPE_MEMORY_BARRIER, SrcAccessMask: vk.ACCESS_SHADER_WRITE_BIT,
			DstAccessMask: vk.ACCESS_HOST_READ_BIT}, 0, nil, 0, nil))
	require.NoError(t, dt.EndCommandBuffer(cb).Err())
	var fence vk.Fence
	require.NoError(t, dt.CreateFence(dev, &vk.FenceCreateInfo{SType: vk.STRUCTURE_TYPE_FENCE_CREATE_INFO}, nil, &fence).Err())
	defer func() { require.NoError(t, dt.DestroyFence(dev, fence, nil)) }()
	require.NoError(t, dt.QueueSubmit(d.queue, 1, &vk.SubmitInfo{SType: vk.STRUCTURE_TYPE_SUBMIT_INFO,
		CommandBufferCount: 1, PCommandBuffers: &cb}, fence).Err())
	r := dt.WaitForFences(dev, 1, &fence, vk.TRUE, 30_000_000_000)
	require.Equal(t, vk.SUCCESS, r, "vkWaitForFences: %v", r)
	for i := range buffers {
		copy(buffers[i], mapped[i])
	}
	require.NoError(t, dt.FreeCommandBuffers(dev, cmdPool, 1, &cb))
}

func f32Bytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func validWords(t *testing.T, b *spirv.Builder, scalar bool) []uint32 {
	t.Helper()
	w, err := b.Words()
	require.NoError(t, err)
	require.NoError(t, spvtools.ValidateWith(w, spirv.EnvVulkan1_3, spvtools.ValidateOptions{ScalarBlockLayout: scalar}))
	return w
}

// TestDispatch runs builder-made modules on the device and checks each
// element against a CPU reference.
func TestDispatch(t *testing.T) {
	needTools(t)
	d := newVkDevice(t)
	env := spirv.EnvVulkan1_3

	t.Run("saxpy", func(t *testing.T) {
		const n = 1000 // not a multiple of 64: threads past n must return
		x, y := make([]float32, n+24), make([]float32, n+24)
		for i := range x {
			x[i], y[i] = float32(i)*0.5-100, float32(i%17)-3
		}
		const a = float32(2.5)
		push := make([]byte, 28)
		binary.LittleEndian.PutUint32(push[0:], n)
		binary.LittleEndian.PutUint32(push[4:], 1)
		binary.LittleEndian.PutUint32(push[8:], 1)
		binary.LittleEndian.PutUint32(push[24:], math.Float32bits(a))
		bufs := [][]byte{f32Bytes(x), f32Bytes(y)}
		d.run(t, validWords(t, saxpy(env), true), bufs, func([]uint64) []byte { return push }, (n+24)/64+1)
		got := f32s(bufs[1])
		for i := range got {
			want := y[i]
			if i < n {
				want = float32(math.FMA(float64(a), float64(x[i]), float64(y[i])))
			}
			require.InDelta(t, want, got[i], 1e-4, "element %d", i)
		}
	})

	t.Run("control", func(t *testing.T) {
		const n = 256
		out := make([]byte, 4*n)
		d.run(t, validWords(t, control(env), false), [][]byte{out}, nil, n/64)
		for i, v := range u32s(out) {
			acc := int32(0)
			for j := int32(0); j < 8; j++ {
				var sw int32
				switch j % 4 {
				case 0:
					sw = j
				case 1:
					sw = 2 * j
				case 2:
					sw = -1
				}
				add := int32(3)
				if j&1 == 0 {
					add = 1
				}
				acc += sw + add
			}
			require.Equal(t, acc+int32(i), int32(v), "element %d", i)
		}
	})

	t.Run("reduce", func(t *testing.T) {
		const groups = 16
		in := make([]float32, 64*groups)
		for i := range in {
			in[i] = float32(i%13) - 4
		}
		bufs := [][]byte{f32Bytes(in), make([]byte, 4*groups)}
		d.run(t, validWords(t, reduce(env), false), bufs, nil, groups)
		for g, v := range f32s(bufs[1]) {
			var want float32
			for _, x := range in[64*g : 64*g+64] {
				want += x
			}
			require.Equal(t, want, v, "group %d", g)
		}
	})

	t.Run("glsl-math", func(t *testing.T) {
		const n = 512
		in := make([]float32, n)
		for i := range in {
			in[i] = float32(i)/32 - 8
		}
		bufs := [][]byte{f32Bytes(in), make([]byte, 4*n)}
		d.run(t, validWords(t, glslMath(env), false), bufs, nil, n/64)
		for i, v := range f32s(bufs[1]) {
			x := float64(in[i])
			want := math.Sqrt(math.Abs(x)) + math.Sin(x)*math.Cos(x) + math.Pow(2, math.Max(-4, math.Min(4, x))) +
				math.Floor(x) + (x*x + 1) + math.Max(math.Min(x, 3), -3) + math.Exp(x/8)
			require.InDelta(t, want, float64(v), 1e-3*math.Max(1, math.Abs(want)), "element %d (x=%v)", i, x)
		}
	})

	t.Run("atomics", func(t *testing.T) {
		const n = 640
		x := make([]float32, n)
		var sum float32
		for i := range x {
			x[i] = float32(i % 8) // small integers: the float sum is exact in any order
			sum += x[i]
		}
		counts := make([]byte, 4*8)
		bufs := [][]byte{f32Bytes(x), counts, make([]byte, 4)}
		d.run(t, validWords(t, atomics(env), false), bufs, nil, n/64)
		c := u32s(bufs[1])
		for bucket := 0; bucket < 4; bucket++ {
			require.Equal(t, uint32(n/4), c[bucket], "bucket %d", bucket)
		}
		require.Equal(t, uint32(1), c[4], "compare-exchange stores once")
		require.Equal(t, uint32(n-1), c[5], "atomic max")
		require.Equal(t, uint32(n), c[6], "atomic increment")
		require.Equal(t, sum, f32s(bufs[2])[0])
	})

	t.Run("device-address", func(t *testing.T) {
		const n = 512
		src := make([]float32, n)
		for i := range src {
			src[i] = float32(i) - 100.25
		}
		bufs := [][]byte{f32Bytes(src), make([]byte, 4*n)}
		push := func(addrs []uint64) []byte {
			p := make([]byte, 40)
			binary.LittleEndian.PutUint32(p[0:], n)
			binary.LittleEndian.PutUint64(p[24:], addrs[0])
			binary.LittleEndian.PutUint64(p[32:], addrs[1])
			return p
		}
		d.run(t, validWords(t, deviceAddress(env), true), bufs, push, n/64)
		for i, v := range f32s(bufs[1]) {
			require.Equal(t, src[i]*3, v, "element %d", i)
		}
	})

	t.Run("subgroup", func(t *testing.T) {
		const n = 256
		outs := [][]byte{make([]byte, 4*n), make([]byte, 4*n), make([]byte, 4*n), make([]byte, 4*n), make([]byte, 4*n)}
		d.run(t, validWords(t, subgroupCheck(env), false), outs, nil, n/64)
		size, lid, sum, scan, xor := u32s(outs[0]), u32s(outs[1]), u32s(outs[2]), u32s(outs[3]), u32s(outs[4])
		t.Logf("subgroup size %d", size[0])
		require.Contains(t, []uint32{1, 2, 4, 8, 16, 32, 64, 128}, size[0])
		for i := 0; i < n; i++ {
			require.Equal(t, size[0], size[i], "subgroup size at %d", i)
			require.Less(t, lid[i], size[i])
			require.Equal(t, size[i], sum[i], "reduce-add of 1 at %d", i)
			require.Equal(t, lid[i]+1, scan[i], "inclusive scan of 1 at %d", i)
			if size[i] > 1 {
				require.Equal(t, lid[i]^1, xor[i], "shuffle-xor 1 at %d", i)
			}
		}
	})
}

// subgroupCheck writes, per invocation, the subgroup size, its id in the
// subgroup, the subgroup reduce-add and inclusive-scan of 1, and the id of
// the neighbour reached by shuffle-xor 1: results a CPU can predict whatever
// the device's subgroup size.
func subgroupCheck(env spirv.TargetEnv) *spirv.Builder {
	k := newKernel(env, 64)
	b := k.b
	var bufs [5]spirv.ID
	for j, name := range []string{"size", "lid", "sum", "scan", "xor"} {
		bufs[j] = k.buffer(k.u32, 4, uint32(j), name)
	}
	builtin := func(bi spirv.BuiltIn) spirv.ID {
		v := b.Variable(b.TypePointer(spirv.StorageClassInput, k.u32), spirv.StorageClassInput, 0)
		b.Decorate(v, spirv.DecorationBuiltIn, uint32(bi))
		return b.Load(k.u32, v)
	}
	b.Capability(spirv.CapabilityGroupNonUniform)
	size := builtin(spirv.BuiltInSubgroupSize)
	lid := builtin(spirv.BuiltInSubgroupLocalInvocationId)
	i := k.index()
	one := b.ConstantUint32(1)
	sg := spirv.ScopeSubgroup
	vals := []spirv.ID{
		size,
		lid,
		b.GroupNonUniformArith(spirv.OpGroupNonUniformIAdd, k.u32, sg, spirv.GroupOperationReduce, one),
		b.GroupNonUniformArith(spirv.OpGroupNonUniformIAdd, k.u32, sg, spirv.GroupOperationInclusiveScan, one),
		b.GroupNonUniformShuffle(spirv.OpGroupNonUniformShuffleXor, k.u32, sg, lid, one),
	}
	for j, v := range vals {
		b.Store(k.elem(bufs[j], k.ptrSBu32, i), v)
	}
	return finish(b)
}

// runImage dispatches code over a w×h rgba32f storage image at set 0
// binding 0, uploaded from texels and read back into them.
func (d *vkDevice) runImage(t *testing.T, code []uint32, w, h uint32, texels []float32) {
	dt, dev := d.dt, d.dev
	size := vk.DeviceSize(16 * w * h)
	binding := vk.DescriptorSetLayoutBinding{Binding: 0, DescriptorType: vk.DESCRIPTOR_TYPE_STORAGE_IMAGE,
		DescriptorCount: 1, StageFlags: vk.SHADER_STAGE_COMPUTE_BIT}
	var setLayout vk.DescriptorSetLayout
	require.NoError(t, dt.CreateDescriptorSetLayout(dev, &vk.DescriptorSetLayoutCreateInfo{
		SType: vk.STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, BindingCount: 1, PBindings: &binding}, nil, &setLayout).Err())
	defer func() { require.NoError(t, dt.DestroyDescriptorSetLayout(dev, setLayout, nil)) }()
	var layout vk.PipelineLayout
	require.NoError(t, dt.CreatePipelineLayout(dev, &vk.PipelineLayoutCreateInfo{SType: vk.STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		SetLayoutCount: 1, PSetLayouts: &setLayout}, nil, &layout).Err())
	defer func() { require.NoError(t, dt.DestroyPipelineLayout(dev, layout, nil)) }()
	var module vk.ShaderModule
	require.NoError(t, dt.CreateShaderModule(dev, &vk.ShaderModuleCreateInfo{
		SType: vk.STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, CodeSize: uintptr(4 * len(code)), PCode: &code[0]}, nil, &module).Err())
	pci := vk.ComputePipelineCreateInfo{
		SType: vk.STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		Stage: vk.PipelineShaderStageCreateInfo{SType: vk.STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			Stage: vk.SHADER_STAGE_COMPUTE_BIT, Module: module, PName: vk.CString("main")},
		Layout: layout,
	}
	var pipeline vk.Pipeline
	require.NoError(t, dt.CreateComputePipelines(dev, 0, 1, &pci, nil, &pipeline).Err())
	require.NoError(t, dt.DestroyShaderModule(dev, module, nil))
	defer func() { require.NoError(t, dt.DestroyPipeline(dev, pipeline, nil)) }()

	// The image, its memory and view.
	format := vk.FORMAT_R32G32B32A32_SFLOAT
	var img vk.Image
	require.NoError(t, dt.CreateImage(dev, &vk.ImageCreateInfo{SType: vk.STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		ImageType: vk.IMAGE_TYPE_2D, Format: format, Extent: vk.Extent3D{Width: w, Height: h, Depth: 1},
		MipLevels: 1, ArrayLayers: 1, Samples: vk.SAMPLE_COUNT_1_BIT, Tiling: vk.IMAGE_TILING_OPTIMAL,
		Usage:       vk.IMAGE_USAGE_STORAGE_BIT | vk.IMAGE_USAGE_TRANSFER_SRC_BIT | vk.IMAGE_USAGE_TRANSFER_DST_BIT,
		SharingMode: vk.SHARING_MODE_EXCLUSIVE, InitialLayout: vk.IMAGE_LAYOUT_UNDEFINED}, nil, &img).Err())
	defer func() { require.NoError(t, dt.DestroyImage(dev, img, nil)) }()
	var req vk.MemoryRequirements
	require.NoError(t, dt.GetImageMemoryRequirements(dev, img, &req))
	var imgMem vk.DeviceMemory
	require.NoError(t, dt.AllocateMemory(dev, &vk.MemoryAllocateInfo{SType: vk.STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		AllocationSize: req.Size, MemoryTypeIndex: d.memoryType(t, req.MemoryTypeBits, 0)}, nil, &imgMem).Err())
	defer func() { require.NoError(t, dt.FreeMemory(dev, imgMem, nil)) }()
	require.NoError(t, dt.BindImageMemory(dev, img, imgMem, 0).Err())
	color := vk.ImageSubresourceRange{AspectMask: vk.IMAGE_ASPECT_COLOR_BIT, LevelCount: 1, LayerCount: 1}
	var view vk.ImageView
	require.NoError(t, dt.CreateImageView(dev, &vk.ImageViewCreateInfo{SType: vk.STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
		Image: img, ViewType: vk.IMAGE_VIEW_TYPE_2D, Format: format, SubresourceRange: color}, nil, &view).Err())
	defer func() { require.NoError(t, dt.DestroyImageView(dev, view, nil)) }()

	// A host-visible staging buffer for the upload and the read-back.
	var staging vk.Buffer
	require.NoError(t, dt.CreateBuffer(dev, &vk.BufferCreateInfo{SType: vk.STRUCTURE_TYPE_BUFFER_CREATE_INFO, Size: size,
		Usage: vk.BUFFER_USAGE_TRANSFER_SRC_BIT | vk.BUFFER_USAGE_TRANSFER_DST_BIT, SharingMode: vk.SHARING_MODE_EXCLUSIVE}, nil, &staging).Err())
	defer func() { require.NoError(t, dt.DestroyBuffer(dev, staging, nil)) }()
	require.NoError(t, dt.GetBufferMemoryRequirements(dev, staging, &req))
	var stagingMem vk.DeviceMemory
	require.NoError(t, dt.AllocateMemory(dev, &vk.MemoryAllocateInfo{SType: vk.STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		AllocationSize: req.Size, MemoryTypeIndex: d.memoryType(t, req.MemoryTypeBits,
			vk.MEMORY_PROPERTY_HOST_VISIBLE_BIT|vk.MEMORY_PROPERTY_HOST_COHERENT_BIT)}, nil, &stagingMem).Err())
	defer func() { require.NoError(t, dt.FreeMemory(dev, stagingMem, nil)) }()
	require.NoError(t, dt.BindBufferMemory(dev, staging, stagingMem, 0).Err())
	var p unsafe.Pointer
	require.NoError(t, dt.MapMemory(dev, stagingMem, 0, vk.WHOLE_SIZE, 0, &p).Err())
	mapped := unsafe.Slice((*float32)(p), 4*w*h)
	copy(mapped, texels)

	var pool vk.DescriptorPool
	require.NoError(t, dt.CreateDescriptorPool(dev, &vk.DescriptorPoolCreateInfo{SType: vk.STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		MaxSets: 1, PoolSizeCount: 1, PPoolSizes: &vk.DescriptorPoolSize{Type: vk.DESCRIPTOR_TYPE_STORAGE_IMAGE, DescriptorCount: 1}}, nil, &pool).Err())
	defer func() { require.NoError(t, dt.DestroyDescriptorPool(dev, pool, nil)) }()
	var set vk.DescriptorSet
	require.NoError(t, dt.AllocateDescriptorSets(dev, &vk.DescriptorSetAllocateInfo{SType: vk.STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		DescriptorPool: pool, DescriptorSetCount: 1, PSetLayouts: &setLayout}, &set).Err())
	require.NoError(t, dt.UpdateDescriptorSets(dev, 1, &vk.WriteDescriptorSet{SType: vk.STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		DstSet: set, DescriptorCount: 1, DescriptorType: vk.DESCRIPTOR_TYPE_STORAGE_IMAGE,
		PImageInfo: &vk.DescriptorImageInfo{ImageView: view, ImageLayout: vk.IMAGE_LAYOUT_GENERAL}}, 0, nil))

	var cmdPool vk.CommandPool
	require.NoError(t, dt.CreateCommandPool(dev, &vk.CommandPoolCreateInfo{SType: vk.STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		QueueFamilyIndex: d.family}, nil, &cmdPool).Err())
	defer func() { require.NoError(t, dt.DestroyCommandPool(dev, cmdPool, nil)) }()
	var cb vk.CommandBuffer
	require.NoError(t, dt.AllocateCommandBuffers(dev, &vk.CommandBufferAllocateInfo{SType: vk.STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		CommandPool: cmdPool, Level: vk.COMMAND_BUFFER_LEVEL_PRIMARY, CommandBufferCount: 1}, &cb).Err())
	require.NoError(t, dt.BeginCommandBuffer(cb, &vk.CommandBufferBeginInfo{SType: vk.STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		Flags: vk.COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT}).Err())
	transition := func(src, dst vk.PipelineStageFlags, srcAccess, dstAccess vk.AccessFlags, from, to vk.ImageLayout) {
		require.NoError(t, dt.CmdPipelineBarrier(cb, src, dst, 0, 0, nil, 0, nil, 1, &vk.ImageMemoryBarrier{
			SType: vk.STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, SrcAccessMask: srcAccess, DstAccessMask: dstAccess,
			OldLayout: from, NewLayout: to, SrcQueueFamilyIndex: vk.QUEUE_FAMILY_IGNORED, DstQueueFamilyIndex: vk.QUEUE_FAMILY_IGNORED,
			Image: img, SubresourceRange: color}))
	}
	region := vk.BufferImageCopy{ImageSubresource: vk.ImageSubresourceLayers{AspectMask: vk.IMAGE_ASPECT_COLOR_BIT, LayerCount: 1},
		ImageExtent: vk.Extent3D{Width: w, Height: h, Depth: 1}}
	transition(vk.PIPELINE_STAGE_TOP_OF_PIPE_BIT, vk.PIPELINE_STAGE_TRANSFER_BIT, 0, vk.ACCESS_TRANSFER_WRITE_BIT,
		vk.IMAGE_LAYOUT_UNDEFINED, vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL)
	require.NoError(t, dt.CmdCopyBufferToImage(cb, staging, img, vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region))
	transition(vk.PIPELINE_STAGE_TRANSFER_BIT, vk.PIPELINE_STAGE_COMPUTE_SHADER_BIT, vk.ACCESS_TRANSFER_WRITE_BIT,
		vk.ACCESS_SHADER_READ_BIT|vk.ACCESS_SHADER_WRITE_BIT, vk.IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, vk.IMAGE_LAYOUT_GENERAL)
	require.NoError(t, dt.CmdBindPipeline(cb, vk.PIPELINE_BIND_POINT_COMPUTE, pipeline))
	require.NoError(t, dt.CmdBindDescriptorSets(cb, vk.PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nil))
	require.NoError(t, dt.CmdDispatch(cb, w/8, h/8, 1))
	transition(vk.PIPELINE_STAGE_COMPUTE_SHADER_BIT, vk.PIPELINE_STAGE_TRANSFER_BIT, vk.ACCESS_SHADER_WRITE_BIT,
		vk.ACCESS_TRANSFER_READ_BIT, vk.IMAGE_LAYOUT_GENERAL, vk.IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)
	require.NoError(t, dt.CmdCopyImageToBuffer(cb, img, vk.IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging, 1, &region))
	require.NoError(t, dt.CmdPipelineBarrier(cb, vk.PIPELINE_STAGE_TRANSFER_BIT, vk.PIPELINE_STAGE_HOST_BIT, 0,
		1, &vk.MemoryBarrier{SType: vk.STRUCTURE_TYPE_MEMORY_BARRIER, SrcAccessMask: vk.ACCESS_TRANSFER_WRITE_BIT,
			DstAccessMask: vk.ACCESS_HOST_READ_BIT}, 0, nil, 0, nil))
	require.NoError(t, dt.EndCommandBuffer(cb).Err())
	var fence vk.Fence
	require.NoError(t, dt.CreateFence(dev, &vk.FenceCreateInfo{SType: vk.STRUCTURE_TYPE_FENCE_CREATE_INFO}, nil, &fence).Err())
	defer func() { require.NoError(t, dt.DestroyFence(dev, fence, nil)) }()
	require.NoError(t, dt.QueueSubmit(d.queue, 1, &vk.SubmitInfo{SType: vk.STRUCTURE_TYPE_SUBMIT_INFO,
		CommandBufferCount: 1, PCommandBuffers: &cb}, fence).Err())
	r := dt.WaitForFences(dev, 1, &fence, vk.TRUE, 30_000_000_000)
	require.Equal(t, vk.SUCCESS, r, "vkWaitForFences: %v", r)
	copy(texels, mapped)
	require.NoError(t, dt.UnmapMemory(dev, stagingMem))
	require.NoError(t, dt.FreeCommandBuffers(dev, cmdPool, 1, &cb))
}

func TestDispatchStorageImage(t *testing.T) {
	needTools(t)
	d := newVkDevice(t)
	const w, h = 32, 16
	texels := make([]float32, 4*w*h)
	for i := range texels {
		texels[i] = float32(i%7) - 2.5
	}
	orig := append([]float32(nil), texels...)
	d.runImage(t, validWords(t, storageImage(spirv.EnvVulkan1_3), false), w, h, texels)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			o := 4 * (y*w + x)
			want := []float32{2*orig[o] + float32(x), 2*orig[o+1] + float32(y), 2 * orig[o+2], 2*orig[o+3] + 1}
			require.Equal(t, want, texels[o:o+4], "texel (%d, %d)", x, y)
		}
	}
}
