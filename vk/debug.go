package vk

import (
	"fmt"
	"log/slog"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// DebugMessageFunc receives one message of VK_EXT_debug_utils (from the
// validation layer, the loader or the driver). It runs on the thread that
// made the Vulkan call and must not call Vulkan itself.
type DebugMessageFunc func(severity DebugUtilsMessageSeverityFlagsEXT, types DebugUtilsMessageTypeFlagsEXT, message string)

// One C callback serves every messenger: purego callbacks are a limited,
// never-freed resource, so each messenger's Go function is found by the id
// it passes as pUserData.
var debugCallbacks struct {
	once  sync.Once
	cb    uintptr
	mu    sync.RWMutex
	next  uintptr
	funcs map[uintptr]DebugMessageFunc
}

func debugTrampoline(severity uint32, types uint32, data *DebugUtilsMessengerCallbackDataEXT, user uintptr) uint32 {
	// A panic must not unwind through the driver's C frames (the process
	// would die there): it ends here, logged.
	defer func() {
		if r := recover(); r != nil {
			slog.Error("vk: a debug messenger callback panicked", "panic", fmt.Sprint(r))
		}
	}()
	debugCallbacks.mu.RLock()
	fn := debugCallbacks.funcs[user]
	debugCallbacks.mu.RUnlock()
	if fn != nil && data != nil {
		fn(DebugUtilsMessageSeverityFlagsEXT(severity), DebugUtilsMessageTypeFlagsEXT(types), GoString(data.PMessage))
	}
	return FALSE
}

// DebugMessengerCreateInfo registers fn and returns a create-info routing the
// chosen messages to it, for CreateDebugUtilsMessengerEXT or for chaining into
// InstanceCreateInfo.PNext (to see messages of vkCreateInstance and
// vkDestroyInstance). release unregisters fn; call it once nothing can use
// the create-info any more.
func DebugMessengerCreateInfo(severities DebugUtilsMessageSeverityFlagsEXT, types DebugUtilsMessageTypeFlagsEXT, fn DebugMessageFunc) (info *DebugUtilsMessengerCreateInfoEXT, release func()) {
	debugCallbacks.once.Do(func() {
		debugCallbacks.cb = purego.NewCallback(debugTrampoline)
		debugCallbacks.funcs = map[uintptr]DebugMessageFunc{}
	})
	debugCallbacks.mu.Lock()
	debugCallbacks.next++
	id := debugCallbacks.next
	debugCallbacks.funcs[id] = fn
	debugCallbacks.mu.Unlock()
	info = &DebugUtilsMessengerCreateInfoEXT{
		SType:           STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		MessageSeverity: severities,
		MessageType:     types,
		PfnUserCallback: PFN_DebugUtilsMessengerCallbackEXT(debugCallbacks.cb),
		// pUserData is an id, not a pointer: C keeps it after the call.
		PUserData: unsafe.Pointer(nil),
	}
	*(*uintptr)(unsafe.Pointer(&info.PUserData)) = id
	return info, func() {
		debugCallbacks.mu.Lock()
		delete(debugCallbacks.funcs, id)
		debugCallbacks.mu.Unlock()
	}
}

// DebugMessenger is a VkDebugUtilsMessengerEXT delivering messages to a Go function.
type DebugMessenger struct {
	it       *InstanceFuncs
	instance Instance
	handle   DebugUtilsMessengerEXT
	release  func()
}

// NewDebugMessenger creates a messenger on instance (which must have
// VK_EXT_debug_utils enabled) calling fn for the chosen messages.
func NewDebugMessenger(it *InstanceFuncs, instance Instance, severities DebugUtilsMessageSeverityFlagsEXT, types DebugUtilsMessageTypeFlagsEXT, fn DebugMessageFunc) (*DebugMessenger, error) {
	info, release := DebugMessengerCreateInfo(severities, types, fn)
	m := &DebugMessenger{it: it, instance: instance, release: release}
	if err := it.CreateDebugUtilsMessengerEXT(instance, info, nil, &m.handle).Err(); err != nil {
		release()
		return nil, err
	}
	return m, nil
}

// Close destroys the messenger and unregisters its function.
func (m *DebugMessenger) Close() error {
	err := m.it.DestroyDebugUtilsMessengerEXT(m.instance, m.handle, nil)
	m.release()
	return err
}
