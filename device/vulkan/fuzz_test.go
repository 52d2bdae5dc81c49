package vulkan

import (
	"errors"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
	"github.com/lucent-gpu/lucent/spirv/spvtools"
)

// FuzzNewShader feeds random and mutated modules through CreateShader on the
// device, as SPIR-V from outside lucent's compiler (not Trusted): each gives a
// pipeline or an error wrapping ErrInvalidArgument or ErrUnsupported, and
// never crashes the driver. The seeds are the real modules FuzzReflect
// starts from; the first word is kept the SPIR-V magic, so mutations spend
// their time past the header.
func FuzzNewShader(f *testing.F) {
	_, err := spvtools.Path()
	testenv.Need(f, "SPIRV-Tools", err)
	// No validation layer: the driver itself is under test, and the layer
	// would run spirv-val a second time.
	d, err := Open(device.Options{DeviceIndex: -1})
	testenv.Need(f, "a Vulkan device", err)
	f.Cleanup(func() { _ = d.Close() })
	for _, w := range reflectSeeds(f) {
		f.Add(bytesOfU32(w))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		words := u32s(data)
		if len(words) > 0 {
			words[0] = spirv.MagicNumber
		}
		h, _, err := d.CreateShader(device.ShaderDesc{SPIRV: words, Name: "fuzz"})
		if err != nil {
			if !errors.Is(err, device.ErrInvalidArgument) && !errors.Is(err, device.ErrUnsupported) {
				t.Fatalf("%d words: an error of no lucent class: %v", len(words), err)
			}
			return
		}
		if err := d.DestroyShader(h); err != nil {
			t.Fatal(err)
		}
	})
}
