package vk

import (
	"errors"
	"strconv"
)

// ErrMissingCommand is matched (errors.Is) by the error a command returns
// when the driver or the enabled extensions do not provide it.
var ErrMissingCommand = errors.New("vk: command not loaded")

// missingBase starts a range of Result values, far from every registry code,
// that encode "command i is not loaded" as missingBase-i.
const missingBase = -0x70000000

func missing(idx int) Result { return Result(missingBase - int32(idx)) }

func (r Result) missingCommand() (string, bool) {
	i := int64(missingBase) - int64(r)
	if i < 0 || i >= numCommands {
		return "", false
	}
	return commandNames[i], true
}

// Error describes a failed Result; a Result is an error.
func (r Result) Error() string {
	if name, ok := r.missingCommand(); ok {
		return "vk: " + name + " is not loaded (the driver or the enabled extensions lack it)"
	}
	return "vk: " + r.String()
}

// Err returns nil for SUCCESS and the non-error statuses (NOT_READY, TIMEOUT,
// INCOMPLETE, SUBOPTIMAL_KHR, ...: every non-negative code), and r itself for
// an error code.
func (r Result) Err() error {
	if r >= 0 {
		return nil
	}
	return r
}

// Is makes errors.Is(r, ErrMissingCommand) hold for a command that is not loaded.
func (r Result) Is(target error) bool {
	_, ok := r.missingCommand()
	return ok && target == ErrMissingCommand
}

func unnamedResult(r Result) string {
	if name, ok := r.missingCommand(); ok {
		return "missing command " + name
	}
	return "Result(" + strconv.Itoa(int(r)) + ")"
}
