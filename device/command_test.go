package device

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Every command states its own facts: a name for messages, the stream kind
// it needs, and the faults in its own fields. A new command is a struct with
// these methods and a case in each backend's encoder.
func TestCommandFacts(t *testing.T) {
	for _, tc := range []struct {
		c     Command
		name  string
		queue StreamKind
	}{
		{&BufferUpload{}, "buffer upload", StreamCopy},
		{&BufferDownload{}, "buffer download", StreamCopy},
		{&BufferCopy{}, "buffer copy", StreamCopy},
		{&BufferToTexture{}, "buffer-to-texture copy", StreamCopy},
		{&TextureToBuffer{}, "texture-to-buffer copy", StreamCopy},
		{&TextureUpload{}, "texture upload", StreamCopy},
		{&TextureDownload{}, "texture download", StreamCopy},
		{&TextureCopy{}, "texture copy", StreamCopy},
		{&ShaderDispatch{}, "dispatch", StreamCompute},
		{&ShaderDispatch{Indirect: 5}, "indirect dispatch", StreamCompute},
		{&BindlessUpdate{}, "bindless update", StreamCompute},
		{&Custom{}, "custom", StreamCompute},
		{&Custom{Name: "blur"}, "custom blur", StreamCompute},
		{&Present{}, "present", StreamCompute},
	} {
		require.Equal(t, tc.name, tc.c.CommandName(), "%T", tc.c)
		require.Equal(t, tc.queue, tc.c.Queue(), "%T", tc.c)
	}
}

func TestCommandCheckOwnFields(t *testing.T) {
	nop := func(uintptr) error { return nil }
	for _, tc := range []struct {
		c    Command
		want string // "" : valid
	}{
		{&BufferCopy{Src: 1, Dst: 1, SrcOffset: 0, DstOffset: 8, Size: 16}, "overlapping copy within buffer #1"},
		{&BufferCopy{Src: 1, Dst: 1, SrcOffset: 0, DstOffset: 16, Size: 16}, ""},
		{&TextureCopy{Src: 2, Dst: 2, SrcLevel: 1, DstLevel: 1}, "copy of texture #2 level 1 onto itself"},
		{&TextureCopy{Src: 2, Dst: 2, SrcLevel: 0, DstLevel: 1}, ""},
		{&ShaderDispatch{Shader: 1, Size: [3]uint32{4, 0, 1}}, "dispatch size [4 0 1] has a zero dimension"},
		{&ShaderDispatch{Shader: 1, Indirect: 3, IndirectOffset: 6}, "indirect offset 6 is not a multiple of 4"},
		{&ShaderDispatch{Shader: 1, Indirect: 3, IndirectOffset: 8}, ""},
		{&BindlessUpdate{Array: 1, Slots: []BindlessSlot{{Slot: 3, Op: 9}}}, "slot 3: operation 9"},
		{&BindlessUpdate{Array: 1, Slots: []BindlessSlot{{Slot: 3, Op: BindlessSetTexture, Sampler: Sampler{Filter: 99}}}}, "slot 3: sampler"},
		{&Custom{Name: "x"}, `custom command "x" has no Func`},
		{&Custom{Name: "x", Func: nop}, ""},
		{&Present{Swapchain: 4}, "a zero handle"},
		{&Present{Swapchain: 4, Texture: 5}, ""},
	} {
		err := tc.c.Check()
		if tc.want == "" {
			require.NoError(t, err, "%s", tc.c.CommandName())
			continue
		}
		require.ErrorIs(t, err, ErrInvalidArgument, "%s", tc.c.CommandName())
		require.Contains(t, err.Error(), tc.want)
	}
}

// Submit refuses a command whose own fields are wrong on any device, with
// or without validation, naming the command.
func TestSubmitChecksCommands(t *testing.T) {
	dev := NewDevice("recorder", newRecorder())
	defer dev.Close()
	s, err := dev.NewStream(StreamCompute)
	require.NoError(t, err)
	err = s.Submit(&BufferUpload{Buffer: 1}, &Custom{Name: "x"})
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), `command 1 (custom x)`)
	require.Contains(t, err.Error(), `has no Func`)
	c, err := dev.NewStream(StreamCopy)
	require.NoError(t, err)
	err = c.Submit(&BindlessUpdate{Array: 1})
	require.ErrorIs(t, err, ErrInvalidArgument)
	require.Contains(t, err.Error(), "command 0 (bindless update)")
}
