package vulkan

import (
	"encoding/binary"
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

// compile compiles testdata/device/<name>.comp with glslangValidator, or
// without it (a machine with only a GPU driver) reads the module glslang made
// of it, committed as testdata/modules/glsl_<name>.spv
// (TestCommittedModulesAreCurrent keeps them equal).
func compile(t testing.TB, name string) []uint32 {
	t.Helper()
	spvMu.Lock()
	defer spvMu.Unlock()
	if w, ok := spvCache[name]; ok {
		return w
	}
	_, file, _, _ := runtime.Caller(0)
	var raw []byte
	glslang, err := exec.LookPath("glslangValidator")
	if err != nil {
		raw, err = os.ReadFile(filepath.Join(filepath.Dir(file), "testdata", "modules", "glsl_"+name+".spv"))
		testenv.Need(t, "glslangValidator or a committed module", err)
	} else {
		raw = glslangCompile(t, glslang, filepath.Join(filepath.Dir(file), "..", "..", "testdata", "device", name+".comp"))
	}
	words := make([]uint32, len(raw)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	spvCache[name] = words
	return words
}

func glslangCompile(t testing.TB, glslang, src string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(src)+".spv")
	b, err := exec.Command(glslang, "-V", "--target-env", "vulkan1.3", "-o", out, src).CombinedOutput()
	require.NoError(t, err, "glslangValidator %s: %s", src, b)
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	return raw
}

// TestCommittedModulesAreCurrent: every device test shader has its
// committed module, byte for byte what glslangValidator makes of it now.
func TestCommittedModulesAreCurrent(t *testing.T) {
	glslang, err := exec.LookPath("glslangValidator")
	testenv.Need(t, "glslangValidator", err)
	srcs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "device", "*.comp"))
	require.NoError(t, err)
	require.NotEmpty(t, srcs)
	for _, src := range srcs {
		name := strings.TrimSuffix(filepath.Base(src), ".comp")
		committed, err := os.ReadFile(filepath.Join("testdata", "modules", "glsl_"+name+".spv"))
		require.NoError(t, err, "%s has no committed module", src)
		require.Equal(t, glslangCompile(t, glslang, src), committed, "testdata/modules/glsl_%s.spv is stale: recompile %s", name, src)
	}
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
