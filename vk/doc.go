// Package vk is the Vulkan API for Go, generated from the Khronos registry
// (vk.xml) and called through purego: no cgo, the loader (libvulkan) is
// opened at run time.
//
// # Names
//
// The Vk/vk/VK_ prefixes are dropped, the rest is spelled as in the registry:
// VkInstanceCreateInfo is InstanceCreateInfo, vkCreateInstance is
// CreateInstance, VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO is
// STRUCTURE_TYPE_INSTANCE_CREATE_INFO, PFN_vkAllocationFunction is
// PFN_AllocationFunction, and struct members get an upper-case first letter
// (sType is SType). Enum and bitmask values have String methods printing the
// registry names (bitmasks join them with |).
//
// # Commands
//
// Global commands (CreateInstance, EnumerateInstance*) are package functions.
// Instance-level commands are methods of *InstanceFuncs (LoadInstance),
// device-level commands methods of *DeviceFuncs (LoadDevice): each table holds
// the function pointers of one VkInstance or VkDevice, so several devices can
// be driven at once. A command returning VkResult returns Result; a void
// command returns error (always nil once loaded); a command returning a value
// returns (value, error). A command the driver or the enabled extensions lack
// is not loaded, and calling it returns an error naming it (a Result for which
// errors.Is(err, ErrMissingCommand) holds) instead of crashing.
//
// Each call is one Go→C transition (runtime.cgocall, as purego uses); on
// amd64 the bindings use their own System V trampoline so that a call does
// not allocate. Recording many vkCmd* commands is cheaper through a
// CommandBatch, which makes them all in one transition at Flush; Begin and
// EndCommandBuffer can travel in it too (a failed one stops the batch, and
// Flush reports it). CountCalls counts the calls and transitions, for
// diagnostics.
//
// # The Go-memory rule
//
// C may read Go memory only through the arguments of a call, for the duration
// of that call. Every pointer argument passes through purego.SyscallN, whose
// //go:uintptrescapes parameters move the pointee to the heap (Go's heap does
// not move) and keep it alive until the call returns. Pointer members of
// generated structs are real Go pointer types (*T, **byte, unsafe.Pointer for
// pNext and void*), so everything reachable from an argument — pNext chains,
// arrays, strings — is seen by the garbage collector and stays alive and in
// place for the call. Nothing else is needed: build create-infos from ordinary
// Go values and pass their address. The one exception is a union member that
// is a host pointer (e.g. DeviceOrHostAddressKHR.HostAddress): union storage is
// raw bytes the collector does not scan, so such memory must be kept alive by
// the caller (runtime.Pinner, or C memory). Memory a driver keeps after a call
// returns (e.g. a mapped pointer's target, pUserData) must not be Go memory
// unless pinned.
//
// # sType
//
// The caller fills sType, as in C. Each struct with a fixed sType has a
// StructureType method returning it:
//
//	ci := vk.InstanceCreateInfo{SType: vk.STRUCTURE_TYPE_INSTANCE_CREATE_INFO}
//
// The bindings target 64-bit platforms (amd64, arm64, ...).
package vk

//go:generate go run ../internal/gen/vkgen -out .
