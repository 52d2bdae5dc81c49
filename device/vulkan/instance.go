package vulkan

import (
	"fmt"
	"log/slog"
	"regexp"
	"unsafe"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/vk"
)

const validationLayer = "VK_LAYER_KHRONOS_validation"

// instance is a VkInstance with its entry points and, when asked, a
// debug-utils messenger that forwards validation messages to Options.Debug.
type instance struct {
	fn        *vk.InstanceFuncs
	handle    vk.Instance
	messenger *vk.DebugMessenger
	release   func() // unregisters the create-time messenger's function
}

// messageID extracts the VUID (or other id) the validation layer puts in
// brackets at the start of its messages.
var messageID = regexp.MustCompile(`\[ ([A-Za-z0-9_\-:.]+) \]`)

func debugSink(opts device.Options) vk.DebugMessageFunc {
	sink := opts.Debug
	if sink == nil {
		logger := opts.Logger
		sink = func(m device.DebugMessage) {
			if logger != nil && m.Severity >= device.SeverityWarning {
				logger.Warn("vulkan validation", "severity", m.Severity.String(), "id", m.ID, "text", m.Text)
			}
		}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return func(severity vk.DebugUtilsMessageSeverityFlagsEXT, _ vk.DebugUtilsMessageTypeFlagsEXT, text string) {
		// The user's function runs under the driver's C frames: a panic
		// in it ends here, logged with the message it was handed.
		defer func() {
			if r := recover(); r != nil {
				logger.Error("vulkan: the debug message callback panicked", "panic", fmt.Sprint(r), "message", text)
			}
		}()
		msg := device.DebugMessage{Text: text}
		if m := messageID.FindStringSubmatch(text); m != nil {
			msg.ID = m[1]
		}
		switch {
		case severity&vk.DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT != 0:
			msg.Severity = device.SeverityError
		case severity&vk.DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT != 0:
			msg.Severity = device.SeverityWarning
		case severity&vk.DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT != 0:
			msg.Severity = device.SeverityInfo
		default:
			msg.Severity = device.SeverityVerbose
		}
		sink(msg)
	}
}

func instanceLayers() (map[string]bool, error) {
	var n uint32
	if err := vk.EnumerateInstanceLayerProperties(&n, nil).Err(); err != nil {
		return nil, err
	}
	props := make([]vk.LayerProperties, n+1)
	if err := vk.EnumerateInstanceLayerProperties(&n, &props[0]).Err(); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, p := range props[:n] {
		out[vk.ByteString(p.LayerName[:])] = true
	}
	return out, nil
}

func instanceExtensions() (map[string]bool, error) {
	var n uint32
	if err := vk.EnumerateInstanceExtensionProperties(nil, &n, nil).Err(); err != nil {
		return nil, err
	}
	props := make([]vk.ExtensionProperties, n+1)
	if err := vk.EnumerateInstanceExtensionProperties(nil, &n, &props[0]).Err(); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, p := range props[:n] {
		out[vk.ByteString(p.ExtensionName[:])] = true
	}
	return out, nil
}

const (
	debugSeverities = vk.DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | vk.DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT |
		vk.DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT
	debugTypes = vk.DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | vk.DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
		vk.DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT
)

// newInstance creates a Vulkan 1.3 instance, with the validation layer and a
// messenger when opts ask for them.
func newInstance(opts device.Options) (*instance, error) {
	if err := vk.Load(); err != nil {
		return nil, fmt.Errorf("vulkan: %w: %v", device.ErrUnsupported, err)
	}
	exts, err := instanceExtensions()
	if err != nil {
		return nil, fmt.Errorf("vulkan: enumerating instance extensions: %w", wrapResult(err))
	}
	var layers, extNames []string
	if opts.ValidationLayer {
		have, err := instanceLayers()
		if err != nil {
			return nil, fmt.Errorf("vulkan: enumerating layers: %w", wrapResult(err))
		}
		if !have[validationLayer] {
			return nil, fmt.Errorf("vulkan: %w: %s is not installed", device.ErrUnsupported, validationLayer)
		}
		layers = append(layers, validationLayer)
	}
	wantDebug := (opts.ValidationLayer || opts.Debug != nil) && exts["VK_EXT_debug_utils"]
	if wantDebug {
		extNames = append(extNames, "VK_EXT_debug_utils")
	}
	extNames = append(extNames, presentInstanceExtensions(exts)...)
	portability := exts["VK_KHR_portability_enumeration"]
	if portability {
		extNames = append(extNames, "VK_KHR_portability_enumeration")
	}
	in := &instance{}
	app := vk.ApplicationInfo{
		SType:            vk.STRUCTURE_TYPE_APPLICATION_INFO,
		PApplicationName: vk.CString("lucent"),
		PEngineName:      vk.CString("lucent"),
		ApiVersion:       vk.API_VERSION_1_3,
	}
	ci := vk.InstanceCreateInfo{
		SType:                   vk.STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		PApplicationInfo:        &app,
		EnabledLayerCount:       uint32(len(layers)),
		PpEnabledLayerNames:     vk.CStrings(layers),
		EnabledExtensionCount:   uint32(len(extNames)),
		PpEnabledExtensionNames: vk.CStrings(extNames),
	}
	if portability {
		ci.Flags = vk.INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
	}
	var sink vk.DebugMessageFunc
	if wantDebug {
		sink = debugSink(opts)
		// Chained into the create-info, the messenger also sees
		// vkCreateInstance and vkDestroyInstance.
		info, release := vk.DebugMessengerCreateInfo(debugSeverities, debugTypes, sink)
		in.release = release
		ci.PNext = unsafe.Pointer(info)
	}
	if err := vk.CreateInstance(&ci, nil, &in.handle).Err(); err != nil {
		if in.release != nil {
			in.release()
		}
		return nil, fmt.Errorf("vulkan: vkCreateInstance: %w", wrapResult(err))
	}
	if in.fn, err = vk.LoadInstance(in.handle); err != nil {
		in.destroy()
		return nil, fmt.Errorf("vulkan: %w", err)
	}
	if wantDebug {
		if in.messenger, err = vk.NewDebugMessenger(in.fn, in.handle, debugSeverities, debugTypes, sink); err != nil {
			in.destroy()
			return nil, fmt.Errorf("vulkan: vkCreateDebugUtilsMessengerEXT: %w", wrapResult(err))
		}
	}
	return in, nil
}

func (in *instance) destroy() {
	if in.handle == 0 {
		return
	}
	if in.messenger != nil {
		in.messenger.Close()
		in.messenger = nil
	}
	if in.fn != nil {
		in.fn.DestroyInstance(in.handle, nil)
	}
	in.handle = 0
	if in.release != nil {
		in.release()
		in.release = nil
	}
}

// physicalDevices lists the instance's physical devices.
func (in *instance) physicalDevices() ([]vk.PhysicalDevice, error) {
	var n uint32
	if err := in.fn.EnumeratePhysicalDevices(in.handle, &n, nil).Err(); err != nil {
		return nil, wrapResult(err)
	}
	if n == 0 {
		return nil, nil
	}
	pds := make([]vk.PhysicalDevice, n)
	if err := in.fn.EnumeratePhysicalDevices(in.handle, &n, &pds[0]).Err(); err != nil {
		return nil, wrapResult(err)
	}
	return pds[:n], nil
}
