package device

// CommandList is what a stream runs in one Dispatch: commands in order, then
// host callbacks, run (in order, on a goroutine of the backend's) once the GPU
// has finished every command of the list.
type CommandList struct {
	Commands  []Command
	Callbacks []func()

	// Timings, when not nil, asks for the device time of each command: the
	// backend fills it once the list's work has finished, before the
	// callbacks run (see Timings). Submitting a timed list where
	// Capabilities.Timings is false fails with ErrUnsupported. A nil
	// Timings costs nothing.
	Timings *Timings
}

// Add appends commands.
func (l *CommandList) Add(cmds ...Command) *CommandList {
	l.Commands = append(l.Commands, cmds...)
	return l
}

// OnDone appends a host callback run after the list's GPU work completes. A
// panic in it is recovered: the stream's next Synchronize returns an error
// wrapping ErrPanicked. From the callback, closing the device or
// synchronizing the callback's own stream returns ErrInvalidArgument.
func (l *CommandList) OnDone(f func()) *CommandList {
	l.Callbacks = append(l.Callbacks, f)
	return l
}

// Timed sets t as the list's Timings and returns the list.
func (l *CommandList) Timed(t *Timings) *CommandList {
	l.Timings = t
	return l
}

// Len returns the number of commands.
func (l *CommandList) Len() int { return len(l.Commands) }
