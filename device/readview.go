package device

// ReadView is a range of a Buffer's elements that can only be read: no
// method of it writes the buffer, and none leads back to the buffer or to
// a BufferView that could. It is how the launchers lucentc generates take a
// buffer their kernel only reads, so that a program cannot hand a kernel's
// read-only argument to a command that writes it through the same value,
// and a read-only view given where a kernel writes does not compile. It is a
// BufferView underneath (same size, no indirection): making one from a
// Buffer or a view costs nothing.
//
// At Dispatch a ReadView binds only to an argument the shader's Signature
// says it only reads (Access Read); anything else is an error naming the
// argument.
type ReadView[T any] struct{ v BufferView[T] }

// ReadOnly returns the whole buffer as a read-only view. A nil buffer gives
// a view whose error ("nil or zero-value Buffer") Dispatch returns, naming
// the argument.
func (b *Buffer[T]) ReadOnly() ReadView[T] {
	return ReadView[T]{b.All()}
}

// ReadOnly returns the view as a read-only view.
func (v BufferView[T]) ReadOnly() ReadView[T] { return ReadView[T]{v} }

// ReadOnly returns r: a ReadView is its own read-only form.
func (r ReadView[T]) ReadOnly() ReadView[T] { return r }

// Err returns the range error of an invalid view, or nil.
func (r ReadView[T]) Err() error { return r.v.Err() }

// Offset returns the first element's index in the buffer.
func (r ReadView[T]) Offset() int { return r.v.Offset() }

// Len returns the number of elements.
func (r ReadView[T]) Len() int { return r.v.Len() }

// View returns a read-only sub-range, range-checked like BufferView.View.
func (r ReadView[T]) View(off, n int) ReadView[T] { return ReadView[T]{r.v.View(off, n)} }

// Download returns a command copying the view's first len(dst) elements
// into dst (BufferView.Download).
func (r ReadView[T]) Download(dst []T) Command { return r.v.Download(dst) }

func (r ReadView[T]) bindArg() (Arg, argType, error) {
	a, t, err := r.v.bindArg()
	a.Access = Read
	return a, t, err
}
