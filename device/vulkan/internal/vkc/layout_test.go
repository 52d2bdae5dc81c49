package vkc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/stretchr/testify/require"
)

// structs lists every structure of this package, for the layout check.
var structs = []any{
	ApplicationInfo{}, InstanceCreateInfo{}, DebugUtilsMessengerCreateInfoEXT{}, DebugUtilsMessengerCallbackDataEXT{},
	DebugUtilsObjectNameInfoEXT{}, PhysicalDeviceProperties{}, PhysicalDeviceLimits{}, PhysicalDeviceSparseProperties{},
	PhysicalDeviceProperties2{}, PhysicalDeviceFeatures{}, PhysicalDeviceFeatures2{}, PhysicalDeviceVulkan11Features{},
	PhysicalDeviceVulkan12Features{}, PhysicalDeviceVulkan13Features{}, PhysicalDeviceVulkan11Properties{},
	PhysicalDeviceVulkan12Properties{}, PhysicalDeviceVulkan13Properties{}, PhysicalDeviceShaderAtomicFloatFeaturesEXT{},
	PhysicalDeviceAccelerationStructureFeaturesKHR{}, PhysicalDeviceRayQueryFeaturesKHR{}, PhysicalDevicePushDescriptorPropertiesKHR{},
	PhysicalDeviceMemoryProperties{}, MemoryType{}, MemoryHeap{}, QueueFamilyProperties{}, Extent3D{}, Offset3D{},
	DeviceQueueCreateInfo{}, DeviceCreateInfo{}, ExtensionProperties{}, LayerProperties{}, BufferCreateInfo{},
	MemoryRequirements{}, MemoryAllocateInfo{}, MemoryAllocateFlagsInfo{}, BufferDeviceAddressInfo{}, ImageCreateInfo{},
	ImageViewCreateInfo{}, ComponentMapping{}, ImageSubresourceRange{}, ImageSubresourceLayers{}, SamplerCreateInfo{},
	CommandPoolCreateInfo{}, CommandBufferAllocateInfo{}, CommandBufferBeginInfo{}, SubmitInfo2{}, CommandBufferSubmitInfo{},
	SemaphoreSubmitInfo{}, SemaphoreCreateInfo{}, SemaphoreTypeCreateInfo{}, SemaphoreWaitInfo{}, SemaphoreSignalInfo{},
	ShaderModuleCreateInfo{}, DescriptorSetLayoutBinding{}, DescriptorSetLayoutCreateInfo{}, PushConstantRange{},
	PipelineLayoutCreateInfo{}, PipelineShaderStageCreateInfo{}, ComputePipelineCreateInfo{}, SpecializationInfo{},
	WriteDescriptorSet{}, DescriptorBufferInfo{}, DescriptorImageInfo{}, BufferCopy{}, BufferImageCopy{}, MemoryBarrier2{},
	BufferMemoryBarrier2{}, ImageMemoryBarrier2{}, DependencyInfo{}, DispatchIndirectCommand{}, FormatProperties{},
	PhysicalDeviceMemoryProperties2{}, PhysicalDeviceMemoryBudgetPropertiesEXT{}, ConformanceVersion{}, ImageCopy{},
}

// TestLayout compiles a C program printing the size and member offsets of
// every structure and compares them with Go's.
func TestLayout(t *testing.T) {
	cc, err := exec.LookPath("cc")
	testenv.Need(t, "a C compiler", err)
	if _, err := os.Stat("/usr/include/vulkan/vulkan.h"); err != nil {
		testenv.Need(t, "the Vulkan headers", err)
	}
	var c, want strings.Builder
	c.WriteString("#include <stdio.h>\n#include <stddef.h>\n#include <vulkan/vulkan.h>\nint main(void) {\n")
	for _, s := range structs {
		ty := reflect.TypeOf(s)
		cname := "Vk" + ty.Name()
		fmt.Fprintf(&c, "  printf(\"%s %%zu\\n\", sizeof(%s));\n", ty.Name(), cname)
		fmt.Fprintf(&want, "%s %d\n", ty.Name(), ty.Size())
		for i := range ty.NumField() {
			f := ty.Field(i)
			member := strings.ToLower(f.Name[:1]) + f.Name[1:]
			member = strings.TrimSuffix(member, "_")
			fmt.Fprintf(&c, "  printf(\"%s.%s %%zu\\n\", offsetof(%s, %s));\n", ty.Name(), f.Name, cname, member)
			fmt.Fprintf(&want, "%s.%s %d\n", ty.Name(), f.Name, f.Offset)
		}
	}
	c.WriteString("  return 0;\n}\n")
	dir := t.TempDir()
	src := filepath.Join(dir, "layout.c")
	require.NoError(t, os.WriteFile(src, []byte(c.String()), 0o644))
	bin := filepath.Join(dir, "layout")
	out, err := exec.Command(cc, "-o", bin, src).CombinedOutput()
	require.NoError(t, err, "%s", out)
	got, err := exec.Command(bin).Output()
	require.NoError(t, err)
	require.Equal(t, want.String(), string(got))
}
