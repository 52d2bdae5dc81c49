package device

// NativeHandles is the native-handles extension (see Extension): the API
// objects behind a device and its resources, for code that uses the API
// directly beside lucent (Custom commands, interop). Through the validation
// wrapper a handle must be alive.
type NativeHandles interface {
	// NativeDevice returns the API's device object (a VkDevice for Vulkan).
	NativeDevice() uintptr
	// NativeObject returns the API object behind a handle: for Vulkan a
	// VkBuffer (buffers, and a bindless array's slot table), a VkImage
	// (textures), a VkPipeline (shaders), a VkSemaphore (events; a
	// stream's timeline semaphore for streams), a VkSurfaceKHR (surfaces).
	NativeObject(h Handle) (uintptr, error)
}
