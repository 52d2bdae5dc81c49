package vk_test

import (
	"errors"
	"fmt"
	"log"
	"unsafe"

	"github.com/lucent-gpu/lucent/vk"
)

// Creating an instance, listing the physical devices and creating a device
// with one compute queue.
func Example() {
	if err := vk.Available(); err != nil {
		log.Fatal(err) // no Vulkan loader on this machine
	}
	var inst vk.Instance
	err := vk.CreateInstance(&vk.InstanceCreateInfo{
		SType: vk.STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		PApplicationInfo: &vk.ApplicationInfo{
			SType:      vk.STRUCTURE_TYPE_APPLICATION_INFO,
			ApiVersion: vk.API_VERSION_1_3,
		},
	}, nil, &inst).Err()
	if err != nil {
		log.Fatal(err)
	}
	it, err := vk.LoadInstance(inst)
	if err != nil {
		log.Fatal(err)
	}
	defer it.DestroyInstance(inst, nil)

	var n uint32
	if err := it.EnumeratePhysicalDevices(inst, &n, nil).Err(); err != nil || n == 0 {
		log.Fatal("no device: ", err)
	}
	phys := make([]vk.PhysicalDevice, n)
	if err := it.EnumeratePhysicalDevices(inst, &n, &phys[0]).Err(); err != nil {
		log.Fatal(err)
	}
	var props vk.PhysicalDeviceProperties
	it.GetPhysicalDeviceProperties(phys[0], &props)
	fmt.Println(vk.ByteString(props.DeviceName[:]), props.DeviceType)

	prio := float32(1)
	var dev vk.Device
	err = it.CreateDevice(phys[0], &vk.DeviceCreateInfo{
		SType:                vk.STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		QueueCreateInfoCount: 1,
		PQueueCreateInfos: &vk.DeviceQueueCreateInfo{
			SType:            vk.STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
			QueueCount:       1,
			PQueuePriorities: &prio,
		},
	}, nil, &dev).Err()
	if err != nil {
		log.Fatal(err)
	}
	dt, err := vk.LoadDevice(it, dev)
	if err != nil {
		log.Fatal(err)
	}
	defer dt.DestroyDevice(dev, nil)
	var queue vk.Queue
	dt.GetDeviceQueue(dev, 0, 0, &queue)
}

// A pNext chain is a chain of pointers to ordinary Go values.
func ExampleInstanceFuncs_GetPhysicalDeviceFeatures2() {
	var it *vk.InstanceFuncs // from vk.LoadInstance
	var phys vk.PhysicalDevice
	v13 := vk.PhysicalDeviceVulkan13Features{SType: vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES}
	v12 := vk.PhysicalDeviceVulkan12Features{
		SType: vk.STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
		PNext: unsafe.Pointer(&v13),
	}
	features := vk.PhysicalDeviceFeatures2{
		SType: (*vk.PhysicalDeviceFeatures2).StructureType(nil),
		PNext: unsafe.Pointer(&v12),
	}
	if err := it.GetPhysicalDeviceFeatures2(phys, &features); err != nil {
		log.Fatal(err)
	}
	fmt.Println(v12.TimelineSemaphore == vk.TRUE, v13.Synchronization2 == vk.TRUE)
}

// Results: SUCCESS and the statuses are not errors; error codes are.
func ExampleResult_Err() {
	fmt.Println(vk.SUCCESS.Err(), vk.TIMEOUT.Err(), vk.INCOMPLETE.Err())
	err := fmt.Errorf("allocating: %w", vk.ERROR_OUT_OF_DEVICE_MEMORY.Err())
	fmt.Println(err, errors.Is(err, vk.ERROR_OUT_OF_DEVICE_MEMORY))
	// Output:
	// <nil> <nil> <nil>
	// allocating: vk: VK_ERROR_OUT_OF_DEVICE_MEMORY true
}

// A command the driver or the enabled extensions lack reports itself.
func ExampleErrMissingCommand() {
	var dt vk.DeviceFuncs // nothing loaded
	err := dt.CmdDispatch(0, 1, 1, 1)
	fmt.Println(errors.Is(err, vk.ErrMissingCommand))
	fmt.Println(err)
	// Output:
	// true
	// vk: vkCmdDispatch is not loaded (the driver or the enabled extensions lack it)
}

// Bitmask values print as the registry names of their bits.
func ExampleBufferUsageFlags_String() {
	usage := vk.BUFFER_USAGE_STORAGE_BUFFER_BIT | vk.BUFFER_USAGE_TRANSFER_DST_BIT
	fmt.Println(usage)
	fmt.Println(vk.FORMAT_R32_SFLOAT)
	// Output:
	// VK_BUFFER_USAGE_TRANSFER_DST_BIT|VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
	// VK_FORMAT_R32_SFLOAT
}

func ExampleMakeAPIVersion() {
	v := vk.MakeAPIVersion(0, 1, 3, 239)
	fmt.Println(vk.APIVersionMajor(v), vk.APIVersionMinor(v), vk.APIVersionPatch(v))
	// Output: 1 3 239
}

// Validation messages delivered to a Go function.
func ExampleNewDebugMessenger() {
	var it *vk.InstanceFuncs // from vk.LoadInstance, with VK_EXT_debug_utils enabled
	var inst vk.Instance
	m, err := vk.NewDebugMessenger(it, inst,
		vk.DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT|vk.DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		vk.DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
		func(sev vk.DebugUtilsMessageSeverityFlagsEXT, _ vk.DebugUtilsMessageTypeFlagsEXT, msg string) {
			log.Printf("%v: %s", sev, msg)
		})
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
}

// Recording many commands in one Go→C transition.
func ExampleCommandBatch() {
	var dt *vk.DeviceFuncs // from vk.LoadDevice
	var cb vk.CommandBuffer
	var pipeline vk.Pipeline
	batch := dt.NewCommandBatch()
	batch.CmdBindPipeline(cb, vk.PIPELINE_BIND_POINT_COMPUTE, pipeline)
	for i := uint32(0); i < 100; i++ {
		batch.CmdDispatch(cb, 64, 1, 1)
	}
	batch.Flush() // the 101 calls happen here, in order
}
