package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHeadlessReportsGPUTime: a headless run prints the scene kernel's GPU
// time per frame beside the host's, non-zero and no more than the host's.
func TestHeadlessReportsGPUTime(t *testing.T) {
	requireVulkan(t)
	out := filepath.Join(t.TempDir(), "frame.png")
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"--headless", "--validate", "--width", "160", "--height", "120", "--frames", "3", "--out", out}, &stdout)
	require.NoError(t, err)
	m := regexp.MustCompile(`: ([0-9.]+) ms/frame, ([0-9.]+) ms/frame on the GPU \(the scene kernel\)`).FindStringSubmatch(stdout.String())
	require.NotNil(t, m, "no GPU time in %q", stdout.String())
	host, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	gpu, err := strconv.ParseFloat(m[2], 64)
	require.NoError(t, err)
	require.Positive(t, gpu)
	require.LessOrEqual(t, gpu, host*1.05+0.01, "the GPU time of a frame within the host's time per frame")
}

func TestFrameTitle(t *testing.T) {
	require.Equal(t, "lucent-view — 640x480 — 20.0 ms/frame (50 fps) — GPU 12.50 ms",
		frameTitle(640, 480, 200*time.Millisecond, 10, 100*time.Millisecond, 8))
	require.Equal(t, "lucent-view — 640x480 — 20.0 ms/frame (50 fps)",
		frameTitle(640, 480, 200*time.Millisecond, 10, 0, 0), "no timings came back")
}

func TestGPUClock(t *testing.T) {
	var g gpuClock
	require.Empty(t, g.summary())
	g.add(2 * time.Millisecond)
	g.add(4 * time.Millisecond)
	d, n := g.take()
	require.Equal(t, 6*time.Millisecond, d)
	require.Equal(t, 2, n)
	d, n = g.take()
	require.Zero(t, d)
	require.Zero(t, n)
	g.add(6 * time.Millisecond)
	require.Equal(t, ", 4.00 ms/frame on the GPU (the scene kernel)", g.summary(), "over every frame, not the last window")
}
