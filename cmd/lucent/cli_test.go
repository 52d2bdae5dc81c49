package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// exitCode is the exit status of a runLucent child.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var exit *exec.ExitError
	if err == nil {
		return 0
	}
	require.True(t, errors.As(err, &exit), "%v", err)
	return exit.ExitCode()
}

// TestHelpAndBadCommandLines: help, -h and --help print the usage and
// succeed; a flag a command does not know, a bad value or an argument left
// over is a usage error (exit 2, the usage printed once), never ignored.
func TestHelpAndBadCommandLines(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want []string
		not  []string
	}{
		{[]string{"help"}, 0, []string{"usage: lucent <command>", "demo ", "info "}, []string{"unknown command"}},
		{[]string{"-h"}, 0, []string{"usage: lucent <command>"}, []string{"unknown command"}},
		{[]string{"--help"}, 0, []string{"usage: lucent <command>"}, []string{"unknown command"}},
		{[]string{"help", "demo"}, 0, []string{"usage: lucent demo [flags]", "-samples int"}, []string{"help requested"}},
		{[]string{"demo", "-h"}, 0, []string{"usage: lucent demo [flags]", "-out string"}, []string{"help requested"}},
		{[]string{"info", "--help"}, 0, []string{"usage: lucent info\n"}, []string{"help requested", "backend "}},
		{[]string{"nope"}, 2, []string{`unknown command "nope"`, "usage: lucent <command>"}, nil},
		{[]string{"info", "-bogus"}, 2, []string{"flag provided but not defined: -bogus", "usage: lucent info"}, []string{"lucent info: flag", "backend "}},
		{[]string{"info", "extra"}, 2, []string{`lucent info takes no arguments, got ["extra"]`}, []string{"backend "}},
		{[]string{"demo", "-width", "x"}, 2, []string{`invalid value "x" for flag -width`}, []string{"backend:"}},
		{[]string{"demo", "out.png"}, 2, []string{`lucent demo takes no arguments, got ["out.png"]`}, []string{"backend:"}},
	} {
		t.Run(filepath.Join(tc.args...), func(t *testing.T) {
			dir := t.TempDir()
			cmd := append([]string{}, tc.args...)
			out, err := runLucentIn(t, dir, nil, cmd...)
			require.Equal(t, tc.code, exitCode(t, err), out)
			for _, w := range tc.want {
				require.Contains(t, out, w)
			}
			for _, n := range tc.not {
				require.NotContains(t, out, n)
			}
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Empty(t, entries, "nothing written")
		})
	}
}

// TestDemoBadSizes: each bad flag is named, and an image with more pixels
// than the kernel's uint32 index reaches is refused before anything runs
// (the pixel count wrapped: 65536×65537 made a buffer of 65536 pixels that
// the kernel wrote past).
func TestDemoBadSizes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-width", "0"}, "lucent demo: -width 0 -height 480: the image needs at least one pixel each way"},
		{[]string{"-height", "-3"}, "lucent demo: -width 640 -height -3: the image needs at least one pixel each way"},
		{[]string{"-width", "65536", "-height", "65537"}, "lucent demo: -width 65536 -height 65537: 4295032832 pixels, more than the 4294967295 the kernel indexes"},
		{[]string{"-width", "4294967296", "-height", "1"}, "lucent demo: -width 4294967296 -height 1: 4294967296 pixels"},
		{[]string{"-samples", "9"}, "lucent demo: -samples 9: want 1 to 8"},
		{[]string{"-bands", "0"}, "lucent demo: -bands 0: want at least 1"},
	} {
		t.Run(filepath.Join(tc.args...), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "x.png")
			out, err := runLucent(t, []string{"LUCENT_BACKEND=cpu"}, append([]string{"demo", "-out", file}, tc.args...)...)
			require.Equal(t, 1, exitCode(t, err), out)
			require.Contains(t, out, tc.want)
			require.NotContains(t, out, "backend:", "refused before a device is opened")
			require.NoFileExists(t, file)
		})
	}
}

// TestDemoOutput: a path that cannot be written fails before the render,
// and a render that fails leaves an earlier image as it was.
func TestDemoOutput(t *testing.T) {
	out, err := runLucent(t, []string{"LUCENT_BACKEND=cpu"}, "demo", "-width", "8", "-height", "8", "-out", filepath.Join(t.TempDir(), "no-such-dir", "x.png"))
	require.Equal(t, 1, exitCode(t, err), out)
	require.Contains(t, out, "no-such-dir/x.png: no such file or directory")
	require.NotContains(t, out, "rendering")

	file := filepath.Join(t.TempDir(), "x.png")
	require.NoError(t, os.WriteFile(file, []byte("earlier image"), 0o644))
	out, err = runLucent(t, []string{"LUCENT_BACKEND=no-such"}, "demo", "-width", "8", "-height", "8", "-out", file)
	require.Equal(t, 1, exitCode(t, err), out)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, "earlier image", string(data))
}
