package accel

import (
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// TestNilAndZeroResources is device's test of the same name for this
// package's types: every exported method on a nil pointer and on a zero
// value, with zero arguments, must not panic; errors and commands report
// ErrInvalidArgument, except Close, which returns nil.
func TestNilAndZeroResources(t *testing.T) {
	values := map[string]any{
		"nil *Mesh":       (*Mesh)(nil),
		"zero Mesh":       &Mesh{},
		"nil *Procedural": (*Procedural)(nil),
		"zero Procedural": &Procedural{},
		"nil *Accel":      (*Accel)(nil),
		"zero Accel":      &Accel{},
	}
	errType := reflect.TypeFor[error]()
	cmdType := reflect.TypeFor[device.Command]()
	for name, v := range values {
		rv := reflect.ValueOf(v)
		for i := range rv.NumMethod() {
			m := rv.Type().Method(i)
			t.Run(name+"."+m.Name, func(t *testing.T) {
				fn := rv.Method(i)
				args := make([]reflect.Value, fn.Type().NumIn())
				for j := range args {
					args[j] = reflect.Zero(fn.Type().In(j))
				}
				var out []reflect.Value
				require.NotPanics(t, func() { out = fn.Call(args) })
				for _, o := range out {
					var err error
					switch o.Type() {
					case errType:
						err, _ = o.Interface().(error)
					case cmdType:
						err = device.CommandError(o.Interface().(device.Command))
					default:
						continue
					}
					if m.Name == "Close" {
						require.NoError(t, err)
						continue
					}
					require.True(t, errors.Is(err, device.ErrInvalidArgument), "%v", err)
				}
			})
		}
	}
	_, err := NewMesh(nil, device.BufferView[[3]float32]{}, device.BufferView[[3]uint32]{}, Options{})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	_, err = NewProcedural(nil, device.BufferView[AABB]{}, Options{})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	_, err = NewAccel(nil, Options{})
	require.ErrorIs(t, err, device.ErrInvalidArgument)
}
