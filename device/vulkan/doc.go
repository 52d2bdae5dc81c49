// Package vulkan is lucent's Vulkan backend: it implements device.Interface on
// any Vulkan 1.2+ device (a discrete GPU, or Mesa's lavapipe on a CPU) and
// registers itself as "vulkan".
//
// The one design choice a reader must know: every stream owns one timeline
// semaphore, and every submission signals it at the next value. That value is
// the clock of the whole backend: events are timeline semaphores too,
// host waits are vkWaitSemaphores slices under a context.Context, and a closed
// resource is destroyed only once the timeline values of the last submissions
// that used it have been reached (see lifetime.go).
//
// Barriers are never written by users: the encoder derives them from what each
// command reads and writes (see encoder.go).
//
// Resource arguments are bound with push descriptors or with descriptor sets
// cached by the tuple of bound resources (see descset.go), chosen per driver
// by a table (binding.go): cached sets on lavapipe, push descriptors where a
// device has VK_KHR_push_descriptor and no row says otherwise. Setting
// LUCENT_VULKAN_BINDING=push or =sets (or LUCENT_VULKAN_NO_PUSH_DESCRIPTORS=1)
// before Open overrides the table; Capabilities.Binding and
// Capabilities.PushDescriptors report which path is in use.
//
// Software accels (accel_soft.go) are read by kernels through a
// storage-buffer binding on lavapipe before Mesa 23 and through their
// device address elsewhere (accelByBinding, as measured);
// LUCENT_ACCEL_READ=binding or =address before Open overrides that.
// Software-path meshes are built on the host (SAH, or the linear build for
// the FastBuild hint, as measured); LUCENT_SOFT_BUILD=gpu builds them on the
// device with lucent kernels (accel_lbvh.go), =linear or =sah pins a host
// build.
package vulkan
