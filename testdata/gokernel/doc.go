// Package kernels is the positive corpus of the gokernel front end: kernels
// written in plain Go that must compile, and that the tests run on the CPU
// (kernel.Run) and, where a Vulkan device is present, on the device, against
// plain-Go references.
package kernels
