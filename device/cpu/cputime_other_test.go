//go:build !unix

package cpu_test

func cpuSeconds() float64 { return 0 }
