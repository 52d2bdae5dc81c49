package spvtools

import (
	"errors"
	"fmt"
	"unsafe"
)

// Sentinels wrapped by [*Error].
var (
	ErrInvalid  = errors.New("spvtools: invalid SPIR-V")
	ErrAssemble = errors.New("spvtools: assembly failed")
	ErrOptimize = errors.New("spvtools: optimization failed")
)

// Error is a failure reported by SPIRV-Tools, with its diagnostic.
type Error struct {
	Op      string // "validate", "assemble", "disassemble", "optimize"
	Result  int32  // the spv_result_t
	Message string // the diagnostic's text
	// Index is the word index (binary input) the diagnostic points at;
	// Line and Column locate it in text input.
	Index, Line, Column int
	kind                error
}

func (e *Error) Error() string {
	loc := ""
	switch {
	case e.Line > 0 || e.Column > 0:
		loc = fmt.Sprintf(" at line %d column %d", e.Line+1, e.Column+1)
	case e.Index > 0:
		loc = fmt.Sprintf(" at word %d", e.Index)
	}
	msg := e.Message
	if msg == "" {
		msg = fmt.Sprintf("spv_result_t %d", e.Result)
	}
	return fmt.Sprintf("%v (%s%s): %s", e.kind, e.Op, loc, msg)
}

func (e *Error) Unwrap() error { return e.kind }

// diagT mirrors spv_diagnostic_t.
type diagT struct {
	line, column, index uintptr
	error               *byte
	isTextSource        bool
}

func cString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// newError builds an Error from a result code and a diagnostic (which it destroys).
func (l *lib) newError(op string, kind error, result int32, diag uintptr) *Error {
	e := &Error{Op: op, Result: result, kind: kind}
	if diag != 0 {
		d := (*diagT)(ptr(diag))
		e.Message = cString(d.error)
		if d.isTextSource {
			e.Line, e.Column = int(d.line), int(d.column)
		} else {
			e.Index = int(d.index)
		}
		l.diagnosticDestroy(diag)
	}
	return e
}
