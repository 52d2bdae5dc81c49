package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"    // registers the "cpu" backend
	_ "github.com/lucent-gpu/lucent/device/vulkan" // registers the "vulkan" backend
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/vk"
)

func init() {
	register("info", "list the backends and devices lucent sees, their limits and capabilities, and the default choice", runInfo)
}

func runInfo(args []string) error {
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	return writeInfo(os.Stdout)
}

// writeInfo prints every registered backend (those of DefaultOrder first)
// with, for each of its devices, what the driver reports (name, versions,
// memory heaps for Vulkan, limits that matter to compute) and the capability
// set the runtime derived from it (which paths are native and which
// lowered), then which backend the default choice (device.Open(ctx, ""))
// picks. A backend that cannot enumerate is reported, not an error.
func writeInfo(w io.Writer) error {
	ctx := context.Background()
	for _, name := range infoBackends() {
		adapters, err := device.Enumerate(ctx, name)
		if err != nil {
			fmt.Fprintf(w, "backend %s: unavailable: %v\n\n", name, err)
			continue
		}
		fmt.Fprintf(w, "backend %s: %d device(s)", name, len(adapters))
		var heaps [][]string
		if name == "vulkan" {
			fmt.Fprintf(w, ", Vulkan headers %d", vk.HEADER_VERSION)
			if heaps, err = memoryHeaps(); err != nil {
				fmt.Fprintf(w, " (memory heaps unavailable: %v)", err)
			}
		}
		fmt.Fprintln(w)
		for _, a := range adapters {
			fmt.Fprintf(w, "device %d: %s\n", a.Index, a.Name)
			fmt.Fprintf(w, "  type            %s\n", a.Type)
			fmt.Fprintf(w, "  vendor/device   %#04x/%#04x\n", a.VendorID, a.DeviceID)
			fmt.Fprintf(w, "  API version     %s\n", a.APIVersion)
			fmt.Fprintf(w, "  driver          %s\n", a.Driver)
			if a.Index < len(heaps) {
				for i, h := range heaps[a.Index] {
					fmt.Fprintf(w, "  memory heap %d   %s\n", i, h)
				}
			}
			dev, err := device.Open(ctx, name, device.WithDeviceIndex(a.Index))
			if err != nil {
				fmt.Fprintf(w, "  (cannot open: %v)\n", err)
				continue
			}
			writeCapabilities(w, dev.Capabilities())
			if err := dev.Close(); err != nil {
				return err
			}
		}
		fmt.Fprintln(w)
	}
	name, _, err := device.DefaultBackend(ctx)
	switch {
	case err != nil:
		fmt.Fprintf(w, "default: none: %v\n", err)
	case os.Getenv(device.EnvBackend) != "":
		fmt.Fprintf(w, "default: %s (%s=%s)\n", name, device.EnvBackend, os.Getenv(device.EnvBackend))
	default:
		fmt.Fprintf(w, "default: %s (the first of %s with a device; %s=<name> overrides)\n",
			name, strings.Join(device.DefaultOrder(), ", "), device.EnvBackend)
	}
	return nil
}

