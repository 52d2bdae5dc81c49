//go:build !race

package kernel_test

// raceBuild: this test binary is built without -race (race_test.go).
const raceBuild = false
