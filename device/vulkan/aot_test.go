package vulkan

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/internal/programs"
)

// TestOfflineArtefact: the artefact is the codegen version then the
// offline module's words; Load gives them back, trusted, declines another
// version's and refuses bytes that are not a module.
func TestOfflineArtefact(t *testing.T) {
	f, err := programs.Saxpy()
	require.NoError(t, err)
	var c offlineCompiler
	art, err := c.Compile(f, device.KernelOptions{})
	require.NoError(t, err)
	words, err := codegen.Emit(f, OfflineOptions(device.KernelOptions{}))
	require.NoError(t, err)
	require.Equal(t, encodeArtefact(codegen.Version, words), art)
	require.Equal(t, art, Artefact(words), "lucentc's launchers embed the same encoding")
	require.Equal(t, uint32(codegen.Version), binary.LittleEndian.Uint32(art))

	desc, ok, err := c.Load(art)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, device.ShaderDesc{SPIRV: words, Trusted: true}, desc)

	_, ok, err = c.Load(encodeArtefact(codegen.Version+1, words))
	require.NoError(t, err)
	require.False(t, ok, "another codegen version's artefact is not used")

	for why, b := range map[string][]byte{
		"empty":          nil,
		"version only":   art[:4],
		"bare SPIR-V":    encodeArtefact(codegen.Version, words)[4:],
		"odd length":     art[:len(art)-1],
		"byte-swapped":   encodeArtefact(codegen.Version, append([]uint32{0x03022307}, words[1:]...)),
		"schema not 0":   encodeArtefact(codegen.Version, append(append([]uint32{}, words[:4]...), append([]uint32{1}, words[5:]...)...)),
		"zero id bound":  encodeArtefact(codegen.Version, append(append([]uint32{}, words[:3]...), append([]uint32{0}, words[4:]...)...)),
		"short a header": encodeArtefact(codegen.Version, words[:4]),
	} {
		t.Run(why, func(t *testing.T) {
			_, ok, err := c.Load(b)
			require.ErrorContains(t, err, "not a SPIR-V artefact")
			require.False(t, ok)
		})
	}
}
