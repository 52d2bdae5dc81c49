// Package vkc is the small set of Vulkan entry points and structures the
// Vulkan backend calls, loaded from libvulkan through purego (no cgo).
//
// Entry points are resolved once through vkGetInstanceProcAddr and
// vkGetDeviceProcAddr into tables of function pointers and called with Call,
// whose go:uintptrescapes pragma keeps every structure handed to the driver on
// the heap for the duration of the call.
package vkc

import (
	"fmt"
	"os"
	"reflect"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Result is a VkResult; negative values are errors.
type Result int32

// The results the backend tells apart.
const (
	Success                 Result = 0
	NotReady                Result = 1
	Timeout                 Result = 2
	Incomplete              Result = 5
	ErrorOutOfHostMemory    Result = -1
	ErrorOutOfDeviceMemory  Result = -2
	ErrorInitializationFail Result = -3
	ErrorDeviceLost         Result = -4
	ErrorMemoryMapFailed    Result = -5
	ErrorLayerNotPresent    Result = -6
	ErrorExtensionNotPresnt Result = -7
	ErrorFeatureNotPresent  Result = -8
	ErrorIncompatibleDriver Result = -9
	ErrorFormatNotSupported Result = -11
)

var resultNames = map[Result]string{
	Success: "VK_SUCCESS", NotReady: "VK_NOT_READY", Timeout: "VK_TIMEOUT", Incomplete: "VK_INCOMPLETE",
	ErrorOutOfHostMemory: "VK_ERROR_OUT_OF_HOST_MEMORY", ErrorOutOfDeviceMemory: "VK_ERROR_OUT_OF_DEVICE_MEMORY",
	ErrorInitializationFail: "VK_ERROR_INITIALIZATION_FAILED", ErrorDeviceLost: "VK_ERROR_DEVICE_LOST",
	ErrorMemoryMapFailed: "VK_ERROR_MEMORY_MAP_FAILED", ErrorLayerNotPresent: "VK_ERROR_LAYER_NOT_PRESENT",
	ErrorExtensionNotPresnt: "VK_ERROR_EXTENSION_NOT_PRESENT", ErrorFeatureNotPresent: "VK_ERROR_FEATURE_NOT_PRESENT",
	ErrorIncompatibleDriver: "VK_ERROR_INCOMPATIBLE_DRIVER", ErrorFormatNotSupported: "VK_ERROR_FORMAT_NOT_SUPPORTED",
}

func (r Result) Error() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return fmt.Sprintf("VkResult(%d)", int32(r))
}

// Err returns nil for non-negative results (statuses) and r otherwise.
func (r Result) Err() error {
	if r >= 0 {
		return nil
	}
	return r
}

