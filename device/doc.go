// Package device is lucent's runtime: the backend contract, the registry that
// finds backends, the commands a stream runs, and the typed API users call.
//
// The one design choice to know: a backend implements Interface, a small
// handle-based contract (every resource is a uint64 Handle) modelled on
// LuisaCompute's DeviceInterface, and everything else — Buffer[T], Image[T],
// Stream, Event, Shader, BindlessArray and the validation wrapper — is written
// once, here, on top of it. Backends register from init (database/sql style):
//
//	import _ "github.com/lucent-gpu/lucent/device/vulkan"
//
//	dev, err := device.Open(ctx, "vulkan")
//
// Commands are plain structs behind one sealed interface (Command); a backend
// encodes a CommandList with one type switch and derives its barriers from
// each command's Usages.
package device
