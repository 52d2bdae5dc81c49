package device

import (
	"log/slog"

	"github.com/lucent-gpu/lucent/shadercache"
)

// Options configure Open. Backends receive them as resolved by the device
// package (DeviceIndex is then always a real index).
type Options struct {
	// DeviceIndex picks an adapter from Enumerate; -1 (the default) picks the
	// default one: a discrete GPU first, a CPU implementation last.
	DeviceIndex int

	// Validation wraps the backend in the validation wrapper (use after close,
	// wrong stream kinds, argument mismatches, ranges, cross-stream hazards,
	// leaks at Close).
	Validation bool

	// ValidationLayer enables the API's own validation (the Khronos validation
	// layer for Vulkan); its errors are reported through Debug and Logger.
	ValidationLayer bool

	// Debug, when set, receives every message of the API's validation and
	// debug machinery (tests fail on SeverityError ones).
	Debug func(DebugMessage)

	// ShaderCache stores shader and pipeline caches across runs (nil: none).
	ShaderCache shadercache.BinaryIO

	// Logger receives the runtime's diagnostics (nil: slog.Default()).
	Logger *slog.Logger

	// Print receives what kernels print (nil: Logger, at Info level);
	// PrintCapacity is the bytes of each stream's print buffer (0:
	// DefaultPrintCapacity). See WithPrint and WithPrintCapacity.
	Print         func(KernelPrint)
	PrintCapacity int

	// CheckedKernels compiles every kernel of the device in the checked
	// mode (KernelOptions.Checked), for debugging sessions; kernels loaded
	// ahead of time (LoadKernel, LoadPrebuilt, lucentc -go launchers) are
	// compiled from their IR then, their artefact being the unchecked code.
	CheckedKernels bool

	// RaceDetector runs kernels with the race detector where the backend
	// has one (WithRaceDetector; LUCENT_RACE=1 sets it too).
	RaceDetector bool
}

// Severity grades a DebugMessage.
type Severity uint8

const (
	SeverityVerbose Severity = iota
	SeverityInfo
	SeverityWarning
	SeverityError
)

func (s Severity) String() string {
	return [...]string{"verbose", "info", "warning", "error"}[min(int(s), 3)]
}

// DebugMessage is one message from the API's validation or debug machinery.
type DebugMessage struct {
	Severity Severity
	ID       string // e.g. the VUID of a Vulkan validation message
	Text     string
}

// Option sets one field of Options.
type Option func(*Options)

// WithDeviceIndex opens the adapter with the given Enumerate index.
func WithDeviceIndex(i int) Option { return func(o *Options) { o.DeviceIndex = i } }

// WithValidation switches the validation wrapper on.
func WithValidation() Option { return func(o *Options) { o.Validation = true } }

// WithValidationLayer switches the API's own validation layer on or off.
func WithValidationLayer(on bool) Option { return func(o *Options) { o.ValidationLayer = on } }

// WithDebug sets the callback receiving validation-layer and debug messages.
func WithDebug(f func(DebugMessage)) Option { return func(o *Options) { o.Debug = f } }

// WithShaderCache sets the shader and pipeline cache, e.g. a shadercache.Dir.
func WithShaderCache(c shadercache.BinaryIO) Option { return func(o *Options) { o.ShaderCache = c } }

// WithCheckedKernels compiles every kernel of the device in the checked mode
// (WithChecked, KernelOptions.Checked): slower kernels that report their
// faults, for debugging sessions.
func WithCheckedKernels() Option { return func(o *Options) { o.CheckedKernels = true } }

// WithLogger sets the logger for the runtime's diagnostics.
func WithLogger(l *slog.Logger) Option { return func(o *Options) { o.Logger = l } }

func buildOptions(opts []Option) Options {
	o := Options{DeviceIndex: -1}
	raceFromEnv(&o)
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}
