package vk

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResult(t *testing.T) {
	for _, tc := range []struct {
		r     Result
		isErr bool
		name  string
	}{
		{SUCCESS, false, "VK_SUCCESS"},
		{NOT_READY, false, "VK_NOT_READY"},
		{TIMEOUT, false, "VK_TIMEOUT"},
		{INCOMPLETE, false, "VK_INCOMPLETE"},
		{SUBOPTIMAL_KHR, false, "VK_SUBOPTIMAL_KHR"},
		{ERROR_DEVICE_LOST, true, "VK_ERROR_DEVICE_LOST"},
		{ERROR_OUT_OF_DEVICE_MEMORY, true, "VK_ERROR_OUT_OF_DEVICE_MEMORY"},
		{ERROR_OUT_OF_DATE_KHR, true, "VK_ERROR_OUT_OF_DATE_KHR"},
		{Result(-12345), true, "Result(-12345)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.name, tc.r.String())
			require.Equal(t, "vk: "+tc.name, tc.r.Error())
			if tc.isErr {
				err := fmt.Errorf("creating: %w", tc.r.Err())
				require.ErrorIs(t, err, tc.r)
				require.False(t, errors.Is(err, ErrMissingCommand))
			} else {
				require.NoError(t, tc.r.Err())
			}
		})
	}
}

func TestEnumAndFlagStrings(t *testing.T) {
	require.Equal(t, "VK_FORMAT_R32G32B32A32_SFLOAT", FORMAT_R32G32B32A32_SFLOAT.String())
	require.Equal(t, "VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT", STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT.String())
	require.Equal(t, "Format(99999)", Format(99999).String())
	require.Equal(t, "0", BufferUsageFlags(0).String())
	require.Equal(t, "VK_BUFFER_USAGE_TRANSFER_SRC_BIT|VK_BUFFER_USAGE_STORAGE_BUFFER_BIT",
		(BUFFER_USAGE_STORAGE_BUFFER_BIT | BUFFER_USAGE_TRANSFER_SRC_BIT).String())
	require.Equal(t, "VK_QUEUE_COMPUTE_BIT|0x80000000", (QUEUE_COMPUTE_BIT | 0x80000000).String())
	// 64-bit flags.
	require.Equal(t, "VK_ACCESS_2_SHADER_STORAGE_READ_BIT", ACCESS_2_SHADER_STORAGE_READ_BIT.String())
	require.Equal(t, AccessFlags2(1<<32), ACCESS_2_SHADER_SAMPLED_READ_BIT)
	// Extension values follow the registry's formula.
	require.Equal(t, StructureType(1000128004), STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT)
	require.Equal(t, Result(-1000001004), ERROR_OUT_OF_DATE_KHR)
}

func TestVersionsAndConstants(t *testing.T) {
	v := MakeAPIVersion(0, 1, 3, HEADER_VERSION)
	require.Equal(t, uint32(1), APIVersionMajor(v))
	require.Equal(t, uint32(3), APIVersionMinor(v))
	require.Equal(t, uint32(HEADER_VERSION), APIVersionPatch(v))
	require.Equal(t, uint32(0), APIVersionVariant(v))
	require.Equal(t, MakeAPIVersion(0, 1, 2, 0), uint32(API_VERSION_1_2))
	require.Greater(t, HEADER_VERSION, 200)
	require.Equal(t, "VK_EXT_debug_utils", EXT_DEBUG_UTILS_EXTENSION_NAME)
	require.Equal(t, uint64(1<<64-1), uint64(WHOLE_SIZE))
	require.Equal(t, uint32(1<<32-2), uint32(QUEUE_FAMILY_EXTERNAL))
}

func TestCStrings(t *testing.T) {
	p := CString("héllo")
	require.Equal(t, "héllo", GoString(p))
	require.Equal(t, "", GoString(nil))
	require.Nil(t, CStrings(nil))
	pp := CStrings([]string{"a", "bc"})
	arr := (*[2]*byte)(pointerOf(pp))
	require.Equal(t, "a", GoString(arr[0]))
	require.Equal(t, "bc", GoString(arr[1]))
	require.Equal(t, "lavapipe", ByteString([]byte("lavapipe\x00junk")))
	require.Equal(t, "full", ByteString([]byte("full")))
}

// TestBitfields: the bitfields of VkAccelerationStructureInstanceKHR sit
// where the specification puts them (low bits first in each 32-bit word).
func TestBitfields(t *testing.T) {
	var in AccelerationStructureInstanceKHR
	in.SetInstanceCustomIndex(0xABCDEF)
	in.SetMask(0x5A)
	in.SetInstanceShaderBindingTableRecordOffset(0x123456)
	in.SetFlags(GEOMETRY_INSTANCE_TRIANGLE_FACING_CULL_DISABLE_BIT_KHR | GEOMETRY_INSTANCE_FORCE_OPAQUE_BIT_KHR)
	in.AccelerationStructureReference = 0x1122334455667788
	raw := (*[64]byte)(pointerOf(&in))
	require.Equal(t, []byte{0xEF, 0xCD, 0xAB, 0x5A}, raw[48:52])
	require.Equal(t, []byte{0x56, 0x34, 0x12, 0x05}, raw[52:56])
	require.Equal(t, uint32(0xABCDEF), in.InstanceCustomIndex())
	require.Equal(t, uint32(0x5A), in.Mask())
	require.Equal(t, uint32(0x123456), in.InstanceShaderBindingTableRecordOffset())
	require.Equal(t, GEOMETRY_INSTANCE_TRIANGLE_FACING_CULL_DISABLE_BIT_KHR|GEOMETRY_INSTANCE_FORCE_OPAQUE_BIT_KHR, in.Flags())
	in.SetInstanceCustomIndex(0x1FFFFFF) // wider than 24 bits: the mask is untouched
	require.Equal(t, uint32(0xFFFFFF), in.InstanceCustomIndex())
	require.Equal(t, uint32(0x5A), in.Mask())
}

func TestUnionAccessors(t *testing.T) {
	var v ClearValue
	*v.Color().Float32() = [4]float32{1, 2, 3, 4}
	require.Equal(t, float32(3), v.Color().Float32()[2])
	v.DepthStencil().Stencil = 9
	require.Equal(t, uint32(9), v.Color().Uint32()[1])
	require.Equal(t, float32(1), v.DepthStencil().Depth)
}