// infoBackends lists the registered backends, those of DefaultOrder first in
// that order, then the rest by name.
func infoBackends() []string {
	registered := device.Backends()
	var out []string
	for _, n := range device.DefaultOrder() {
		if slices.Contains(registered, n) {
			out = append(out, n)
		}
	}
	for _, n := range registered {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func writeCapabilities(w io.Writer, c device.Capabilities) {
	fmt.Fprintf(w, "  subgroup size   %d\n", c.WarpSize)
	fmt.Fprintf(w, "  workgroup       size ≤ %v, invocations ≤ %d, count ≤ %v\n",
		c.MaxWorkgroupSize, c.MaxWorkgroupInvocations, c.MaxWorkgroupCount)
	fmt.Fprintf(w, "  shared memory   %d bytes\n", c.MaxSharedMemory)
	fmt.Fprintf(w, "  push constants  %d bytes\n", c.MaxPushConstantSize)
	fmt.Fprintf(w, "  storage range   %s (larger buffers are bound by address)\n", byteSize(c.MaxStorageBufferRange))
	fmt.Fprintf(w, "  max buffer      %s\n", byteSize(c.MaxBufferSize))
	fmt.Fprintf(w, "  max texture     2D %d, 3D %d\n", c.MaxTextureSize2D, c.MaxTextureSize3D)
	if c.Binding != "" {
		fmt.Fprintf(w, "  binding         %s (%s)\n", c.Binding, c.BindingReason)
	}
	flags := []struct {
		name string
		on   bool
	}{
		{"timeline-semaphores", c.TimelineSemaphores},
		{"buffer-device-address", c.BufferDeviceAddress},
		{"push-descriptors", c.PushDescriptors},
		{"scalar-block-layout", c.ScalarBlockLayout},
		{"robust-buffer-access", c.RobustBufferAccess},
		{"float-atomic-add", c.AtomicFloat32Add},
		{"int64-atomics", c.AtomicInt64},
		{"int8", c.Int8}, {"int16", c.Int16}, {"int64", c.Int64},
		{"float16", c.Float16}, {"float64", c.Float64},
		{"8-bit-storage", c.Storage8}, {"16-bit-storage", c.Storage16},
		{"subgroup-ops", c.Subgroups}, {"shader-clock", c.ShaderClock},
		{"separate-copy-queue", c.SeparateCopyQueue},
		{"timings", c.Timings},
	}
	var have, lack []string
	for _, f := range flags {
		if f.on {
			have = append(have, f.name)
		} else {
			lack = append(lack, f.name)
		}
	}
	fmt.Fprintf(w, "  has             %s\n", strings.Join(have, " "))
	if len(lack) > 0 {
		fmt.Fprintf(w, "  lacks           %s\n", strings.Join(lack, " "))
	}
	fmt.Fprintf(w, "  paths           bindless=%s sampling=%s ray-query=%s ray-tracing=%s\n", c.Bindless, c.Sampling, c.RayQuery, c.RayTracing)
	if c.AccelRead != "" {
		fmt.Fprintf(w, "  accel reads     by %s (software traversal)\n", c.AccelRead)
	}
	if c.MaxBindlessTextures > 0 {
		fmt.Fprintf(w, "  bindless        %d texture slots per array (descriptor indexing)\n", c.MaxBindlessTextures)
	}
	if len(c.Workarounds) > 0 {
		fmt.Fprintf(w, "  workarounds     %s (this driver's bugs, which the code generator avoids or the checked mode reports)\n", strings.Join(c.Workarounds, " "))
		why := map[string]string{}
		for _, wa := range codegen.AllWorkarounds() {
			why[wa.Name] = wa.Why
		}
		for _, name := range c.Workarounds {
			if why[name] != "" {
				fmt.Fprintf(w, "    %-16s %s\n", name, why[name])
			}
		}
	} else {
		fmt.Fprintf(w, "  workarounds     none\n")
	}
}

func byteSize(n uint64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// memoryFlags shortens the registry's flag names for display.
var memoryFlags = strings.NewReplacer("vk_", "", "memory_property_", "", "_bit", "", "|", "+")

// memoryHeaps lists each physical device's memory heaps in enumeration order
// (the order the vulkan backend's adapter indices follow).
func memoryHeaps() ([][]string, error) {
	if err := vk.Load(); err != nil {
		return nil, err
	}
	app := vk.ApplicationInfo{SType: vk.STRUCTURE_TYPE_APPLICATION_INFO, PApplicationName: vk.CString("lucent info"), ApiVersion: vk.MakeAPIVersion(0, 1, 2, 0)}
	ci := vk.InstanceCreateInfo{SType: vk.STRUCTURE_TYPE_INSTANCE_CREATE_INFO, PApplicationInfo: &app}
	var inst vk.Instance
	if err := vk.CreateInstance(&ci, nil, &inst).Err(); err != nil {
		return nil, fmt.Errorf("vkCreateInstance: %w", err)
	}
	it, err := vk.LoadInstance(inst)
	if err != nil {
		return nil, err
	}
	defer it.DestroyInstance(inst, nil)
	var n uint32
	if err := it.EnumeratePhysicalDevices(inst, &n, nil).Err(); err != nil {
		return nil, err
	}
	pds := make([]vk.PhysicalDevice, n)
	if n > 0 {
		if err := it.EnumeratePhysicalDevices(inst, &n, &pds[0]).Err(); err != nil {
			return nil, err
		}
	}
	out := make([][]string, len(pds))
	for i, pd := range pds {
		var mp vk.PhysicalDeviceMemoryProperties
		if err := it.GetPhysicalDeviceMemoryProperties(pd, &mp); err != nil {
			return nil, err
		}
		for h := uint32(0); h < mp.MemoryHeapCount; h++ {
			heap := mp.MemoryHeaps[h]
			s := byteSize(uint64(heap.Size))
			if heap.Flags&vk.MEMORY_HEAP_DEVICE_LOCAL_BIT != 0 {
				s += " device-local"
			}
			var kinds []string
			for t := uint32(0); t < mp.MemoryTypeCount; t++ {
				if mp.MemoryTypes[t].HeapIndex == h {
					kinds = append(kinds, memoryFlags.Replace(strings.ToLower(mp.MemoryTypes[t].PropertyFlags.String())))
				}
			}
			out[i] = append(out[i], fmt.Sprintf("%s, types: %s", s, strings.Join(kinds, "; ")))
		}
	}
	return out, nil
}
