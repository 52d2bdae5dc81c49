package vulkan

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/vk"
	"github.com/stretchr/testify/require"
)

// logBuffer is a slog logger writing to a buffer, safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// openLogged opens a device with the validation layer whose logger writes
// to the returned buffer.
func openLogged(t *testing.T, debug func(device.DebugMessage)) (*Device, *logBuffer, *messages) {
	t.Helper()
	logs := &logBuffer{}
	msgs := &messages{}
	if debug == nil {
		debug = msgs.add
	}
	d, err := Open(device.Options{DeviceIndex: -1, ValidationLayer: true, Debug: debug,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	testenv.Need(t, "a Vulkan device with the validation layer", err)
	return d, logs, msgs
}

// TestCallbackPanicBecomesError: a panicking OnDone callback does not kill
// the process; the stream's next Synchronize returns ErrPanicked (once), the
// panic is logged, later callbacks of the list and later lists still run.
func TestCallbackPanicBecomesError(t *testing.T) {
	d, logs, msgs := openLogged(t, nil)
	s, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	b, err := d.CreateBuffer(device.BufferDesc{Size: 16})
	require.NoError(t, err)
	out := make([]byte, 16)
	after := false
	list := (&device.CommandList{}).Add(
		&device.BufferUpload{Buffer: b, Data: []byte("0123456789abcdef")},
		&device.BufferDownload{Buffer: b, Data: out})
	list.OnDone(func() { panic("boom in OnDone") }).OnDone(func() { after = true })
	require.NoError(t, d.Dispatch(s, list))
	err = d.SynchronizeStream(context.Background(), s)
	require.ErrorIs(t, err, device.ErrPanicked)
	require.Contains(t, err.Error(), "boom in OnDone")
	require.True(t, after, "the list's next callback still ran")
	require.Equal(t, "0123456789abcdef", string(out))
	require.Contains(t, logs.String(), "boom in OnDone")
	require.NoError(t, d.SynchronizeStream(context.Background(), s), "reported once")

	ran := make(chan struct{})
	require.NoError(t, d.Dispatch(s, (&device.CommandList{}).OnDone(func() { close(ran) })))
	require.NoError(t, d.SynchronizeStream(context.Background(), s))
	<-ran
	require.NoError(t, d.DestroyBuffer(b))
	require.NoError(t, d.DestroyStream(s))
	require.NoError(t, d.Close())
	require.Empty(t, formatMessages(msgs.take()))
}

// TestCustomPanicBecomesError: a panicking Custom.Func fails its Dispatch
// with ErrPanicked; nothing of the list runs and the stream stays usable.
func TestCustomPanicBecomesError(t *testing.T) {
	d, logs, msgs := openLogged(t, nil)
	s, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	b, err := d.CreateBuffer(device.BufferDesc{Size: 16})
	require.NoError(t, err)
	err = d.Dispatch(s, (&device.CommandList{}).Add(
		&device.BufferUpload{Buffer: b, Data: make([]byte, 16)},
		&device.Custom{Name: "bad", Func: func(uintptr) error { panic("boom in Custom") }}))
	require.ErrorIs(t, err, device.ErrPanicked)
	require.Contains(t, err.Error(), `custom command "bad"`)
	require.Contains(t, logs.String(), "boom in Custom")
	out := make([]byte, 4)
	require.NoError(t, d.Dispatch(s, (&device.CommandList{}).Add(
		&device.BufferUpload{Buffer: b, Data: []byte{1, 2, 3, 4}}, &device.BufferDownload{Buffer: b, Data: out})))
	require.NoError(t, d.SynchronizeStream(context.Background(), s))
	require.Equal(t, []byte{1, 2, 3, 4}, out)
	require.NoError(t, d.DestroyBuffer(b))
	require.NoError(t, d.DestroyStream(s))
	require.NoError(t, d.Close())
	require.Empty(t, formatMessages(msgs.take()))
}

// TestDebugCallbackPanic: a debug-message function that panics is called
// from inside the driver (here vkSubmitDebugUtilsMessageEXT); the panic
// must not unwind through its C frames. It is logged, and the device works.
func TestDebugCallbackPanic(t *testing.T) {
	d, logs, _ := openLogged(t, func(device.DebugMessage) { panic("boom in Debug") })
	text := vk.CString("lucent test message")
	data := vk.DebugUtilsMessengerCallbackDataEXT{SType: vk.STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT, PMessage: text}
	require.NoError(t, d.in.fn.SubmitDebugUtilsMessageEXT(d.in.handle, vk.DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
		vk.DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT, &data))
	require.Contains(t, logs.String(), "boom in Debug")
	b, err := d.CreateBuffer(device.BufferDesc{Size: 16})
	require.NoError(t, err)
	require.NoError(t, d.DestroyBuffer(b))
	require.NoError(t, d.Close())
	runtime.KeepAlive(text)
}

// TestCallbackReentry: from a stream's callback, closing the device or
// synchronizing that stream (or an event its later work signals) would wait
// for the callback itself; they return ErrInvalidArgument at once. Other
// streams can be synchronized, and the device closes normally afterwards.
func TestCallbackReentry(t *testing.T) {
	d, _, msgs := openLogged(t, nil)
	s, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	other, err := d.CreateStream(device.StreamCompute)
	require.NoError(t, err)
	ev, err := d.CreateEvent()
	require.NoError(t, err)
	b, err := d.CreateBuffer(device.BufferDesc{Size: 16})
	require.NoError(t, err)
	var closeErr, syncErr, eventErr, otherErr error
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list := (&device.CommandList{}).Add(&device.BufferDownload{Buffer: b, Data: make([]byte, 16)})
	list.OnDone(func() {
		closeErr = d.Close()
		syncErr = d.SynchronizeStream(ctx, s)
		eventErr = d.SynchronizeEvent(ctx, ev, 1)
		otherErr = d.SynchronizeStream(ctx, other)
	})
	require.NoError(t, d.Dispatch(s, list))
	require.NoError(t, d.Dispatch(s, (&device.CommandList{}).Add(&device.BufferDownload{Buffer: b, Data: make([]byte, 16)})))
	require.NoError(t, d.SignalEvent(ev, s, 1))
	start := time.Now()
	require.NoError(t, d.SynchronizeStream(context.Background(), s))
	require.Less(t, time.Since(start), 5*time.Second, "no callback waited for its context")
	require.ErrorIs(t, closeErr, device.ErrInvalidArgument)
	require.Contains(t, closeErr.Error(), "Close called from a callback of stream")
	require.ErrorIs(t, syncErr, device.ErrInvalidArgument)
	require.ErrorIs(t, eventErr, device.ErrInvalidArgument)
	require.NoError(t, otherErr)
	require.NoError(t, d.SynchronizeEvent(context.Background(), ev, 1), "from the host it is fine")
	require.NoError(t, d.Close())
	require.Empty(t, formatMessages(msgs.take()))
}
