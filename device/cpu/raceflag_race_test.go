//go:build race

package cpu_test

// raceBuild says the race detector is compiled in (it allocates on its own).
const raceBuild = true
