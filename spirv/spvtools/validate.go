package spvtools

import (
	"fmt"

	"github.com/lucent-gpu/lucent/spirv"
)

// ValidateOptions relax or adjust the validator's layout rules.
type ValidateOptions struct {
	// ScalarBlockLayout checks buffer layouts by the scalar rules
	// (VK_EXT_scalar_block_layout), as lucent's kernel ABI uses.
	ScalarBlockLayout bool
	// WorkgroupScalarBlockLayout applies the scalar rules to Workgroup memory with explicit layout.
	WorkgroupScalarBlockLayout bool
	// RelaxBlockLayout allows VK_KHR_relaxed_block_layout offsets.
	RelaxBlockLayout bool
	// UniformBufferStandardLayout lets uniform buffers use storage-buffer rules.
	UniformBufferStandardLayout bool
	// SkipBlockLayout skips block layout checks altogether.
	SkipBlockLayout bool
	// AllowLocalSizeID accepts the LocalSizeId execution mode (Vulkan 1.3 maintenance4).
	AllowLocalSizeID bool
}

// Validate runs the SPIR-V validator (spirv-val) on words for env with the
// default layout rules. The error wraps [ErrInvalid] and carries the validator's message.
func Validate(words []uint32, env spirv.TargetEnv) error {
	return ValidateWith(words, env, ValidateOptions{})
}

// ValidateWith is Validate with options.
func ValidateWith(words []uint32, env spirv.TargetEnv, o ValidateOptions) error {
	l, err := load()
	if err != nil {
		return err
	}
	e, err := targetEnv(env)
	if err != nil {
		return err
	}
	if len(words) == 0 {
		return &Error{Op: "validate", Message: "empty module", kind: ErrInvalid}
	}
	ctx := l.contextCreate(e)
	if ctx == 0 {
		return fmt.Errorf("spvtools: spvContextCreate(%v) failed", env)
	}
	defer l.contextDestroy(ctx)
	opts := l.validatorOptions(o)
	defer l.validatorOptionsDestroy(opts)
	bin := binaryT{code: &words[0], count: uintptr(len(words))}
	var diag uintptr
	if r := l.validateWithOptions(ctx, opts, &bin, &diag); r != 0 {
		return l.newError("validate", ErrInvalid, r, diag)
	}
	if diag != 0 {
		l.diagnosticDestroy(diag)
	}
	return nil
}

func (l *lib) validatorOptions(o ValidateOptions) uintptr {
	opts := l.validatorOptionsCreate()
	l.validatorOptionsScalar(opts, o.ScalarBlockLayout)
	l.validatorOptionsWGScalar(opts, o.WorkgroupScalarBlockLayout)
	l.validatorOptionsRelaxBlk(opts, o.RelaxBlockLayout)
	l.validatorOptionsUBOStd(opts, o.UniformBufferStandardLayout)
	l.validatorOptionsSkipBlk(opts, o.SkipBlockLayout)
	l.validatorOptionsLocalSz(opts, o.AllowLocalSizeID)
	return opts
}
