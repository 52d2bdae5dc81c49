package vk

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/stretchr/testify/require"
)

// compileGLSL compiles testdata/vk/<name> to SPIR-V words with glslangValidator.
func compileGLSL(t testing.TB, name string) []uint32 {
	t.Helper()
	glslang, err := exec.LookPath("glslangValidator")
	testenv.Need(t, "glslangValidator", err)
	out := filepath.Join(t.TempDir(), "shader.spv")
	msg, err := exec.Command(glslang, "-V", "--target-env", "vulkan1.2", "-o", out,
		filepath.Join("..", "testdata", "vk", name)).CombinedOutput()
	require.NoError(t, err, "glslangValidator:\n%s", msg)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Zero(t, len(b)%4)
	words := make([]uint32, len(b)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	require.Equal(t, uint32(0x07230203), words[0], "SPIR-V magic")
	return words
}

// computePipeline is a compute pipeline over one storage buffer at binding 0
// with two uint push constants.
type computePipeline struct {
	setLayout DescriptorSetLayout
	layout    PipelineLayout
	pipeline  Pipeline
}

func newComputePipeline(t testing.TB, td *testDevice, code []uint32) *computePipeline {
	dt, dev := td.dt, td.dev
	cp := &computePipeline{}
	binding := DescriptorSetLayoutBinding{
		Binding:         0,
		DescriptorType:  DESCRIPTOR_TYPE_STORAGE_BUFFER,
		DescriptorCount: 1,
		StageFlags:      SHADER_STAGE_COMPUTE_BIT,
	}
	require.NoError(t, dt.CreateDescriptorSetLayout(dev, &DescriptorSetLayoutCreateInfo{
		SType:        STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		BindingCount: 1,
		PBindings:    &binding,
	}, nil, &cp.setLayout).Err())
	push := PushConstantRange{StageFlags: SHADER_STAGE_COMPUTE_BIT, Size: 8}
	require.NoError(t, dt.CreatePipelineLayout(dev, &PipelineLayoutCreateInfo{
		SType:                  STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		SetLayoutCount:         1,
		PSetLayouts:            &cp.setLayout,
		PushConstantRangeCount: 1,
		PPushConstantRanges:    &push,
	}, nil, &cp.layout).Err())
	var module ShaderModule
	require.NoError(t, dt.CreateShaderModule(dev, &ShaderModuleCreateInfo{
		SType:    STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		CodeSize: uintptr(4 * len(code)),
		PCode:    &code[0],
	}, nil, &module).Err())
	pci := ComputePipelineCreateInfo{
		SType: STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		Stage: PipelineShaderStageCreateInfo{
			SType:  STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			Stage:  SHADER_STAGE_COMPUTE_BIT,
			Module: module,
			PName:  CString("main"),
		},
		Layout: cp.layout,
	}
	require.NoError(t, dt.CreateComputePipelines(dev, 0, 1, &pci, nil, &cp.pipeline).Err())
	require.NoError(t, dt.DestroyShaderModule(dev, module, nil))
	t.Cleanup(func() {
		require.NoError(t, dt.DestroyPipeline(dev, cp.pipeline, nil))
		require.NoError(t, dt.DestroyPipelineLayout(dev, cp.layout, nil))
		require.NoError(t, dt.DestroyDescriptorSetLayout(dev, cp.setLayout, nil))
	})
	return cp
}

// TestComputeDispatch runs one compute dispatch on the device with the
// validation layer on and checks every element of the result; the commands
// are recorded one call at a time, and again through a CommandBatch.
func TestComputeDispatch(t *testing.T) {
	t.Run("direct", func(t *testing.T) { testComputeDispatch(t, false) })
	t.Run("batch", func(t *testing.T) { testComputeDispatch(t, true) })
}

func testComputeDispatch(t *testing.T, batched bool) {
	td := newTestDevice(t, true)
	dt, dev := td.dt, td.dev
	code := compileGLSL(t, "affine.comp")
	cp := newComputePipeline(t, td, code)

	const n, mul = 1000, 7
	size := DeviceSize(4 * n)
	var buf Buffer
	require.NoError(t, dt.CreateBuffer(dev, &BufferCreateInfo{
		SType:       STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		Size:        size,
		Usage:       BUFFER_USAGE_STORAGE_BUFFER_BIT,
		SharingMode: SHARING_MODE_EXCLUSIVE,
	}, nil, &buf).Err())
	defer func() { require.NoError(t, dt.DestroyBuffer(dev, buf, nil)) }()
	var req MemoryRequirements
	require.NoError(t, dt.GetBufferMemoryRequirements(dev, buf, &req))
	var mem DeviceMemory
	require.NoError(t, dt.AllocateMemory(dev, &MemoryAllocateInfo{
		SType:           STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		AllocationSize:  req.Size,
		MemoryTypeIndex: td.memoryType(t, req.MemoryTypeBits, MEMORY_PROPERTY_HOST_VISIBLE_BIT|MEMORY_PROPERTY_HOST_COHERENT_BIT),
	}, nil, &mem).Err())
	defer func() { require.NoError(t, dt.FreeMemory(dev, mem, nil)) }()
	require.NoError(t, dt.BindBufferMemory(dev, buf, mem, 0).Err())
	var mapped unsafe.Pointer
	require.NoError(t, dt.MapMemory(dev, mem, 0, WHOLE_SIZE, 0, &mapped).Err())
	data := unsafe.Slice((*uint32)(mapped), n)
	for i := range data {
		data[i] = uint32(3*i + 1)
	}

	poolSize := DescriptorPoolSize{Type: DESCRIPTOR_TYPE_STORAGE_BUFFER, DescriptorCount: 1}
	var pool DescriptorPool
	require.NoError(t, dt.CreateDescriptorPool(dev, &DescriptorPoolCreateInfo{
		SType:         STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		MaxSets:       1,
		PoolSizeCount: 1,
		PPoolSizes:    &poolSize,
	}, nil, &pool).Err())
	defer func() { require.NoError(t, dt.DestroyDescriptorPool(dev, pool, nil)) }()
	var set DescriptorSet
	require.NoError(t, dt.AllocateDescriptorSets(dev, &DescriptorSetAllocateInfo{
		SType:              STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		DescriptorPool:     pool,
		DescriptorSetCount: 1,
		PSetLayouts:        &cp.setLayout,
	}, &set).Err())
	require.NoError(t, dt.UpdateDescriptorSets(dev, 1, &WriteDescriptorSet{
		SType:           STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		DstSet:          set,
		DescriptorCount: 1,
		DescriptorType:  DESCRIPTOR_TYPE_STORAGE_BUFFER,
		PBufferInfo:     &DescriptorBufferInfo{Buffer: buf, Range: WHOLE_SIZE},
	}, 0, nil))

	var cmdPool CommandPool
	require.NoError(t, dt.CreateCommandPool(dev, &CommandPoolCreateInfo{
		SType:            STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		QueueFamilyIndex: td.family,
	}, nil, &cmdPool).Err())
	defer func() { require.NoError(t, dt.DestroyCommandPool(dev, cmdPool, nil)) }()
	var cb CommandBuffer
	require.NoError(t, dt.AllocateCommandBuffers(dev, &CommandBufferAllocateInfo{
		SType:              STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		CommandPool:        cmdPool,
		Level:              COMMAND_BUFFER_LEVEL_PRIMARY,
		CommandBufferCount: 1,
	}, &cb).Err())
	require.NoError(t, dt.BeginCommandBuffer(cb, &CommandBufferBeginInfo{
		SType: STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		Flags: COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	}).Err())
	record := func(rec interface {
		CmdBindPipeline(CommandBuffer, PipelineBindPoint, Pipeline) error
		CmdBindDescriptorSets(CommandBuffer, PipelineBindPoint, PipelineLayout, uint32, uint32, *DescriptorSet, uint32, *uint32) error
		CmdPushConstants(CommandBuffer, PipelineLayout, ShaderStageFlags, uint32, uint32, unsafe.Pointer) error
		CmdDispatch(CommandBuffer, uint32, uint32, uint32) error
		CmdPipelineBarrier(CommandBuffer, PipelineStageFlags, PipelineStageFlags, DependencyFlags, uint32, *MemoryBarrier, uint32, *BufferMemoryBarrier, uint32, *ImageMemoryBarrier) error
	}) {
		require.NoError(t, rec.CmdBindPipeline(cb, PIPELINE_BIND_POINT_COMPUTE, cp.pipeline))
		sets := []DescriptorSet{set}
		require.NoError(t, rec.CmdBindDescriptorSets(cb, PIPELINE_BIND_POINT_COMPUTE, cp.layout, 0, 1, &sets[0], 0, nil))
		params := &[2]uint32{n, mul}
		require.NoError(t, rec.CmdPushConstants(cb, cp.layout, SHADER_STAGE_COMPUTE_BIT, 0, 8, unsafe.Pointer(params)))
		require.NoError(t, rec.CmdDispatch(cb, (n+63)/64, 1, 1))
		require.NoError(t, rec.CmdPipelineBarrier(cb, PIPELINE_STAGE_COMPUTE_SHADER_BIT, PIPELINE_STAGE_HOST_BIT, 0,
			1, &MemoryBarrier{
				SType:         STRUCTURE_TYPE_MEMORY_BARRIER,
				SrcAccessMask: ACCESS_SHADER_WRITE_BIT,
				DstAccessMask: ACCESS_HOST_READ_BIT,
			}, 0, nil, 0, nil))
	}
	if batched {
		batch := dt.NewCommandBatch()
		record(batch)
		require.Equal(t, 5, batch.Len())
		runtime.GC() // the batch alone keeps the pointed-at arguments alive
		runtime.GC()
		batch.Flush()
		require.Zero(t, batch.Len())
	} else {
		record(dt)
	}
	require.NoError(t, dt.EndCommandBuffer(cb).Err())

	var fence Fence
	require.NoError(t, dt.CreateFence(dev, &FenceCreateInfo{SType: STRUCTURE_TYPE_FENCE_CREATE_INFO}, nil, &fence).Err())
	defer func() { require.NoError(t, dt.DestroyFence(dev, fence, nil)) }()
	require.NoError(t, dt.QueueSubmit(td.queue, 1, &SubmitInfo{
		SType:              STRUCTURE_TYPE_SUBMIT_INFO,
		CommandBufferCount: 1,
		PCommandBuffers:    &cb,
	}, fence).Err())
	r := dt.WaitForFences(dev, 1, &fence, TRUE, 10_000_000_000)
	require.Equal(t, SUCCESS, r, "vkWaitForFences: %v", r)

	for i, v := range data {
		require.Equal(t, uint32((3*i+1)*mul+i), v, "element %d", i)
	}
	require.NoError(t, dt.UnmapMemory(dev, mem))
	require.NoError(t, dt.FreeCommandBuffers(dev, cmdPool, 1, &cb))
}
