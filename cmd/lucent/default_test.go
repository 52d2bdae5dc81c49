package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// noVulkan are environments in which the vulkan backend finds nothing: a
// loader with no driver, and no loader at all.
var noVulkan = map[string][]string{
	"no driver": {"VK_DRIVER_FILES=/nonexistent", "VK_ICD_FILENAMES=/nonexistent"},
	"no loader": {"LUCENT_VULKAN_LIBRARY=/nonexistent"},
}

func TestInfoNamesEveryBackendAndTheDefault(t *testing.T) {
	needVulkanDevice(t)
	out, err := runLucent(t, []string{"LUCENT_BACKEND="}, "info")
	require.NoError(t, err, out)
	require.Contains(t, out, "backend vulkan: ")
	require.Contains(t, out, "backend cpu: 1 device(s)\ndevice 0: lucent cpu")
	require.Less(t, strings.Index(out, "backend vulkan"), strings.Index(out, "backend cpu"), "listed in the default order")
	require.Contains(t, out, "\ndefault: vulkan (the first of vulkan, cpu with a device")

	out, err = runLucent(t, []string{"LUCENT_BACKEND=cpu"}, "info")
	require.NoError(t, err, out)
	require.Contains(t, out, "\ndefault: cpu (LUCENT_BACKEND=cpu)")
	out, err = runLucent(t, []string{"LUCENT_BACKEND=no-such"}, "info")
	require.NoError(t, err, out)
	require.Contains(t, out, `default: none: device: LUCENT_BACKEND=no-such: no such backend: "no-such" (registered: [cpu vulkan]`)
}

func TestInfoWithoutVulkanDefaultsToCPU(t *testing.T) {
	for name, env := range noVulkan {
		t.Run(name, func(t *testing.T) {
			out, err := runLucent(t, append(env, "LUCENT_BACKEND="), "info")
			require.NoError(t, err, out)
			require.Contains(t, out, "backend vulkan: unavailable: ")
			require.Contains(t, out, "backend cpu: 1 device(s)")
			require.Contains(t, out, "\ndefault: cpu (")
		})
	}
}

func TestDemoWithoutVulkanRendersOnCPU(t *testing.T) {
	for name, env := range noVulkan {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "demo.png")
			out, err := runLucent(t, append(env, "LUCENT_BACKEND="), "demo", "-width", "32", "-height", "24", "-samples", "1", "-bands", "2", "-out", file)
			require.NoError(t, err, out)
			require.Contains(t, out, "backend: cpu\ndevice: lucent cpu")
			f, err := os.Open(file)
			require.NoError(t, err)
			defer f.Close()
			img, err := png.Decode(f)
			require.NoError(t, err)
			require.Equal(t, 32, img.Bounds().Dx())
			require.Equal(t, 24, img.Bounds().Dy())
			// The scene, not a blank image: sky at the top, a lit sphere or
			// floor lower down.
			top, mid := img.At(16, 0), img.At(16, 14)
			require.NotEqual(t, top, mid, "%s", out)
		})
	}
}

func TestDemoOnVulkanSaysSo(t *testing.T) {
	needVulkanDevice(t)
	file := filepath.Join(t.TempDir(), "demo.png")
	out, err := runLucent(t, []string{"LUCENT_BACKEND="}, "demo", "-width", "16", "-height", "8", "-samples", "1", "-bands", "1", "-out", file)
	require.NoError(t, err, out)
	require.Contains(t, out, "backend: vulkan\n")
	require.FileExists(t, file)
}

func TestDemoUnknownBackendIsAnError(t *testing.T) {
	out, err := runLucent(t, []string{"LUCENT_BACKEND=no-such"}, "demo", "-width", "8", "-height", "8", "-out", filepath.Join(t.TempDir(), "x.png"))
	require.Error(t, err)
	require.Contains(t, out, `lucent demo: device: LUCENT_BACKEND=no-such: no such backend: "no-such" (registered: [cpu vulkan]`)
}
