package main

import (
	"bytes"
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
	// Every device this runtime supports has timeline semaphores (Vulkan 1.2).
	require.Equal(t, strings.Count(text, "\ndevice "), strings.Count(text, "timeline-semaphores"), text)
	// Each Vulkan device says how it binds resources, and why.
	vulkan := text[:strings.Index(text+"backend cpu", "backend cpu")]
	require.Equal(t, strings.Count(vulkan, "\ndevice "), strings.Count(vulkan, "\n  binding         "), vulkan)
	require.Regexp(t, `binding         (push descriptors|descriptor sets) \(.+\)`, vulkan)
}
