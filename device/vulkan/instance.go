package vulkan

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/internal/vkc"
)

const validationLayer = "VK_LAYER_KHRONOS_validation"

// instance is a VkInstance with its entry points and, when asked, a
// debug-utils messenger that forwards validation messages to Options.Debug.
type instance struct {
	g         *vkc.Global
	fn        *vkc.Instance
	handle    uintptr
	messenger uint64
	sinkID    uintptr
	sinkKey   *byte // its address is the messenger's user data
}

// The debug callback is one C function for the process (purego callbacks are
// never freed); the messenger's user data picks the Options.Debug to call.
var (
	debugOnce     sync.Once
	debugCallback uintptr
	debugSinks    sync.Map // uintptr -> func(device.DebugMessage)
)

func debugTrampoline(severity, types uint32, d *vkc.DebugUtilsMessengerCallbackDataEXT, user unsafe.Pointer) uintptr {
	f, ok := debugSinks.Load(uintptr(user))
	if !ok || d == nil {
		return 0
	}
	msg := device.DebugMessage{
		ID:   vkc.GoString(d.PMessageIdName),
		Text: vkc.GoString(d.PMessage),
	}
	switch {
	case severity&vkc.DebugUtilsMessageSeverityErrorBitEXT != 0:
		msg.Severity = device.SeverityError
	case severity&vkc.DebugUtilsMessageSeverityWarningBitEXT != 0:
		msg.Severity = device.SeverityWarning
	case severity&vkc.DebugUtilsMessageSeverityInfoBitEXT != 0:
		msg.Severity = device.SeverityInfo
	default:
		msg.Severity = device.SeverityVerbose
	}
	f.(func(device.DebugMessage))(msg)
	return 0
}

func instanceLayers(g *vkc.Global) (map[string]bool, error) {
	var n uint32
	if err := vkc.CallResult(g.EnumerateInstanceLayerProperties, vkc.Ptr(&n), 0).Err(); err != nil {
		return nil, err
	}
	props := make([]vkc.LayerProperties, n+1)
	if err := vkc.CallResult(g.EnumerateInstanceLayerProperties, vkc.Ptr(&n), uintptr(unsafe.Pointer(&props[0]))).Err(); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, p := range props[:n] {
		out[vkc.BytesString(p.LayerName[:])] = true
	}
	return out, nil
}

func instanceExtensions(g *vkc.Global) (map[string]bool, error) {
	var n uint32
	if err := vkc.CallResult(g.EnumerateInstanceExtensionProperties, 0, vkc.Ptr(&n), 0).Err(); err != nil {
		return nil, err
	}
	props := make([]vkc.ExtensionProperties, n+1)
	if err := vkc.CallResult(g.EnumerateInstanceExtensionProperties, 0, vkc.Ptr(&n), uintptr(unsafe.Pointer(&props[0]))).Err(); err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, p := range props[:n] {
		out[vkc.BytesString(p.ExtensionName[:])] = true
	}
	return out, nil
}

// cStrings keeps NUL-terminated copies of names and an array of pointers to them.
func cStrings(names []string) (unsafe.Pointer, []*byte) {
	if len(names) == 0 {
		return nil, nil
	}
	ptrs := make([]*byte, len(names))
	for i, n := range names {
		ptrs[i] = vkc.CString(n)
	}
	return unsafe.Pointer(&ptrs[0]), ptrs
}

