package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestInfoListsDevicesAndCapabilities(t *testing.T) {
	needVulkanDevice(t)
	var out bytes.Buffer
	require.NoError(t, writeInfo(&out))
	text := out.String()
	require.Contains(t, text, "device 0: ")
	for _, want := range []string{"API version", "memory heap 0", "subgroup size", "storage range", "has ", "paths "} {
		require.Contains(t, text, want)
	}
	// Each device says how it builds acceleration structures.
	require.Equal(t, strings.Count(text, "\ndevice "), strings.Count(text, " ray-tracing="), text)
	if os.Getenv("LUCENT_EXPECT_SAMPLING") == "native" && os.Getenv("LUCENT_ACCEL") != "software" {
		require.Contains(t, text, " ray-tracing=native", "Mesa 25's lavapipe builds acceleration structures")
	}
	// Each device lists its driver workarounds: on Mesa 22, loop exits in
	// flag form; none on Mesa 25.
	require.Equal(t, strings.Count(text, "\ndevice "), strings.Count(text, "\n  workarounds     "), text)
	if strings.Contains(text, "llvmpipe (Mesa 22.") {
		require.Contains(t, text, "  workarounds     loop-exit-flags ", text)
		// each with what it is for
		require.Contains(t, text, "\n    loop-limit       a thread's loops end silently after 65535 iterations", text)
	}
	if strings.Contains(text, "llvmpipe (Mesa 25.") {
		require.Contains(t, text, "  workarounds     none\n", text)
	}
	// Every device this runtime supports has timeline semaphores (Vulkan 1.2).
	require.Equal(t, strings.Count(text, "\ndevice "), strings.Count(text, "timeline-semaphores"), text)
	// Each Vulkan device says how it binds resources, and why.
	vulkan := text[:strings.Index(text+"backend cpu", "backend cpu")]
	require.Equal(t, strings.Count(vulkan, "\ndevice "), strings.Count(vulkan, "\n  binding         "), vulkan)
	require.Regexp(t, `binding         (push descriptors|descriptor sets) \(.+\)`, vulkan)
}
