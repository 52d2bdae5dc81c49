package main

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/spirv"
)

// loopExitSource is the reduced rejection sampler of device's
// TestLoopBreakValue as a Go-subset kernel: threads leave the loop at
// different iterations and keep the values assigned just before the break,
// which Mesa 22.3's lavapipe loses unless the loop ends on a flag (codegen's
// loop-exit-flags workaround).
const loopExitSource = `package loopk

import "github.com/lucent-gpu/lucent/kernel"

func next(s uint32) uint32 {
	s ^= s << 13
	s ^= s >> 17
	return s ^ s<<5
}

//lucent:kernel block=64
func LoopExit(out []uint32) {
	i := kernel.DispatchID().X
	st := i + 1
	var px, py uint32
	for {
		st = next(st)
		x := st >> 20
		st = next(st)
		y := st >> 20
		if x*x+y*y < 200000 {
			px, py = x, y
			break
		}
	}
	out[i] = px*10000 + py
}
`

// loopExitWant is thread i of loopExitSource on the host.
func loopExitWant(i uint32) uint32 {
	next := func(s uint32) uint32 {
		s ^= s << 13
		s ^= s >> 17
		return s ^ s<<5
	}
	s := i + 1
	for {
		s = next(s)
		x := s >> 20
		s = next(s)
		y := s >> 20
		if x*x+y*y < 200000 {
			return x*10000 + y
		}
	}
}

// TestModulesCarryDriverWorkarounds: the modules lucentc writes (the .spv
// files and the launchers' artefacts) are compiled with every entry of
// codegen's driver-workaround table, as device.SaveKernel's are, since no
// device is there to say which apply; a launcher's SPIR-V runs as it is on
// whatever driver the program meets. Without them, the loop kernel's
// module came out wrong in 224 of 256 threads on Mesa 22.3's lavapipe.
func TestModulesCarryDriverWorkarounds(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"loopk/k.go": loopExitSource})
	out := t.TempDir()
	_, stderr, code := lucentc(t, "-C", dir, "-o", out, "./loopk")
	require.Equal(t, 0, code, stderr)
	words := readSPV(t, filepath.Join(out, "loopk.LoopExit.spv"))

	ks, errs := gokernel.Check("k.go", []byte(loopExitSource))
	require.Empty(t, errs)
	require.Len(t, ks, 1)
	f := ks[0].Func
	opts := codegen.Options{Env: spirv.EnvVulkan1_2}
	for _, w := range codegen.AllWorkarounds() {
		w.Apply(&opts)
	}
	want, err := codegen.Emit(f, opts)
	require.NoError(t, err)
	require.True(t, slices.Equal(want, words), "the module is not codegen's with every driver workaround")

	dev, err := device.Open(context.Background(), "vulkan")
	if err != nil {
		testenv.Need(t, "a Vulkan device", err)
	}
	defer dev.Close()
	sig, _, err := device.KernelSignature(f)
	require.NoError(t, err)
	blob, err := ir.MarshalKernel(f)
	require.NoError(t, err)
	k, err := device.LoadPrebuilt(dev, device.Prebuilt{Name: "loopk.LoopExit", Signature: sig, IR: blob,
		Artefacts: map[string][]byte{"vulkan": vulkan.Artefact(words)}})
	require.NoError(t, err)
	defer k.Close()
	require.Nil(t, k.Function(), "the artefact was not used")
	const n = 256
	buf, err := device.NewBuffer[uint32](dev, n)
	require.NoError(t, err)
	defer buf.Close()
	st, err := dev.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer st.Close()
	got := make([]uint32, n)
	require.NoError(t, st.Submit(k.Dispatch([3]uint32{n}, buf), buf.Download(got)))
	require.NoError(t, st.Synchronize(context.Background()))
	wrong := 0
	for i, v := range got {
		if v != loopExitWant(uint32(i)) {
			wrong++
		}
	}
	require.Zero(t, wrong, "threads of %d wrong on %s", n, dev.Capabilities().Adapter.Driver)
}
