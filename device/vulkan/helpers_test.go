package vulkan

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/stretchr/testify/require"
)

func init() {
	// Synchronization validation reports missing barriers as errors; tests
	// fail on them (unless a test expects one).
	if os.Getenv("VK_LAYER_ENABLES") == "" {
		os.Setenv("VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT")
	}
}

// messages collects validation messages of one device.
type messages struct {
	mu   sync.Mutex
	errs []device.DebugMessage
}

func (m *messages) add(msg device.DebugMessage) {
	if msg.Severity < device.SeverityError {
		return
	}
	m.mu.Lock()
	m.errs = append(m.errs, msg)
	m.mu.Unlock()
}

func (m *messages) take() []device.DebugMessage {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.errs
	m.errs = nil
	return out
}

func formatMessages(ms []device.DebugMessage) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.ID + ": " + m.Text + "\n")
	}
	return b.String()
}

// openDevice opens the default Vulkan device with the validation layer; the
// test fails on any validation error, including leaks reported at close.
func openDevice(t testing.TB) (*Device, *messages) {
	t.Helper()
	msgs := &messages{}
	d, err := Open(device.Options{DeviceIndex: -1, ValidationLayer: true, Debug: msgs.add})
	testenv.Need(t, "a Vulkan device with the validation layer", err)
	t.Cleanup(func() {
		require.NoError(t, d.Close())
		require.Empty(t, formatMessages(msgs.take()), "validation errors")
	})
	return d, msgs
}

var (
	spvMu    sync.Mutex
	spvCache = map[string][]uint32{}
)

// compile compiles testdata/device/<name>.comp with glslangValidator.
func compile(t testing.TB, name string) []uint32 {
	t.Helper()
	spvMu.Lock()
	defer spvMu.Unlock()
	if w, ok := spvCache[name]; ok {
		return w
	}
	glslang, err := exec.LookPath("glslangValidator")
	testenv.Need(t, "glslangValidator", err)
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "device", name+".comp")
	out := filepath.Join(t.TempDir(), name+".spv")
	b, err := exec.Command(glslang, "-V", "--target-env", "vulkan1.3", "-o", out, src).CombinedOutput()
	require.NoError(t, err, "glslangValidator %s: %s", name, b)
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	words := make([]uint32, len(raw)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	spvCache[name] = words
	return words
}

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func bytesOfU32(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func bytesOfF32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func uniform32(v ...uint32) []byte { return bytesOfU32(v) }

func uniformF(v float32) []byte { return bytesOfF32([]float32{v}) }

func isClosed(err error) bool { return errors.Is(err, device.ErrClosed) }
