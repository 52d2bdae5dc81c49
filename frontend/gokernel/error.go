package gokernel

import (
	"errors"
	"fmt"
	"go/token"
	"sort"
)

// ErrRejected is wrapped by every *Error about kernel source: a Go construct
// outside the kernel subset, a malformed directive, or a Go compile error.
var ErrRejected = errors.New("gokernel: kernel source rejected")

// Error is one problem in kernel source, at a position.
type Error struct {
	Pos token.Position
	Msg string
}

func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
}

// Unwrap makes errors.Is(err, ErrRejected) hold.
func (e *Error) Unwrap() error { return ErrRejected }

// sortErrors orders errors by file, line and column and drops duplicates (a
// helper called from two kernels is reported once).
func sortErrors(errs []error) []error {
	pos := func(e error) token.Position {
		var ge *Error
		if errors.As(e, &ge) {
			return ge.Pos
		}
		return token.Position{}
	}
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := pos(errs[i]), pos(errs[j])
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	out := errs[:0]
	seen := map[string]bool{}
	for _, e := range errs {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			out = append(out, e)
		}
	}
	return out
}
