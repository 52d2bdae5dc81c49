package codegen

import "github.com/lucent-gpu/lucent/frontend/ir"

// EmitUnguarded is Emit without the bounds guards on accesses through
// device addresses, for the benchmark that measures them.
func EmitUnguarded(f *ir.Function, opts Options) ([]uint32, error) {
	opts.unguarded = true
	return Emit(f, opts)
}

// LoopExits is the rewrite of Options.LoopExitFlags: f's body with its loop
// exits in flag form and the flags it adds.
func LoopExits(f *ir.Function) (*ir.Block, []*ir.Var) {
	b, vs, _ := loopExits(f)
	return b, vs
}
