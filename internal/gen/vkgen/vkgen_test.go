package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseDecl(t *testing.T) {
	for _, tc := range []struct {
		name, inner string
		want        decl
	}{
		{"pointer", `const <type>void</type>*                                            <name>pNext</name>`,
			decl{Type: "void", Name: "pNext", Ptr: 1, Const: true}},
		{"pointer to pointer", `const <type>char</type>* const*      <name>ppEnabledLayerNames</name>`,
			decl{Type: "char", Name: "ppEnabledLayerNames", Ptr: 2, Const: true}},
		{"array of constant size", `<type>char</type>              <name>deviceName</name>[<enum>VK_MAX_PHYSICAL_DEVICE_NAME_SIZE</enum>]`,
			decl{Type: "char", Name: "deviceName", Dims: []string{"VK_MAX_PHYSICAL_DEVICE_NAME_SIZE"}}},
		{"matrix", `<type>float</type>    <name>matrix</name>[3][4]`,
			decl{Type: "float", Name: "matrix", Dims: []string{"3", "4"}}},
		{"bitfield", `<type>uint32_t</type>   <name>mask</name>:8`,
			decl{Type: "uint32_t", Name: "mask", Bits: 8}},
		{"comment inside", `<type>uint32_t</type> <name>x</name><comment>a [2] comment</comment>`,
			decl{Type: "uint32_t", Name: "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := parseDecl(tc.inner)
			require.NoError(t, err)
			require.Equal(t, tc.want, d)
		})
	}
	_, err := parseDecl(`no tags here`)
	require.Error(t, err)
}

func TestEnumValue(t *testing.T) {
	v, err := enumValue(xEnum{Name: "VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR", Offset: "0"}, "2")
	require.NoError(t, err)
	require.Equal(t, int64(1000001000), v.Value)
	v, err = enumValue(xEnum{Name: "VK_ERROR_OUT_OF_DATE_KHR", Offset: "4", Dir: "-"}, "2")
	require.NoError(t, err)
	require.Equal(t, int64(-1000001004), v.Value)
	v, err = enumValue(xEnum{Name: "X", Offset: "1", ExtNumber: "57"}, "2")
	require.NoError(t, err)
	require.Equal(t, int64(1000056001), v.Value, "extnumber overrides the extension's number")
	v, err = enumValue(xEnum{Name: "B", BitPos: "40"}, "")
	require.NoError(t, err)
	require.Equal(t, int64(1)<<40, v.Value)
	require.True(t, v.Bit)
	_, err = enumValue(xEnum{Name: "E"}, "")
	require.Error(t, err)
}

func TestConstExpr(t *testing.T) {
	for in, want := range map[string]string{
		"(~0U)": "0xFFFFFFFF", "(~1U)": "0xFFFFFFFE", "(~0ULL)": "0xFFFFFFFFFFFFFFFF",
		"1000.0F": "1000.0", "256": "256", `"VK_KHR_surface"`: `"VK_KHR_surface"`,
	} {
		got, err := cConstExpr(in)
		require.NoError(t, err)
		require.Equal(t, want, got, in)
	}
	_, err := cConstExpr("(1<<3)")
	require.Error(t, err)
}

func TestNames(t *testing.T) {
	require.Equal(t, "InstanceCreateInfo", goTypeName("VkInstanceCreateInfo"))
	require.Equal(t, "PFN_AllocationFunction", goTypeName("PFN_vkAllocationFunction"))
	require.Equal(t, "STRUCTURE_TYPE_APPLICATION_INFO", goConstName("VK_STRUCTURE_TYPE_APPLICATION_INFO"))
	require.Equal(t, "CreateInstance", goFuncName("vkCreateInstance"))
	require.Equal(t, "SType", goFieldName("sType"))
	require.Equal(t, "type_", goParamName("type"))
}
