package vulkan

// The Vulkan backend's ahead-of-time artefact (device.SaveKernel) is the
// kernel's SPIR-V, compiled with OfflineOptions, after the version of the
// code generator that made it. Worked example: a module of 5 words made by
// codegen version 7 is
//
//	07 00 00 00   codegen.Version 7 (little-endian)
//	03 02 23 07   the module's words, little-endian: the SPIR-V magic,
//	00 05 01 00   version 1.5,
//	…             generator, bound, schema, instructions
//
// An artefact of another codegen version is not used: device.LoadKernel
// (and device.LoadPrebuilt, for the launchers lucentc -go writes, which
// embed this artefact) compiles the kernel's IR instead, with this build's
// codegen, so a record or a launcher outlives the code generator that wrote
// it. Bytes that are not a module after the version are refused.

import (
	"encoding/binary"
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

// OfflineOptions are the codegen options a kernel is compiled with when no
// device is there to ask (device.SaveKernel): the portable path for every
// capability codegen consults, and every driver workaround of codegen's
// table, so the module runs right on any Vulkan 1.2 device. Accels are
// traced in software; a device whose accels are native structures refuses
// such a module with ErrUnsupported (kernel ABI v1, "Accels"), and
// device.LoadKernel compiles the kernel's IR for it instead.
func OfflineOptions(o device.KernelOptions) codegen.Options {
	fo := codegen.Options{Env: spirv.EnvVulkan1_2, Names: o.DebugNames}
	for _, w := range codegen.AllWorkarounds() {
		w.Apply(&fo)
	}
	return fo
}

// offlineCompiler is the Vulkan backend's device.OfflineCompiler.
type offlineCompiler struct{}

func init() { device.RegisterOfflineCompiler("vulkan", offlineCompiler{}) }

// Compile is the artefact of f: its SPIR-V compiled with OfflineOptions,
// after codegen.Version.
func (offlineCompiler) Compile(f *ir.Function, o device.KernelOptions) ([]byte, error) {
	words, err := codegen.Emit(f, OfflineOptions(o))
	if err != nil {
		return nil, err
	}
	return encodeArtefact(codegen.Version, words), nil
}

// Artefact is the Vulkan backend's ahead-of-time artefact of words, a
// module this build's codegen made (with any options, optimised or not):
// codegen.Version, then the words. lucentc embeds it in its launchers
// (device.Prebuilt).
func Artefact(words []uint32) []byte { return encodeArtefact(codegen.Version, words) }

// Load reads an artefact Compile made back into a SPIR-V shader, trusted:
// it is lucent's codegen output, and the record holding it is
// integrity-checked (RATIONALE.md, "Trust model for SPIR-V"). An artefact
// of another codegen version is not current (ok false).
func (offlineCompiler) Load(artefact []byte) (device.ShaderDesc, bool, error) {
	version, words, err := decodeArtefact(artefact)
	if err != nil {
		return device.ShaderDesc{}, false, err
	}
	if version != codegen.Version {
		return device.ShaderDesc{}, false, nil
	}
	return device.ShaderDesc{SPIRV: words, Trusted: true}, true, nil
}

func encodeArtefact(version uint32, words []uint32) []byte {
	b := make([]byte, 0, 4+4*len(words))
	b = binary.LittleEndian.AppendUint32(b, version)
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

func decodeArtefact(b []byte) (version uint32, words []uint32, err error) {
	if len(b) < 4 {
		return 0, nil, fmt.Errorf("%d bytes, not a SPIR-V artefact", len(b))
	}
	words, why := spirvWords(b[4:])
	if why != "" {
		return 0, nil, fmt.Errorf("not a SPIR-V artefact: %s", why)
	}
	return binary.LittleEndian.Uint32(b), words, nil
}
