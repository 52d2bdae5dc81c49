package spvtools

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/ebitengine/purego"
)

// ErrUnavailable is wrapped by the error returned when the SPIRV-Tools shared library cannot be loaded.
var ErrUnavailable = errors.New("spvtools: SPIRV-Tools shared library unavailable")

// EnvLibrary names the environment variable that points at the library.
const EnvLibrary = "LUCENT_SPIRV_TOOLS"

// candidates are the names tried when LUCENT_SPIRV_TOOLS is unset.
func candidates() []string {
	var out []string
	switch runtime.GOOS {
	case "darwin":
		out = append(out, "libSPIRV-Tools-shared.dylib", "libSPIRV-Tools.dylib",
			"/usr/local/lib/libSPIRV-Tools-shared.dylib", "/opt/homebrew/lib/libSPIRV-Tools-shared.dylib")
	case "windows":
		out = append(out, "SPIRV-Tools-shared.dll", "SPIRV-Tools.dll")
	default:
		out = append(out, "libSPIRV-Tools-shared.so", "libSPIRV-Tools.so",
			"/usr/local/lib/libSPIRV-Tools-shared.so", "/usr/lib/libSPIRV-Tools-shared.so")
	}
	return out
}

// lib holds the resolved entry points.
type lib struct {
	handle uintptr
	path   string

	contextCreate  func(env int32) uintptr
	contextDestroy func(ctx uintptr)

	validatorOptionsCreate   func() uintptr
	validatorOptionsDestroy  func(o uintptr)
	validatorOptionsScalar   func(o uintptr, v bool)
	validatorOptionsWGScalar func(o uintptr, v bool)
	validatorOptionsRelaxBlk func(o uintptr, v bool)
	validatorOptionsUBOStd   func(o uintptr, v bool)
	validatorOptionsSkipBlk  func(o uintptr, v bool)
	validatorOptionsLocalSz  func(o uintptr, v bool)
	validateWithOptions      func(ctx, opts uintptr, bin *binaryT, diag *uintptr) int32
	diagnosticDestroy        func(d uintptr)

	binaryToText   func(ctx uintptr, words *uint32, n uintptr, options uint32, text *uintptr, diag *uintptr) int32
	textToBinary   func(ctx uintptr, text *byte, n uintptr, options uint32, bin *uintptr, diag *uintptr) int32
	textDestroy    func(t uintptr)
	binaryDestroy  func(b uintptr)
	optimizerOpts  func() uintptr
	optOptsDestroy func(o uintptr)
	optOptsRunVal  func(o uintptr, v bool)

	opt optimizerAPI
}

// binaryT mirrors spv_binary_t / spv_const_binary_t.
type binaryT struct {
	code  *uint32
	count uintptr
}

var (
	loadOnce sync.Once
	loaded   *lib
	loadErr  error
)

func load() (*lib, error) {
	loadOnce.Do(func() { loaded, loadErr = openLibrary() })
	return loaded, loadErr
}

// openLibrary loads the library LUCENT_SPIRV_TOOLS names, or else the first
// of the usual names that loads. A library the variable names that does not
// load is an error naming it: a set variable is never passed over for
// another copy.
func openLibrary() (*lib, error) {
	if p := os.Getenv(EnvLibrary); p != "" {
		l, err := open([]string{p})
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", EnvLibrary, p, err)
		}
		return l, nil
	}
	return open(candidates())
}

func open(names []string) (*lib, error) {
	var tried []string
	for _, name := range names {
		h, err := dlopen(name)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s (%v)", name, err))
			continue
		}
		l := &lib{handle: h, path: name}
		if err := l.bind(); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, name, err)
		}
		return l, nil
	}
	return nil, fmt.Errorf("%w: tried %s; install it with `make setup` (scripts/setup.sh links libSPIRV-Tools-shared.so), or point %s at the library",
		ErrUnavailable, strings.Join(tried, ", "), EnvLibrary)
}

func (l *lib) sym(fptr any, name string) error {
	p, err := dlsym(l.handle, name)
	if err != nil || p == 0 {
		return fmt.Errorf("symbol %s not found", name)
	}
	purego.RegisterFunc(fptr, p)
	return nil
}

func (l *lib) bind() error {
	for _, s := range []struct {
		f    any
		name string
	}{
		{&l.contextCreate, "spvContextCreate"},
		{&l.contextDestroy, "spvContextDestroy"},
		{&l.validatorOptionsCreate, "spvValidatorOptionsCreate"},
		{&l.validatorOptionsDestroy, "spvValidatorOptionsDestroy"},
		{&l.validatorOptionsScalar, "spvValidatorOptionsSetScalarBlockLayout"},
		{&l.validatorOptionsWGScalar, "spvValidatorOptionsSetWorkgroupScalarBlockLayout"},
		{&l.validatorOptionsRelaxBlk, "spvValidatorOptionsSetRelaxBlockLayout"},
		{&l.validatorOptionsUBOStd, "spvValidatorOptionsSetUniformBufferStandardLayout"},
		{&l.validatorOptionsSkipBlk, "spvValidatorOptionsSetSkipBlockLayout"},
		{&l.validatorOptionsLocalSz, "spvValidatorOptionsSetAllowLocalSizeId"},
		{&l.validateWithOptions, "spvValidateWithOptions"},
		{&l.diagnosticDestroy, "spvDiagnosticDestroy"},
		{&l.binaryToText, "spvBinaryToText"},
		{&l.textToBinary, "spvTextToBinaryWithOptions"},
		{&l.textDestroy, "spvTextDestroy"},
		{&l.binaryDestroy, "spvBinaryDestroy"},
		{&l.optimizerOpts, "spvOptimizerOptionsCreate"},
		{&l.optOptsDestroy, "spvOptimizerOptionsDestroy"},
		{&l.optOptsRunVal, "spvOptimizerOptionsSetRunValidator"},
	} {
		if err := l.sym(s.f, s.name); err != nil {
			return err
		}
	}
	l.opt = l.bindOptimizer()
	return nil
}

// Path returns the library that was loaded, or the error explaining why none was.
func Path() (string, error) {
	l, err := load()
	if err != nil {
		return "", err
	}
	return l.path, nil
}
