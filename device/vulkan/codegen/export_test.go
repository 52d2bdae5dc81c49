package codegen

import "github.com/lucent-gpu/lucent/frontend/ir"

// EmitUnguarded is Emit without the bounds guards on accesses through
// device addresses, for the benchmark that measures them.
func EmitUnguarded(f *ir.Function, opts Options) ([]uint32, error) {
	opts.unguarded = true
	return Emit(f, opts)
}
