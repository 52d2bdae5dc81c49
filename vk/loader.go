package vk

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// ErrNoLoader is matched (errors.Is) by the error Load returns when no
// Vulkan loader library can be opened.
var ErrNoLoader = errors.New("vk: Vulkan loader not available")

// LibraryEnv names an environment variable that, when set, is the only path
// Load tries for the Vulkan loader library.
const LibraryEnv = "LUCENT_VULKAN_LIBRARY"

var loader struct {
	once   sync.Once
	err    error
	gipa   uintptr
	global [instanceBase]uintptr
}

// Load opens the Vulkan loader (libvulkan.so.1, libvulkan.1.dylib or
// libMoltenVK.dylib, vulkan-1.dll) and resolves the global commands. It runs
// once; later calls return the first result. Global commands call it
// themselves.
func Load() error {
	loader.once.Do(func() {
		names := libraryNames
		if p := os.Getenv(LibraryEnv); p != "" {
			names = []string{p}
		}
		var errs []error
		for _, name := range names {
			h, err := openLibrary(name)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			sym, err := lookupSymbol(h, "vkGetInstanceProcAddr")
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
				continue
			}
			loader.gipa = sym
			for i := range loader.global {
				loader.global[i] = resolve(i, func(n *byte) uintptr { return gipa(0, n) })
			}
			return
		}
		loader.err = fmt.Errorf("%w: %w", ErrNoLoader, errors.Join(errs...))
	})
	return loader.err
}

// Available reports whether the Vulkan loader can be used (nil) or why not.
func Available() error { return Load() }

func gipa(instance Instance, name *byte) uintptr {
	r, _, _ := purego.SyscallN(loader.gipa, uintptr(instance), uintptr(unsafe.Pointer(name)))
	return r
}

func globalFn(idx int) uintptr {
	if Load() != nil {
		return 0
	}
	return loader.global[idx]
}

// GetInstanceProcAddr calls vkGetInstanceProcAddr: the address of command
// name for instance (0 for the global commands), or 0 when there is none.
func GetInstanceProcAddr(instance Instance, name string) uintptr {
	if Load() != nil {
		return 0
	}
	return gipa(instance, CString(name))
}

// resolve looks command idx up by its registry name, then by its aliases.
func resolve(idx int, get func(*byte) uintptr) uintptr {
	if p := get(CString(commandNames[idx])); p != 0 {
		return p
	}
	for _, a := range commandAliases[idx] {
		if p := get(CString(a)); p != 0 {
			return p
		}
	}
	return 0
}

// LoadInstance resolves the instance-level commands of instance.
func LoadInstance(instance Instance) (*InstanceFuncs, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	if instance == 0 {
		return nil, errors.New("vk: LoadInstance: null VkInstance")
	}
	t := &InstanceFuncs{}
	for i := range t.fn {
		t.fn[i] = resolve(instanceBase+i, func(n *byte) uintptr { return gipa(instance, n) })
	}
	t.registerFloats()
	return t, nil
}

// LoadDevice resolves the device-level commands of device through the
// instance's vkGetDeviceProcAddr, so calls skip the loader's trampolines.
func LoadDevice(it *InstanceFuncs, device Device) (*DeviceFuncs, error) {
	if device == 0 {
		return nil, errors.New("vk: LoadDevice: null VkDevice")
	}
	var gdpa uintptr
	if it != nil {
		gdpa = it.fn[cmdGetDeviceProcAddr-instanceBase]
	}
	if gdpa == 0 {
		return nil, missing(cmdGetDeviceProcAddr)
	}
	t := &DeviceFuncs{}
	for i := range t.fn {
		t.fn[i] = resolve(deviceBase+i, func(n *byte) uintptr {
			r, _, _ := purego.SyscallN(gdpa, uintptr(device), uintptr(unsafe.Pointer(n)))
			return r
		})
	}
	t.registerFloats()
	return t, nil
}

// Loaded reports whether the instance-level command name (e.g.
// "vkGetPhysicalDeviceProperties2") was resolved.
func (t *InstanceFuncs) Loaded(name string) bool { return t.ProcAddr(name) != 0 }

// Loaded reports whether the device-level command name (e.g.
// "vkCmdDispatch") was resolved.
func (t *DeviceFuncs) Loaded(name string) bool { return t.ProcAddr(name) != 0 }

// ProcAddr returns the resolved address of the instance-level command name
// (its registry name or an alias), or 0.
func (t *InstanceFuncs) ProcAddr(name string) uintptr {
	if t == nil {
		return 0
	}
	return procAddr(t.fn[:], instanceBase, name)
}

// ProcAddr returns the resolved address of the device-level command name
// (its registry name or an alias), or 0.
func (t *DeviceFuncs) ProcAddr(name string) uintptr {
	if t == nil {
		return 0
	}
	return procAddr(t.fn[:], deviceBase, name)
}

func procAddr(fn []uintptr, base int, name string) uintptr {
	for i, p := range fn {
		if commandNames[base+i] == name {
			return p
		}
		for _, a := range commandAliases[base+i] {
			if a == name {
				return p
			}
		}
	}
	return 0
}
