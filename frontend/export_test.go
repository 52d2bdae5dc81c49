package frontend

// EmitUnguarded is Emit without the bounds guards on accesses through
// device addresses, for the benchmark that measures them.
func EmitUnguarded(f *Function, opts Options) ([]uint32, error) {
	opts.unguarded = true
	return Emit(f, opts)
}
