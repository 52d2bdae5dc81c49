package device

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// Messages name a handle by its number on its device, not by its 64-bit
// value: "stream #2: closed", not "stream 2199023255554: closed".
func TestHandleFormat(t *testing.T) {
	sp := NewHandleSpace()
	first, second := sp.New(), sp.New()
	require.Equal(t, uint64(1), first.Number())
	require.Equal(t, "stream #2: closed", fmt.Sprintf("stream %d: closed", second))
	require.Equal(t, "#2", fmt.Sprint(second))
	require.Equal(t, "#2", fmt.Sprintf("%v", second))
	require.Equal(t, "#2", fmt.Sprintf("%s", second))
	require.Equal(t, fmt.Sprintf("#2 of device %d", second.Device()), fmt.Sprintf("%+v", second))
	require.Equal(t, fmt.Sprintf("%x", uint64(second)), fmt.Sprintf("%x", second), "%x keeps the whole value")
	require.Equal(t, "0 (no handle)", fmt.Sprint(Handle(0)))
	// Wrapped in an error, as the backends report them.
	err := fmt.Errorf("buffer %d is read on stream %d", first, second)
	require.Equal(t, "buffer #1 is read on stream #2", err.Error())
}
