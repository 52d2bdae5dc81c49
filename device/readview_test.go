package device

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// A ReadView binds to an argument the shader only reads, and to nothing
// else; it has no method that writes.
func TestReadView(t *testing.T) {
	b := testBuffer[float32](7, 10)
	read := Argument{Kind: ArgBuffer, ElemSize: 4, Scalar: ScalarFloat, ScalarBits: 32, Components: 1, Access: Read}
	a, err := bindArg(read, b.ReadOnly())
	require.NoError(t, err)
	require.Equal(t, Arg{Kind: ArgBuffer, Handle: 7, Offset: 0, Size: 40, Access: Read}, a)
	a, err = bindArg(read, b.View(2, 6).ReadOnly().View(1, 3))
	require.NoError(t, err)
	require.Equal(t, Arg{Kind: ArgBuffer, Handle: 7, Offset: 12, Size: 12, Access: Read}, a)
	for _, access := range []Access{Write, ReadWrite, 0} {
		want := read
		want.Access = access
		_, err := bindArg(want, b.ReadOnly())
		require.ErrorIs(t, err, ErrInvalidArgument, "access %v", access)
		require.ErrorContains(t, err, "read-only view")
		// A writable view still binds there.
		_, err = bindArg(want, b.All())
		require.NoError(t, err)
	}
	var none *Buffer[float32]
	_, err = bindArg(read, none.ReadOnly())
	require.ErrorIs(t, err, ErrInvalidArgument)
	// The error says what was passed (launchers pass a nil *Buffer so);
	// it said "zero BufferView", a value the program never made.
	require.ErrorContains(t, err, "nil or zero-value Buffer")
	require.ErrorIs(t, b.ReadOnly().View(4, 7).Err(), ErrInvalidArgument)
	require.Equal(t, 10, b.ReadOnly().Len())
	require.Equal(t, 2, b.View(2, 3).ReadOnly().Offset())
	down := b.ReadOnly().View(1, 2).Download(make([]float32, 2))
	require.Equal(t, &BufferDownload{Buffer: 7, Offset: 4, Data: make([]byte, 8)}, down)

	var methods []string
	rt := reflect.TypeFor[ReadView[float32]]()
	for i := range rt.NumMethod() {
		methods = append(methods, rt.Method(i).Name)
	}
	require.Equal(t, []string{"Download", "Err", "Len", "Offset", "ReadOnly", "View"}, methods)
	require.Equal(t, reflect.TypeFor[BufferView[float32]]().Size(), rt.Size())
}
