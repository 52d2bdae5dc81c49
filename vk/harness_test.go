package vk

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/stretchr/testify/require"
)

const validationLayer = "VK_LAYER_KHRONOS_validation"

// messages collects what the validation layer reports.
type messages struct {
	mu   sync.Mutex
	list []string
}

func (m *messages) add(sev DebugUtilsMessageSeverityFlagsEXT, _ DebugUtilsMessageTypeFlagsEXT, msg string) {
	m.mu.Lock()
	m.list = append(m.list, sev.String()+": "+msg)
	m.mu.Unlock()
}

// take returns the messages so far and forgets them (for tests that provoke some).
func (m *messages) take() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.list
	m.list = nil
	return l
}

func (m *messages) all() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.list...)
}

// testInstance is a VkInstance with the validation layer and a messenger
// that fails the test on any warning or error.
type testInstance struct {
	inst Instance
	it   *InstanceFuncs
	msgs *messages
}

// testDevice is a logical device with one compute queue.
type testDevice struct {
	*testInstance
	phys   PhysicalDevice
	dev    Device
	dt     *DeviceFuncs
	family uint32
	queue  Queue
}

func hasLayer(name string) error {
	layers, err := InstanceLayers()
	if err != nil {
		return err
	}
	for _, l := range layers {
		if l == name {
			return nil
		}
	}
	return fmt.Errorf("layer %s not installed (have %v)", name, layers)
}

// newTestInstance creates an instance with validation on; validate=false
// gives a bare one (for benchmarks).
func newTestInstance(t testing.TB, validate bool) *testInstance {
	t.Helper()
	testenv.Need(t, "the Vulkan loader", Available())
	ti := &testInstance{msgs: &messages{}}
	app := &ApplicationInfo{
		SType:            STRUCTURE_TYPE_APPLICATION_INFO,
		PApplicationName: CString("lucent vk test"),
		ApiVersion:       API_VERSION_1_3,
	}
	ci := &InstanceCreateInfo{SType: STRUCTURE_TYPE_INSTANCE_CREATE_INFO, PApplicationInfo: app}
	if validate {
		testenv.Need(t, "the Khronos validation layer", hasLayer(validationLayer))
		dbg, release := DebugMessengerCreateInfo(
			DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT|DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
			DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT|DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT|DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
			ti.msgs.add)
		t.Cleanup(release)
		ci.PNext = unsafePointer(dbg)
		ci.EnabledLayerCount = 1
		ci.PpEnabledLayerNames = CStrings([]string{validationLayer})
		ci.EnabledExtensionCount = 1
		ci.PpEnabledExtensionNames = CStrings([]string{EXT_DEBUG_UTILS_EXTENSION_NAME})
	}
	r := CreateInstance(ci, nil, &ti.inst)
	if errors.Is(r, ERROR_INCOMPATIBLE_DRIVER) || errors.Is(r, ERROR_INITIALIZATION_FAILED) {
		testenv.Need(t, "a Vulkan driver", r)
	}
	require.NoError(t, r.Err(), "vkCreateInstance")
	it, err := LoadInstance(ti.inst)
	require.NoError(t, err)
	ti.it = it
	var messenger *DebugMessenger
	if validate {
		messenger, err = NewDebugMessenger(it, ti.inst,
			DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT|DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
			DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT|DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT|DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
			ti.msgs.add)
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		if messenger != nil {
			require.NoError(t, messenger.Close())
		}
		require.NoError(t, it.DestroyInstance(ti.inst, nil))
		require.Empty(t, ti.msgs.all(), "validation messages:\n%s", strings.Join(ti.msgs.all(), "\n"))
	})
	return ti
}

// newTestDevice creates a device with one compute queue on the first
// physical device that has one, enabling the given device extensions.
func newTestDevice(t testing.TB, validate bool, extensions ...string) *testDevice {
	t.Helper()
	td := &testDevice{testInstance: newTestInstance(t, validate)}
	var n uint32
	require.NoError(t, td.it.EnumeratePhysicalDevices(td.inst, &n, nil).Err())
	if n == 0 {
		testenv.Need(t, "a Vulkan physical device", errors.New("none enumerated"))
	}
	phys := make([]PhysicalDevice, n)
	require.NoError(t, td.it.EnumeratePhysicalDevices(td.inst, &n, &phys[0]).Err())
	found := false
	for _, p := range phys[:n] {
		var qn uint32
		require.NoError(t, td.it.GetPhysicalDeviceQueueFamilyProperties(p, &qn, nil))
		qs := make([]QueueFamilyProperties, qn)
		require.NoError(t, td.it.GetPhysicalDeviceQueueFamilyProperties(p, &qn, &qs[0]))
		for i, q := range qs[:qn] {
			if q.QueueFlags&QUEUE_COMPUTE_BIT != 0 {
				td.phys, td.family, found = p, uint32(i), true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		testenv.Need(t, "a Vulkan device with a compute queue", errors.New("none found"))
	}
	var props PhysicalDeviceProperties
	require.NoError(t, td.it.GetPhysicalDeviceProperties(td.phys, &props))
	if props.ApiVersion < API_VERSION_1_3 {
		testenv.Need(t, "a Vulkan 1.3 device", fmt.Errorf("%s has %d.%d", ByteString(props.DeviceName[:]), APIVersionMajor(props.ApiVersion), APIVersionMinor(props.ApiVersion)))
	}
	prio := float32(1)
	qci := DeviceQueueCreateInfo{
		SType:            STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		QueueFamilyIndex: td.family,
		QueueCount:       1,
		PQueuePriorities: &prio,
	}
	dci := &DeviceCreateInfo{
		SType:                   STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		QueueCreateInfoCount:    1,
		PQueueCreateInfos:       &qci,
		EnabledExtensionCount:   uint32(len(extensions)),
		PpEnabledExtensionNames: CStrings(extensions),
	}
	require.NoError(t, td.it.CreateDevice(td.phys, dci, nil, &td.dev).Err(), "vkCreateDevice")
	dt, err := LoadDevice(td.it, td.dev)
	require.NoError(t, err)
	td.dt = dt
	// Registered after the instance's cleanup, so it runs first.
	t.Cleanup(func() { require.NoError(t, dt.DestroyDevice(td.dev, nil)) })
	require.NoError(t, dt.GetDeviceQueue(td.dev, td.family, 0, &td.queue))
	return td
}

// memoryType finds a memory type allowed by bits with the wanted properties.
func (td *testDevice) memoryType(t testing.TB, bits uint32, want MemoryPropertyFlags) uint32 {
	var mp PhysicalDeviceMemoryProperties
	require.NoError(t, td.it.GetPhysicalDeviceMemoryProperties(td.phys, &mp))
	for i := uint32(0); i < mp.MemoryTypeCount; i++ {
		if bits&(1<<i) != 0 && mp.MemoryTypes[i].PropertyFlags&want == want {
			return i
		}
	}
	t.Fatalf("no memory type with %v in %#x", want, bits)
	return 0
}
