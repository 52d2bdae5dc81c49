package device

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNilAndZeroResources calls every exported method of every typed resource
// on a nil pointer and on a zero value (&Buffer[T]{} and the like), with zero
// arguments: none may panic; methods that return an error (or a Command, a
// view, a level) report ErrInvalidArgument, except Close, which returns nil.
// Methods added later are covered without editing the test.
func TestNilAndZeroResources(t *testing.T) {
	values := map[string]any{
		"nil *Buffer":         (*Buffer[float32])(nil),
		"zero Buffer":         &Buffer[float32]{},
		"nil *Image":          (*Image[[4]uint8])(nil),
		"zero Image":          &Image[[4]uint8]{},
		"nil *Volume":         (*Volume[float32])(nil),
		"zero Volume":         &Volume[float32]{},
		"nil *Stream":         (*Stream)(nil),
		"zero Stream":         &Stream{},
		"nil *Event":          (*Event)(nil),
		"zero Event":          &Event{},
		"nil *Shader":         (*Shader)(nil),
		"zero Shader":         &Shader{},
		"nil *Kernel":         (*Kernel)(nil),
		"zero Kernel":         &Kernel{},
		"nil *BindlessArray":  (*BindlessArray)(nil),
		"zero BindlessArray":  &BindlessArray{},
		"nil *Device":         (*Device)(nil),
		"zero Device":         &Device{},
		"zero BufferView":     BufferView[float32]{},
		"zero TextureLevel":   TextureLevel[float32]{},
		"zero SampledTexture": SampledTexture{},
	}
	errType := reflect.TypeFor[error]()
	cmdType := reflect.TypeFor[Command]()
	for name, v := range values {
		rv := reflect.ValueOf(v)
		for i := range rv.NumMethod() {
			m := rv.Type().Method(i)
			t.Run(name+"."+m.Name, func(t *testing.T) {
				fn := rv.Method(i)
				ft := fn.Type()
				n := ft.NumIn()
				if ft.IsVariadic() {
					n--
				}
				args := make([]reflect.Value, n)
				for j := range n {
					args[j] = reflect.Zero(ft.In(j))
				}
				var out []reflect.Value
				require.NotPanics(t, func() { out = fn.Call(args) })
				for _, o := range out {
					var err error
					switch {
					case o.Type() == errType:
						err, _ = o.Interface().(error)
					case o.Type() == cmdType:
						err = CommandError(o.Interface().(Command))
					case strings.HasPrefix(o.Type().Name(), "BufferView[") || strings.HasPrefix(o.Type().Name(), "TextureLevel["):
						err = o.MethodByName("Err").Call(nil)[0].Interface().(error)
					default:
						continue
					}
					if m.Name == "Close" {
						require.NoError(t, err)
						continue
					}
					require.Error(t, err)
					require.True(t, errors.Is(err, ErrInvalidArgument), "%v", err)
				}
			})
		}
	}
}

func TestNewOnNilDevice(t *testing.T) {
	_, err := NewBuffer[float32](nil, 4)
	require.ErrorIs(t, err, ErrInvalidArgument)
	_, err = NewImage[float32](nil, R32Float, 4, 4, 1)
	require.ErrorIs(t, err, ErrInvalidArgument)
	_, err = NewVolume[float32](nil, R32Float, 4, 4, 4, 1)
	require.ErrorIs(t, err, ErrInvalidArgument)
}
