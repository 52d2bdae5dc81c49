// Package kerneltest compares a kernel's results with a reference in tests:
// Compare finds the first element of two slices that differs, walking every
// scalar inside the element type (a float32, a kernel.Float4, a struct of
// them), with floats equal within a tolerance in ULPs.
package kerneltest

import (
	"errors"
	"fmt"
	"math"
	"reflect"
)

// ErrMismatch is what every error of Compare wraps.
var ErrMismatch = errors.New("kerneltest: mismatch")

// Mismatch is the first difference Compare found.
type Mismatch struct {
	Index     int    // the element's index (-1 for a length mismatch)
	Field     string // the scalar inside the element: "", ".Y", "[2].X"
	Got, Want any    // the two scalars (the two lengths for a length mismatch)
	ULPs      uint64 // for floats, how many ULPs apart (math.MaxUint64 when only one is NaN)
	MaxULPs   uint64 // the tolerance Compare was given
}

func (m *Mismatch) Error() string {
	if m.Index < 0 {
		return fmt.Sprintf("%v: got %v elements, want %v", ErrMismatch, m.Got, m.Want)
	}
	s := fmt.Sprintf("%v: element %d%s: got %v, want %v", ErrMismatch, m.Index, m.Field, m.Got, m.Want)
	switch m.Got.(type) {
	case float32, float64:
		if m.ULPs == math.MaxUint64 {
			s += " (one is NaN)"
		} else {
			s += fmt.Sprintf(" (%d ULPs apart, tolerance %d)", m.ULPs, m.MaxULPs)
		}
	}
	return s
}

func (m *Mismatch) Unwrap() error { return ErrMismatch }

// Compare returns nil when got and want have the same length and every
// scalar of every element is equal: integers and booleans exactly, floats
// within maxULPs units in the last place (0: bit for bit, except that +0 and
// -0 are equal and any NaN equals any NaN). Otherwise it returns a *Mismatch
// (wrapping ErrMismatch) for the first difference, in index order and, within
// an element, in field order. T must be made of numbers and booleans (arrays
// and structs of them, as kernel arguments are); a pointer, slice, map,
// string or interface inside T is an error.
func Compare[T any](got, want []T, maxULPs uint64) error {
	if len(got) != len(want) {
		return &Mismatch{Index: -1, Got: len(got), Want: len(want), MaxULPs: maxULPs}
	}
	typ := reflect.TypeFor[T]()
	if err := checkPlain(typ); err != nil {
		return fmt.Errorf("kerneltest: Compare[%v]: %w", typ, err)
	}
	gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range got {
		if m := compare(gv.Index(i), wv.Index(i), "", maxULPs); m != nil {
			m.Index = i
			return m
		}
	}
	return nil
}

func checkPlain(t reflect.Type) error {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return nil
	case reflect.Array:
		return checkPlain(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if err := checkPlain(t.Field(i).Type); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%v is not a number, a boolean or an array or struct of them", t)
}

func compare(g, w reflect.Value, field string, maxULPs uint64) *Mismatch {
	switch g.Kind() {
	case reflect.Array:
		for i := range g.Len() {
			if m := compare(g.Index(i), w.Index(i), fmt.Sprintf("%s[%d]", field, i), maxULPs); m != nil {
				return m
			}
		}
	case reflect.Struct:
		for i := range g.NumField() {
			if m := compare(g.Field(i), w.Field(i), field+"."+g.Type().Field(i).Name, maxULPs); m != nil {
				return m
			}
		}
	case reflect.Float32:
		a, b := float32(g.Float()), float32(w.Float())
		if d := ulps32(a, b); d > maxULPs {
			return &Mismatch{Field: field, Got: a, Want: b, ULPs: d, MaxULPs: maxULPs}
		}
	case reflect.Float64:
		a, b := g.Float(), w.Float()
		if d := ulps64(a, b); d > maxULPs {
			return &Mismatch{Field: field, Got: a, Want: b, ULPs: d, MaxULPs: maxULPs}
		}
	default:
		if !g.Equal(w) {
			return &Mismatch{Field: field, Got: g.Interface(), Want: w.Interface(), MaxULPs: maxULPs}
		}
	}
	return nil
}

// ulps32 is how many representable float32s lie between a and b (0 for
// equal values, +0 and -0, or two NaNs; MaxUint64 when one only is NaN).
func ulps32(a, b float32) uint64 {
	an, bn := a != a, b != b
	if an || bn {
		if an && bn {
			return 0
		}
		return math.MaxUint64
	}
	return dist(ordered32(a), ordered32(b))
}

func ulps64(a, b float64) uint64 {
	an, bn := a != a, b != b
	if an || bn {
		if an && bn {
			return 0
		}
		return math.MaxUint64
	}
	ia, ib := ordered64(a), ordered64(b)
	if ia > ib {
		ia, ib = ib, ia
	}
	return uint64(ib - ia) // wraps correctly: the distance fits in a uint64
}

// ordered32 maps floats onto integers in the same order, adjacent floats to
// adjacent integers, +0 and -0 both to 0.
func ordered32(f float32) int64 {
	u := math.Float32bits(f)
	if u&(1<<31) != 0 {
		return -int64(u &^ (1 << 31))
	}
	return int64(u)
}

func ordered64(f float64) int64 {
	u := math.Float64bits(f)
	if u&(1<<63) != 0 {
		return -int64(u &^ (1 << 63))
	}
	return int64(u)
}

func dist(a, b int64) uint64 {
	if a > b {
		return uint64(a - b)
	}
	return uint64(b - a)
}
