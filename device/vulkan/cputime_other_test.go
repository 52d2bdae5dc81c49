//go:build !unix

package vulkan

func cpuSeconds() float64 { return 0 }