// Call calls a Vulkan entry point with integer and pointer arguments.
//
//go:uintptrescapes
func Call(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// CallResult calls an entry point that returns a VkResult.
//
//go:uintptrescapes
func CallResult(fn uintptr, args ...uintptr) Result {
	r, _, _ := purego.SyscallN(fn, args...)
	return Result(int32(r))
}

// Ptr returns the address of v as a uintptr argument, and moves v to the
// heap: converted here rather than in the call expression, the conversion
// is invisible to Call's go:uintptrescapes, and a value left on a goroutine
// stack would be stale once the stack grows and is copied.
func Ptr[T any](v *T) uintptr {
	escape(unsafe.Pointer(v))
	return uintptr(unsafe.Pointer(v))
}

var (
	never bool // never set: the store below only exists for escape analysis
	sink  unsafe.Pointer
)

//go:noinline
func escape(p unsafe.Pointer) {
	if never {
		sink = p
	}
}

// CString returns a NUL-terminated copy of s that lives on the Go heap.
func CString(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}

// GoString reads a NUL-terminated C string.
func GoString(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	var n int
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// BytesString reads a fixed-size, NUL-terminated char array.
func BytesString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// Global holds the entry points that need no instance.
type Global struct {
	GetInstanceProcAddr                  uintptr
	CreateInstance                       uintptr `vk:"vkCreateInstance"`
	EnumerateInstanceLayerProperties     uintptr `vk:"vkEnumerateInstanceLayerProperties"`
	EnumerateInstanceExtensionProperties uintptr `vk:"vkEnumerateInstanceExtensionProperties"`
}

// Instance holds instance-level entry points.
type Instance struct {
	DestroyInstance                        uintptr `vk:"vkDestroyInstance"`
	EnumeratePhysicalDevices               uintptr `vk:"vkEnumeratePhysicalDevices"`
	GetPhysicalDeviceProperties2           uintptr `vk:"vkGetPhysicalDeviceProperties2"`
	GetPhysicalDeviceFeatures2             uintptr `vk:"vkGetPhysicalDeviceFeatures2"`
	GetPhysicalDeviceMemoryProperties2     uintptr `vk:"vkGetPhysicalDeviceMemoryProperties2"`
	GetPhysicalDeviceQueueFamilyProperties uintptr `vk:"vkGetPhysicalDeviceQueueFamilyProperties"`
	GetPhysicalDeviceFormatProperties      uintptr `vk:"vkGetPhysicalDeviceFormatProperties"`
	EnumerateDeviceExtensionProperties     uintptr `vk:"vkEnumerateDeviceExtensionProperties"`
	CreateDevice                           uintptr `vk:"vkCreateDevice"`
	GetDeviceProcAddr                      uintptr `vk:"vkGetDeviceProcAddr"`
	CreateDebugUtilsMessengerEXT           uintptr `vk:"vkCreateDebugUtilsMessengerEXT" optional:"1"`
	DestroyDebugUtilsMessengerEXT          uintptr `vk:"vkDestroyDebugUtilsMessengerEXT" optional:"1"`
	SetDebugUtilsObjectNameEXT             uintptr `vk:"vkSetDebugUtilsObjectNameEXT" optional:"1"`
}

// Device holds device-level entry points.
type Device struct {
	DestroyDevice               uintptr `vk:"vkDestroyDevice"`
	GetDeviceQueue              uintptr `vk:"vkGetDeviceQueue"`
	DeviceWaitIdle              uintptr `vk:"vkDeviceWaitIdle"`
	CreateBuffer                uintptr `vk:"vkCreateBuffer"`
	DestroyBuffer               uintptr `vk:"vkDestroyBuffer"`
	GetBufferMemoryRequirements uintptr `vk:"vkGetBufferMemoryRequirements"`
	BindBufferMemory            uintptr `vk:"vkBindBufferMemory"`
	GetBufferDeviceAddress      uintptr `vk:"vkGetBufferDeviceAddress"`
	AllocateMemory              uintptr `vk:"vkAllocateMemory"`
	FreeMemory                  uintptr `vk:"vkFreeMemory"`
	MapMemory                   uintptr `vk:"vkMapMemory"`
	UnmapMemory                 uintptr `vk:"vkUnmapMemory"`
	CreateImage                 uintptr `vk:"vkCreateImage"`
	DestroyImage                uintptr `vk:"vkDestroyImage"`
	GetImageMemoryRequirements  uintptr `vk:"vkGetImageMemoryRequirements"`
	BindImageMemory             uintptr `vk:"vkBindImageMemory"`
	CreateImageView             uintptr `vk:"vkCreateImageView"`
	DestroyImageView            uintptr `vk:"vkDestroyImageView"`
	CreateSampler               uintptr `vk:"vkCreateSampler"`
	DestroySampler              uintptr `vk:"vkDestroySampler"`
	CreateCommandPool           uintptr `vk:"vkCreateCommandPool"`
	DestroyCommandPool          uintptr `vk:"vkDestroyCommandPool"`
	ResetCommandBuffer          uintptr `vk:"vkResetCommandBuffer"`
	AllocateCommandBuffers      uintptr `vk:"vkAllocateCommandBuffers"`
	FreeCommandBuffers          uintptr `vk:"vkFreeCommandBuffers"`
	BeginCommandBuffer          uintptr `vk:"vkBeginCommandBuffer"`
	EndCommandBuffer            uintptr `vk:"vkEndCommandBuffer"`
	QueueSubmit2                uintptr `vk:"vkQueueSubmit2"`
	CreateSemaphore             uintptr `vk:"vkCreateSemaphore"`
	DestroySemaphore            uintptr `vk:"vkDestroySemaphore"`
	WaitSemaphores              uintptr `vk:"vkWaitSemaphores"`
	SignalSemaphore             uintptr `vk:"vkSignalSemaphore"`
	GetSemaphoreCounterValue    uintptr `vk:"vkGetSemaphoreCounterValue"`
	CreateShaderModule          uintptr `vk:"vkCreateShaderModule"`
	DestroyShaderModule         uintptr `vk:"vkDestroyShaderModule"`
	CreateDescriptorSetLayout   uintptr `vk:"vkCreateDescriptorSetLayout"`
	DestroyDescriptorSetLayout  uintptr `vk:"vkDestroyDescriptorSetLayout"`
	CreatePipelineLayout        uintptr `vk:"vkCreatePipelineLayout"`
	DestroyPipelineLayout       uintptr `vk:"vkDestroyPipelineLayout"`
	CreateComputePipelines      uintptr `vk:"vkCreateComputePipelines"`
	DestroyPipeline             uintptr `vk:"vkDestroyPipeline"`
	CmdBindPipeline             uintptr `vk:"vkCmdBindPipeline"`
	CmdPushConstants            uintptr `vk:"vkCmdPushConstants"`
	CmdPushDescriptorSetKHR     uintptr `vk:"vkCmdPushDescriptorSetKHR" optional:"1"`
	CmdDispatch                 uintptr `vk:"vkCmdDispatch"`
	CmdDispatchBase             uintptr `vk:"vkCmdDispatchBase"`
	CmdDispatchIndirect         uintptr `vk:"vkCmdDispatchIndirect"`
	CmdCopyBuffer               uintptr `vk:"vkCmdCopyBuffer"`
	CmdCopyBufferToImage        uintptr `vk:"vkCmdCopyBufferToImage"`
	CmdCopyImageToBuffer        uintptr `vk:"vkCmdCopyImageToBuffer"`
	CmdCopyImage                uintptr `vk:"vkCmdCopyImage"`
	CmdFillBuffer               uintptr `vk:"vkCmdFillBuffer"`
	CmdPipelineBarrier2         uintptr `vk:"vkCmdPipelineBarrier2"`
}

var (
	loadOnce sync.Once
	global   Global
	loadErr  error
)

// Load opens the Vulkan loader (LUCENT_VULKAN_LIB overrides its path).
func Load() (*Global, error) {
	loadOnce.Do(func() {
		names := []string{"libvulkan.so.1", "libvulkan.so", "libvulkan.1.dylib", "libMoltenVK.dylib"}
		if p := os.Getenv("LUCENT_VULKAN_LIB"); p != "" {
			names = []string{p}
		}
		var lib uintptr
		for _, n := range names {
			if lib, loadErr = purego.Dlopen(n, purego.RTLD_NOW|purego.RTLD_GLOBAL); loadErr == nil {
				break
			}
		}
		if loadErr != nil {
			loadErr = fmt.Errorf("vulkan loader not found: %w", loadErr)
			return
		}
		global.GetInstanceProcAddr, loadErr = purego.Dlsym(lib, "vkGetInstanceProcAddr")
		if loadErr != nil {
			return
		}
		loadErr = fill(&global, func(n string) uintptr {
			return Call(global.GetInstanceProcAddr, 0, uintptr(unsafe.Pointer(CString(n))))
		})
	})
	if loadErr != nil {
		return nil, loadErr
	}
	return &global, nil
}

// LoadInstance resolves the instance-level entry points of instance.
func (g *Global) LoadInstance(instance uintptr) (*Instance, error) {
	in := &Instance{}
	err := fill(in, func(n string) uintptr {
		return Call(g.GetInstanceProcAddr, instance, uintptr(unsafe.Pointer(CString(n))))
	})
	return in, err
}

// LoadDevice resolves the device-level entry points of device.
func (in *Instance) LoadDevice(device uintptr) (*Device, error) {
	d := &Device{}
	err := fill(d, func(n string) uintptr {
		return Call(in.GetDeviceProcAddr, device, uintptr(unsafe.Pointer(CString(n))))
	})
	return d, err
}

func fill(table any, lookup func(string) uintptr) error {
	v := reflect.ValueOf(table).Elem()
	t := v.Type()
	for i := range t.NumField() {
		name := t.Field(i).Tag.Get("vk")
		if name == "" {
			continue
		}
		p := lookup(name)
		if p == 0 && t.Field(i).Tag.Get("optional") == "" {
			return fmt.Errorf("vulkan entry point %s is missing", name)
		}
		v.Field(i).SetUint(uint64(p))
	}
	return nil
}
