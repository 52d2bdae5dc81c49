package vk

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDebugMessengerPanic: a messenger function that panics is called from
// the loader's and layer's C frames; the trampoline recovers and logs, and
// the Vulkan call returns normally.
func TestDebugMessengerPanic(t *testing.T) {
	ti := newTestInstance(t, true)
	var mu sync.Mutex
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil)))
	defer slog.SetDefault(old)
	called := 0
	m, err := NewDebugMessenger(ti.it, ti.inst, DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT, DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
		func(DebugUtilsMessageSeverityFlagsEXT, DebugUtilsMessageTypeFlagsEXT, string) {
			called++
			panic("boom in a messenger")
		})
	require.NoError(t, err)
	defer func() { require.NoError(t, m.Close()) }()
	data := DebugUtilsMessengerCallbackDataEXT{SType: STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT, PMessage: CString("lucent vk test")}
	for range 2 {
		require.NoError(t, ti.it.SubmitDebugUtilsMessageEXT(ti.inst, DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT, DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT, &data))
	}
	require.Equal(t, 2, called)
	mu.Lock()
	defer mu.Unlock()
	require.Contains(t, logs.String(), "boom in a messenger")
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
