package vulkan

import (
	"encoding/binary"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/vk"
)

// TestDispatchIDWrapReturnsEarly: with a block size that is not a power of
// two, the last group of a dispatch near 2³² threads reaches ids past
// 2³² − 1, which wrap around to small ones in u32; those threads must return
// early like any other past dispatch_size, not run as threads 0, 1, ….
// Launching 2³² threads takes too long on lavapipe, so the test records only
// that last group by hand, with the header the runtime would push for it
// (dispatch_size 2³² − 1, block_offset of the last group); a first group
// recorded the same way shows the harness runs the kernel at all.
func TestDispatchIDWrapReturnsEarly(t *testing.T) {
	f := newFixture(t)
	if !f.d.caps.BufferDeviceAddress {
		t.Skip("no buffer device addresses")
	}
	const block = 96 // 2³² is not a multiple: the last group overshoots it by 32 threads
	k, err := dsl.Kernel1D(block, func(k *dsl.K, out dsl.BigBuf[dsl.U32]) {
		i := k.DispatchID().X()
		k.If(i.Lt(dsl.U(1024)), func() { out.Write(i, dsl.U(1)) })
	}, "out")
	require.NoError(t, err)
	words, err := codegen.Emit(k, codegen.Options{})
	require.NoError(t, err)
	sig, _, err := device.KernelSignature(k)
	require.NoError(t, err)
	sh, _, err := f.d.CreateShader(device.ShaderDesc{SPIRV: words, Signature: &sig})
	require.NoError(t, err)
	defer f.d.DestroyShader(sh)
	out := f.buffer(4 * 1024)
	f.d.live.RLock()
	shd, _ := lookup[*shader](f.d, sh, "shader")
	bo, _ := lookup[*buffer](f.d, out, "buffer")
	f.d.live.RUnlock()

	const size = 1<<32 - 1
	groups := uint32((size-1)/block + 1)
	for _, tc := range []struct {
		name  string
		group uint32
		want  uint32 // elements set to 1, from 0
	}{
		{"first group", 0, block},
		{"last group", groups - 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc := make([]byte, shd.lay.pushSize)
			binary.LittleEndian.PutUint32(pc[0:], size)
			binary.LittleEndian.PutUint32(pc[4:], 1)
			binary.LittleEndian.PutUint32(pc[8:], 1)
			binary.LittleEndian.PutUint32(pc[12:], tc.group)
			binary.LittleEndian.PutUint64(pc[shd.lay.args[0].offset:], bo.raw.addr)
			binary.LittleEndian.PutUint64(pc[shd.lay.args[0].offset+8:], 1024)
			got := make([]byte, 4*1024)
			f.run(&device.BufferUpload{Buffer: out, Data: make([]byte, 4*1024)},
				&device.Custom{
					Name:      "one group",
					Resources: []device.Usage{{Handle: out, Kind: device.KindBuffer, Access: device.ReadWrite}},
					Func: func(native uintptr) error {
						cb := vk.CommandBuffer(native)
						f.d.fn.CmdBindPipeline(cb, vk.PIPELINE_BIND_POINT_COMPUTE, shd.pipeline)
						f.d.fn.CmdPushConstants(cb, shd.layout, vk.SHADER_STAGE_COMPUTE_BIT, 0, uint32(len(pc)), unsafe.Pointer(&pc[0]))
						f.d.fn.CmdDispatch(cb, 1, 1, 1)
						return nil
					},
				},
				&device.BufferDownload{Buffer: out, Data: got})
			for i, v := range u32s(got) {
				want := uint32(0)
				if uint32(i) < tc.want {
					want = 1
				}
				require.Equal(t, want, v, "element %d", i)
			}
		})
	}
}
