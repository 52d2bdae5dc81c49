package spvtools

import (
	"fmt"
	"unsafe"

	"github.com/lucent-gpu/lucent/spirv"
)

// Level selects an optimizer pass set.
type Level uint8

// Optimization levels.
const (
	// Performance is spirv-opt -O (RegisterPerformancePasses).
	Performance Level = iota + 1
	// Size is spirv-opt -Os (RegisterSizePasses).
	Size
)

func (lv Level) String() string {
	switch lv {
	case Performance:
		return "-O"
	case Size:
		return "-Os"
	}
	return fmt.Sprintf("Level(%d)", uint8(lv))
}

// optimizerAPI is the optimizer entry points the library offers: the C API
// (SPIRV-Tools 2023 and later), else the C++ class through the Itanium ABI.
type optimizerAPI struct {
	// C API.
	create      func(env int32) uintptr
	destroy     func(o uintptr)
	perf        func(o uintptr)
	size        func(o uintptr)
	run         func(o uintptr, words *uint32, n uintptr, out *uintptr, opts uintptr) int32
	haveC       bool
	haveCPP     bool
	cppNew      func(n uintptr) *[8]uintptr
	cppDelete   func(p *[8]uintptr)
	cppCtor     func(this *[8]uintptr, env int32)
	cppDtor     func(this *[8]uintptr)
	cppPerf     func(this *[8]uintptr) uintptr
	cppSize     func(this *[8]uintptr) uintptr
	cppRun      func(this *[8]uintptr, words *uint32, n uintptr, out *[8]uintptr, opts uintptr) bool
	unavailable error
}

func (l *lib) bindOptimizer() optimizerAPI {
	var o optimizerAPI
	if l.sym(&o.create, "spvOptimizerCreate") == nil &&
		l.sym(&o.destroy, "spvOptimizerDestroy") == nil &&
		l.sym(&o.perf, "spvOptimizerRegisterPerformancePasses") == nil &&
		l.sym(&o.size, "spvOptimizerRegisterSizePasses") == nil &&
		l.sym(&o.run, "spvOptimizerRun") == nil {
		o.haveC = true
		return o
	}
	for _, s := range []struct {
		f    any
		name string
	}{
		{&o.cppNew, "_Znwm"},
		{&o.cppDelete, "_ZdlPv"},
		{&o.cppCtor, "_ZN8spvtools9OptimizerC1E14spv_target_env"},
		{&o.cppDtor, "_ZN8spvtools9OptimizerD1Ev"},
		{&o.cppPerf, "_ZN8spvtools9Optimizer25RegisterPerformancePassesEv"},
		{&o.cppSize, "_ZN8spvtools9Optimizer18RegisterSizePassesEv"},
		{&o.cppRun, "_ZNK8spvtools9Optimizer3RunEPKjmPSt6vectorIjSaIjEEP23spv_optimizer_options_t"},
	} {
		if err := l.sym(s.f, s.name); err != nil {
			o.unavailable = fmt.Errorf("%w: the library has neither the optimizer C API nor the C++ class (%v)", ErrUnavailable, err)
			return o
		}
	}
	o.haveCPP = true
	return o
}

// Optimize runs the optimizer pass set of level on words for env. The input is
// validated first (default layout rules); see [OptimizeWith].
func Optimize(words []uint32, env spirv.TargetEnv, level Level) ([]uint32, error) {
	return OptimizeWith(words, env, level, ValidateOptions{})
}

// OptimizeWith is Optimize validating the input with options o.
func OptimizeWith(words []uint32, env spirv.TargetEnv, level Level, o ValidateOptions) ([]uint32, error) {
	l, err := load()
	if err != nil {
		return nil, err
	}
	e, err := targetEnv(env)
	if err != nil {
		return nil, err
	}
	if level != Performance && level != Size {
		return nil, fmt.Errorf("spvtools: unknown optimization level %v", level)
	}
	if err := ValidateWith(words, env, o); err != nil {
		return nil, err
	}
	opts := l.optimizerOpts()
	defer l.optOptsDestroy(opts)
	l.optOptsRunVal(opts, false) // validated above, with the caller's layout options
	api := &l.opt
	switch {
	case api.haveC:
		opt := api.create(e)
		defer api.destroy(opt)
		if level == Performance {
			api.perf(opt)
		} else {
			api.size(opt)
		}
		var bin uintptr
		if r := api.run(opt, &words[0], uintptr(len(words)), &bin, opts); r != 0 || bin == 0 {
			return nil, &Error{Op: "optimize", Result: r, kind: ErrOptimize}
		}
		defer l.binaryDestroy(bin)
		b := (*binaryT)(ptr(bin))
		return append([]uint32(nil), unsafe.Slice(b.code, b.count)...), nil
	case api.haveCPP:
		// The object and the std::vector live in C++'s heap; sizeof(spvtools::Optimizer)
		// is one pointer and std::vector three, both well inside 64 bytes.
		this := api.cppNew(64)
		*this = [8]uintptr{}
		api.cppCtor(this, e)
		defer func() { api.cppDtor(this); api.cppDelete(this) }()
		if level == Performance {
			api.cppPerf(this)
		} else {
			api.cppSize(this)
		}
		vec := api.cppNew(64)
		*vec = [8]uintptr{}
		defer api.cppDelete(vec)
		ok := api.cppRun(this, &words[0], uintptr(len(words)), vec, opts)
		begin, end := vec[0], vec[1]
		var out []uint32
		if begin != 0 {
			n := (end - begin) / 4
			out = append([]uint32(nil), unsafe.Slice((*uint32)(ptr(begin)), n)...)
			api.cppDelete((*[8]uintptr)(ptr(begin)))
		}
		if !ok || len(out) == 0 {
			return nil, &Error{Op: "optimize", Message: "the optimizer rejected the module", kind: ErrOptimize}
		}
		return out, nil
	}
	return nil, api.unavailable
}