// newInstance creates a Vulkan 1.3 (or the loader's best) instance, with the
// validation layer and a messenger when opts ask for them.
func newInstance(opts device.Options) (*instance, error) {
	g, err := vkc.Load()
	if err != nil {
		return nil, fmt.Errorf("vulkan: %w: %v", device.ErrUnsupported, err)
	}
	exts, err := instanceExtensions(g)
	if err != nil {
		return nil, fmt.Errorf("vulkan: enumerating instance extensions: %w", wrapResult(err))
	}
	var layers, extNames []string
	if opts.ValidationLayer {
		have, err := instanceLayers(g)
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
	portability := exts["VK_KHR_portability_enumeration"]
	if portability {
		extNames = append(extNames, "VK_KHR_portability_enumeration")
	}
	in := &instance{g: g}
	app := vkc.ApplicationInfo{
		SType:            vkc.StructureTypeApplicationInfo,
		PApplicationName: unsafe.Pointer(vkc.CString("lucent")),
		PEngineName:      unsafe.Pointer(vkc.CString("lucent")),
		ApiVersion:       vkc.APIVersion13,
	}
	layerPtr, layerKeep := cStrings(layers)
	extPtr, extKeep := cStrings(extNames)
	ci := vkc.InstanceCreateInfo{
		SType:                   vkc.StructureTypeInstanceCreateInfo,
		PApplicationInfo:        unsafe.Pointer(&app),
		EnabledLayerCount:       uint32(len(layers)),
		PpEnabledLayerNames:     layerPtr,
		EnabledExtensionCount:   uint32(len(extNames)),
		PpEnabledExtensionNames: extPtr,
	}
	if portability {
		ci.Flags = 1 // VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
	}
	var mci vkc.DebugUtilsMessengerCreateInfoEXT
	if wantDebug {
		debugOnce.Do(func() { debugCallback = purego.NewCallback(debugTrampoline) })
		sink := opts.Debug
		if sink == nil {
			logger := opts.Logger
			sink = func(m device.DebugMessage) {
				if logger != nil && m.Severity >= device.SeverityWarning {
					logger.Warn("vulkan validation", "severity", m.Severity.String(), "id", m.ID, "text", m.Text)
				}
			}
		}
		in.sinkKey = new(byte)
		in.sinkID = uintptr(unsafe.Pointer(in.sinkKey))
		debugSinks.Store(in.sinkID, sink)
		mci = vkc.DebugUtilsMessengerCreateInfoEXT{
			SType: vkc.StructureTypeDebugUtilsMessengerCreateInfoEXT,
			MessageSeverity: vkc.DebugUtilsMessageSeverityWarningBitEXT | vkc.DebugUtilsMessageSeverityErrorBitEXT |
				vkc.DebugUtilsMessageSeverityInfoBitEXT,
			MessageType: vkc.DebugUtilsMessageTypeGeneralBitEXT | vkc.DebugUtilsMessageTypeValidationBitEXT |
				vkc.DebugUtilsMessageTypePerformanceBitEXT,
			PfnUserCallback: debugCallback,
			PUserData:       unsafe.Pointer(in.sinkKey),
		}
		ci.PNext = unsafe.Pointer(&mci)
	}
	if err := vkc.CallResult(g.CreateInstance, vkc.Ptr(&ci), 0, vkc.Ptr(&in.handle)).Err(); err != nil {
		debugSinks.Delete(in.sinkID)
		return nil, fmt.Errorf("vulkan: vkCreateInstance: %w", wrapResult(err))
	}
	_, _ = layerKeep, extKeep
	if in.fn, err = g.LoadInstance(in.handle); err != nil {
		in.destroy()
		return nil, fmt.Errorf("vulkan: %w", err)
	}
	if wantDebug && in.fn.CreateDebugUtilsMessengerEXT != 0 {
		mci.PNext = nil
		if err := vkc.CallResult(in.fn.CreateDebugUtilsMessengerEXT, in.handle, vkc.Ptr(&mci), 0, vkc.Ptr(&in.messenger)).Err(); err != nil {
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
	if in.messenger != 0 {
		vkc.Call(in.fn.DestroyDebugUtilsMessengerEXT, in.handle, uintptr(in.messenger), 0)
		in.messenger = 0
	}
	destroy := in.fn
	if destroy != nil {
		vkc.Call(destroy.DestroyInstance, in.handle, 0)
	}
	in.handle = 0
	if in.sinkID != 0 {
		debugSinks.Delete(in.sinkID)
	}
}

// physicalDevices lists the instance's physical devices.
func (in *instance) physicalDevices() ([]uintptr, error) {
	var n uint32
	if err := vkc.CallResult(in.fn.EnumeratePhysicalDevices, in.handle, vkc.Ptr(&n), 0).Err(); err != nil {
		return nil, wrapResult(err)
	}
	if n == 0 {
		return nil, nil
	}
	pds := make([]uintptr, n)
	if err := vkc.CallResult(in.fn.EnumeratePhysicalDevices, in.handle, vkc.Ptr(&n), uintptr(unsafe.Pointer(&pds[0]))).Err(); err != nil {
		return nil, wrapResult(err)
	}
	return pds[:n], nil
}
