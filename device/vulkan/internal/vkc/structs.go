package vkc

// The Vulkan structures the backend passes to the driver, laid out as the C
// declarations in vk.xml (members in order; pointers as unsafe.Pointer,
// handles as uintptr, enums as int32, flags as uint32 or uint64).
// TestLayout compares every size and several offsets with the C compiler.

import "unsafe"

const (
	StructureTypeApplicationInfo                                = 0          // VK_STRUCTURE_TYPE_APPLICATION_INFO
	StructureTypeInstanceCreateInfo                             = 1          // VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO
	StructureTypeDebugUtilsMessengerCreateInfoEXT               = 1000128004 // VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT
	StructureTypeDebugUtilsMessengerCallbackDataEXT             = 1000128003 // VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT
	StructureTypeDebugUtilsObjectNameInfoEXT                    = 1000128000 // VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT
	StructureTypePhysicalDeviceProperties2                      = 1000059001 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
	StructureTypePhysicalDeviceFeatures2                        = 1000059000 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2
	StructureTypePhysicalDeviceVulkan11Features                 = 49         // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES
	StructureTypePhysicalDeviceVulkan12Features                 = 51         // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
	StructureTypePhysicalDeviceVulkan13Features                 = 53         // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES
	StructureTypePhysicalDeviceVulkan11Properties               = 50         // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES
	StructureTypePhysicalDeviceVulkan12Properties               = 52         // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES
	StructureTypePhysicalDeviceVulkan13Properties               = 54         // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES
	StructureTypePhysicalDeviceShaderAtomicFloatFeaturesEXT     = 1000260000 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT
	StructureTypePhysicalDeviceAccelerationStructureFeaturesKHR = 1000150013 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR
	StructureTypePhysicalDeviceRayQueryFeaturesKHR              = 1000348013 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR
	StructureTypePhysicalDevicePushDescriptorPropertiesKHR      = 1000080000 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR
	StructureTypeDeviceQueueCreateInfo                          = 2          // VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO
	StructureTypeDeviceCreateInfo                               = 3          // VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO
	StructureTypeBufferCreateInfo                               = 12         // VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
	StructureTypeMemoryAllocateInfo                             = 5          // VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
	StructureTypeMemoryAllocateFlagsInfo                        = 1000060000 // VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO
	StructureTypeBufferDeviceAddressInfo                        = 1000244001 // VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO
	StructureTypeImageCreateInfo                                = 14         // VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO
	StructureTypeImageViewCreateInfo                            = 15         // VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO
	StructureTypeSamplerCreateInfo                              = 31         // VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO
	StructureTypeCommandPoolCreateInfo                          = 39         // VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO
	StructureTypeCommandBufferAllocateInfo                      = 40         // VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
	StructureTypeCommandBufferBeginInfo                         = 42         // VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
	StructureTypeSubmitInfo2                                    = 1000314004 // VK_STRUCTURE_TYPE_SUBMIT_INFO_2
	StructureTypeCommandBufferSubmitInfo                        = 1000314006 // VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO
	StructureTypeSemaphoreSubmitInfo                            = 1000314005 // VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO
	StructureTypeSemaphoreCreateInfo                            = 9          // VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO
	StructureTypeSemaphoreTypeCreateInfo                        = 1000207002 // VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO
	StructureTypeSemaphoreWaitInfo                              = 1000207004 // VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO
	StructureTypeSemaphoreSignalInfo                            = 1000207005 // VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO
	StructureTypeShaderModuleCreateInfo                         = 16         // VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
	StructureTypeDescriptorSetLayoutCreateInfo                  = 32         // VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
	StructureTypePipelineLayoutCreateInfo                       = 30         // VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO
	StructureTypePipelineShaderStageCreateInfo                  = 18         // VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO
	StructureTypeComputePipelineCreateInfo                      = 29         // VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO
	StructureTypeWriteDescriptorSet                             = 35         // VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
	StructureTypeMemoryBarrier2                                 = 1000314000 // VK_STRUCTURE_TYPE_MEMORY_BARRIER_2
	StructureTypeBufferMemoryBarrier2                           = 1000314001 // VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2
	StructureTypeImageMemoryBarrier2                            = 1000314002 // VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2
	StructureTypeDependencyInfo                                 = 1000314003 // VK_STRUCTURE_TYPE_DEPENDENCY_INFO
	StructureTypePhysicalDeviceMemoryProperties2                = 1000059006 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2
	StructureTypePhysicalDeviceMemoryBudgetPropertiesEXT        = 1000237000 // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT
)

type ApplicationInfo struct {
	SType              int32
	PNext              unsafe.Pointer
	PApplicationName   unsafe.Pointer
	ApplicationVersion uint32
	PEngineName        unsafe.Pointer
	EngineVersion      uint32
	ApiVersion         uint32
}

type InstanceCreateInfo struct {
	SType                   int32
	PNext                   unsafe.Pointer
	Flags                   uint32
	PApplicationInfo        unsafe.Pointer
	EnabledLayerCount       uint32
	PpEnabledLayerNames     unsafe.Pointer
	EnabledExtensionCount   uint32
	PpEnabledExtensionNames unsafe.Pointer
}

type DebugUtilsMessengerCreateInfoEXT struct {
	SType           int32
	PNext           unsafe.Pointer
	Flags           uint32
	MessageSeverity uint32
	MessageType     uint32
	PfnUserCallback uintptr
	PUserData       unsafe.Pointer
}

type DebugUtilsMessengerCallbackDataEXT struct {
	SType            int32
	PNext            unsafe.Pointer
	Flags            uint32
	PMessageIdName   unsafe.Pointer
	MessageIdNumber  int32
	PMessage         unsafe.Pointer
	QueueLabelCount  uint32
	PQueueLabels     unsafe.Pointer
	CmdBufLabelCount uint32
	PCmdBufLabels    unsafe.Pointer
	ObjectCount      uint32
	PObjects         unsafe.Pointer
}

type DebugUtilsObjectNameInfoEXT struct {
	SType        int32
	PNext        unsafe.Pointer
	ObjectType   int32
	ObjectHandle uint64
	PObjectName  unsafe.Pointer
}

type PhysicalDeviceProperties struct {
	ApiVersion        uint32
	DriverVersion     uint32
	VendorID          uint32
	DeviceID          uint32
	DeviceType        int32
	DeviceName        [256]byte
	PipelineCacheUUID [16]uint8
	Limits            PhysicalDeviceLimits
	SparseProperties  PhysicalDeviceSparseProperties
}

type PhysicalDeviceLimits struct {
	MaxImageDimension1D                             uint32
	MaxImageDimension2D                             uint32
	MaxImageDimension3D                             uint32
	MaxImageDimensionCube                           uint32
	MaxImageArrayLayers                             uint32
	MaxTexelBufferElements                          uint32
	MaxUniformBufferRange                           uint32
	MaxStorageBufferRange                           uint32
	MaxPushConstantsSize                            uint32
	MaxMemoryAllocationCount                        uint32
	MaxSamplerAllocationCount                       uint32
	BufferImageGranularity                          uint64
	SparseAddressSpaceSize                          uint64
	MaxBoundDescriptorSets                          uint32
	MaxPerStageDescriptorSamplers                   uint32
	MaxPerStageDescriptorUniformBuffers             uint32
	MaxPerStageDescriptorStorageBuffers             uint32
	MaxPerStageDescriptorSampledImages              uint32
	MaxPerStageDescriptorStorageImages              uint32
	MaxPerStageDescriptorInputAttachments           uint32
	MaxPerStageResources                            uint32
	MaxDescriptorSetSamplers                        uint32
	MaxDescriptorSetUniformBuffers                  uint32
	MaxDescriptorSetUniformBuffersDynamic           uint32
	MaxDescriptorSetStorageBuffers                  uint32
	MaxDescriptorSetStorageBuffersDynamic           uint32
	MaxDescriptorSetSampledImages                   uint32
	MaxDescriptorSetStorageImages                   uint32
	MaxDescriptorSetInputAttachments                uint32
	MaxVertexInputAttributes                        uint32
	MaxVertexInputBindings                          uint32
	MaxVertexInputAttributeOffset                   uint32
	MaxVertexInputBindingStride                     uint32
	MaxVertexOutputComponents                       uint32
	MaxTessellationGenerationLevel                  uint32
	MaxTessellationPatchSize                        uint32
	MaxTessellationControlPerVertexInputComponents  uint32
	MaxTessellationControlPerVertexOutputComponents uint32
	MaxTessellationControlPerPatchOutputComponents  uint32
	MaxTessellationControlTotalOutputComponents     uint32
	MaxTessellationEvaluationInputComponents        uint32
	MaxTessellationEvaluationOutputComponents       uint32
	MaxGeometryShaderInvocations                    uint32
	MaxGeometryInputComponents                      uint32
	MaxGeometryOutputComponents                     uint32
	MaxGeometryOutputVertices                       uint32
	MaxGeometryTotalOutputComponents                uint32
	MaxFragmentInputComponents                      uint32
	MaxFragmentOutputAttachments                    uint32
	MaxFragmentDualSrcAttachments                   uint32
	MaxFragmentCombinedOutputResources              uint32
	MaxComputeSharedMemorySize                      uint32
	MaxComputeWorkGroupCount                        [3]uint32
	MaxComputeWorkGroupInvocations                  uint32
	MaxComputeWorkGroupSize                         [3]uint32
	SubPixelPrecisionBits                           uint32
	SubTexelPrecisionBits                           uint32
	MipmapPrecisionBits                             uint32
	MaxDrawIndexedIndexValue                        uint32
	MaxDrawIndirectCount                            uint32
	MaxSamplerLodBias                               float32
	MaxSamplerAnisotropy                            float32
	MaxViewports                                    uint32
	MaxViewportDimensions                           [2]uint32
	ViewportBoundsRange                             [2]float32
	ViewportSubPixelBits                            uint32
	MinMemoryMapAlignment                           uintptr
	MinTexelBufferOffsetAlignment                   uint64
	MinUniformBufferOffsetAlignment                 uint64
	MinStorageBufferOffsetAlignment                 uint64
	MinTexelOffset                                  int32
	MaxTexelOffset                                  uint32
	MinTexelGatherOffset                            int32
	MaxTexelGatherOffset                            uint32
	MinInterpolationOffset                          float32
	MaxInterpolationOffset                          float32
	SubPixelInterpolationOffsetBits                 uint32
	MaxFramebufferWidth                             uint32
	MaxFramebufferHeight                            uint32
	MaxFramebufferLayers                            uint32
	FramebufferColorSampleCounts                    uint32
	FramebufferDepthSampleCounts                    uint32
	FramebufferStencilSampleCounts                  uint32
	FramebufferNoAttachmentsSampleCounts            uint32
	MaxColorAttachments                             uint32
	SampledImageColorSampleCounts                   uint32
	SampledImageIntegerSampleCounts                 uint32
	SampledImageDepthSampleCounts                   uint32
	SampledImageStencilSampleCounts                 uint32
	StorageImageSampleCounts                        uint32
	MaxSampleMaskWords                              uint32
	TimestampComputeAndGraphics                     uint32
	TimestampPeriod                                 float32
	MaxClipDistances                                uint32
	MaxCullDistances                                uint32
	MaxCombinedClipAndCullDistances                 uint32
	DiscreteQueuePriorities                         uint32
	PointSizeRange                                  [2]float32
	LineWidthRange                                  [2]float32
	PointSizeGranularity                            float32
	LineWidthGranularity                            float32
	StrictLines                                     uint32
	StandardSampleLocations                         uint32
	OptimalBufferCopyOffsetAlignment                uint64
	OptimalBufferCopyRowPitchAlignment              uint64
	NonCoherentAtomSize                             uint64
}

type PhysicalDeviceSparseProperties struct {
	ResidencyStandard2DBlockShape            uint32
	ResidencyStandard2DMultisampleBlockShape uint32
	ResidencyStandard3DBlockShape            uint32
	ResidencyAlignedMipSize                  uint32
	ResidencyNonResidentStrict               uint32
}

type PhysicalDeviceProperties2 struct {
	SType      int32
	PNext      unsafe.Pointer
	Properties PhysicalDeviceProperties
}

type PhysicalDeviceFeatures struct {
	RobustBufferAccess                      uint32
	FullDrawIndexUint32                     uint32
	ImageCubeArray                          uint32
	IndependentBlend                        uint32
	GeometryShader                          uint32
	TessellationShader                      uint32
	SampleRateShading                       uint32
	DualSrcBlend                            uint32
	LogicOp                                 uint32
	MultiDrawIndirect                       uint32
	DrawIndirectFirstInstance               uint32
	DepthClamp                              uint32
	DepthBiasClamp                          uint32
	FillModeNonSolid                        uint32
	DepthBounds                             uint32
	WideLines                               uint32
	LargePoints                             uint32
	AlphaToOne                              uint32
	MultiViewport                           uint32
	SamplerAnisotropy                       uint32
	TextureCompressionETC2                  uint32
	TextureCompressionASTC_LDR              uint32
	TextureCompressionBC                    uint32
	OcclusionQueryPrecise                   uint32
	PipelineStatisticsQuery                 uint32
	VertexPipelineStoresAndAtomics          uint32
	FragmentStoresAndAtomics                uint32
	ShaderTessellationAndGeometryPointSize  uint32
	ShaderImageGatherExtended               uint32
	ShaderStorageImageExtendedFormats       uint32
	ShaderStorageImageMultisample           uint32
	ShaderStorageImageReadWithoutFormat     uint32
	ShaderStorageImageWriteWithoutFormat    uint32
	ShaderUniformBufferArrayDynamicIndexing uint32
	ShaderSampledImageArrayDynamicIndexing  uint32
	ShaderStorageBufferArrayDynamicIndexing uint32
	ShaderStorageImageArrayDynamicIndexing  uint32
	ShaderClipDistance                      uint32
	ShaderCullDistance                      uint32
	ShaderFloat64                           uint32
	ShaderInt64                             uint32
	ShaderInt16                             uint32
	ShaderResourceResidency                 uint32
	ShaderResourceMinLod                    uint32
	SparseBinding                           uint32
	SparseResidencyBuffer                   uint32
	SparseResidencyImage2D                  uint32
	SparseResidencyImage3D                  uint32
	SparseResidency2Samples                 uint32
	SparseResidency4Samples                 uint32
	SparseResidency8Samples                 uint32
	SparseResidency16Samples                uint32
	SparseResidencyAliased                  uint32
	VariableMultisampleRate                 uint32
	InheritedQueries                        uint32
}

type PhysicalDeviceFeatures2 struct {
	SType    int32
	PNext    unsafe.Pointer
	Features PhysicalDeviceFeatures
}

type PhysicalDeviceVulkan11Features struct {
	SType                              int32
	PNext                              unsafe.Pointer
	StorageBuffer16BitAccess           uint32
	UniformAndStorageBuffer16BitAccess uint32
	StoragePushConstant16              uint32
	StorageInputOutput16               uint32
	Multiview                          uint32
	MultiviewGeometryShader            uint32
	MultiviewTessellationShader        uint32
	VariablePointersStorageBuffer      uint32
	VariablePointers                   uint32
	ProtectedMemory                    uint32
	SamplerYcbcrConversion             uint32
	ShaderDrawParameters               uint32
}

type PhysicalDeviceVulkan12Features struct {
	SType                                              int32
	PNext                                              unsafe.Pointer
	SamplerMirrorClampToEdge                           uint32
	DrawIndirectCount                                  uint32
	StorageBuffer8BitAccess                            uint32
	UniformAndStorageBuffer8BitAccess                  uint32
	StoragePushConstant8                               uint32
	ShaderBufferInt64Atomics                           uint32
	ShaderSharedInt64Atomics                           uint32
	ShaderFloat16                                      uint32
	ShaderInt8                                         uint32
	DescriptorIndexing                                 uint32
	ShaderInputAttachmentArrayDynamicIndexing          uint32
	ShaderUniformTexelBufferArrayDynamicIndexing       uint32
	ShaderStorageTexelBufferArrayDynamicIndexing       uint32
	ShaderUniformBufferArrayNonUniformIndexing         uint32
	ShaderSampledImageArrayNonUniformIndexing          uint32
	ShaderStorageBufferArrayNonUniformIndexing         uint32
	ShaderStorageImageArrayNonUniformIndexing          uint32
	ShaderInputAttachmentArrayNonUniformIndexing       uint32
	ShaderUniformTexelBufferArrayNonUniformIndexing    uint32
	ShaderStorageTexelBufferArrayNonUniformIndexing    uint32
	DescriptorBindingUniformBufferUpdateAfterBind      uint32
	DescriptorBindingSampledImageUpdateAfterBind       uint32
	DescriptorBindingStorageImageUpdateAfterBind       uint32
	DescriptorBindingStorageBufferUpdateAfterBind      uint32
	DescriptorBindingUniformTexelBufferUpdateAfterBind uint32
	DescriptorBindingStorageTexelBufferUpdateAfterBind uint32
	DescriptorBindingUpdateUnusedWhilePending          uint32
	DescriptorBindingPartiallyBound                    uint32
	DescriptorBindingVariableDescriptorCount           uint32
	RuntimeDescriptorArray                             uint32
	SamplerFilterMinmax                                uint32
	ScalarBlockLayout                                  uint32
	ImagelessFramebuffer                               uint32
	UniformBufferStandardLayout                        uint32
	ShaderSubgroupExtendedTypes                        uint32
	SeparateDepthStencilLayouts                        uint32
	HostQueryReset                                     uint32
	TimelineSemaphore                                  uint32
	BufferDeviceAddress                                uint32
	BufferDeviceAddressCaptureReplay                   uint32
	BufferDeviceAddressMultiDevice                     uint32
	VulkanMemoryModel                                  uint32
	VulkanMemoryModelDeviceScope                       uint32
	VulkanMemoryModelAvailabilityVisibilityChains      uint32
	ShaderOutputViewportIndex                          uint32
	ShaderOutputLayer                                  uint32
	SubgroupBroadcastDynamicId                         uint32
}

type PhysicalDeviceVulkan13Features struct {
	SType                                              int32
	PNext                                              unsafe.Pointer
	RobustImageAccess                                  uint32
	InlineUniformBlock                                 uint32
	DescriptorBindingInlineUniformBlockUpdateAfterBind uint32
	PipelineCreationCacheControl                       uint32
	PrivateData                                        uint32
	ShaderDemoteToHelperInvocation                     uint32
	ShaderTerminateInvocation                          uint32
	SubgroupSizeControl                                uint32
	ComputeFullSubgroups                               uint32
	Synchronization2                                   uint32
	TextureCompressionASTC_HDR                         uint32
	ShaderZeroInitializeWorkgroupMemory                uint32
	DynamicRendering                                   uint32
	ShaderIntegerDotProduct                            uint32
	Maintenance4                                       uint32
}

type PhysicalDeviceVulkan11Properties struct {
	SType                             int32
	PNext                             unsafe.Pointer
	DeviceUUID                        [16]uint8
	DriverUUID                        [16]uint8
	DeviceLUID                        [8]uint8
	DeviceNodeMask                    uint32
	DeviceLUIDValid                   uint32
	SubgroupSize                      uint32
	SubgroupSupportedStages           uint32
	SubgroupSupportedOperations       uint32
	SubgroupQuadOperationsInAllStages uint32
	PointClippingBehavior             int32
	MaxMultiviewViewCount             uint32
	MaxMultiviewInstanceIndex         uint32
	ProtectedNoFault                  uint32
	MaxPerSetDescriptors              uint32
	MaxMemoryAllocationSize           uint64
}

type PhysicalDeviceVulkan12Properties struct {
	SType                                                int32
	PNext                                                unsafe.Pointer
	DriverID                                             int32
	DriverName                                           [256]byte
	DriverInfo                                           [256]byte
	ConformanceVersion                                   ConformanceVersion
	DenormBehaviorIndependence                           int32
	RoundingModeIndependence                             int32
	ShaderSignedZeroInfNanPreserveFloat16                uint32
	ShaderSignedZeroInfNanPreserveFloat32                uint32
	ShaderSignedZeroInfNanPreserveFloat64                uint32
	ShaderDenormPreserveFloat16                          uint32
	ShaderDenormPreserveFloat32                          uint32
	ShaderDenormPreserveFloat64                          uint32
	ShaderDenormFlushToZeroFloat16                       uint32
	ShaderDenormFlushToZeroFloat32                       uint32
	ShaderDenormFlushToZeroFloat64                       uint32
	ShaderRoundingModeRTEFloat16                         uint32
	ShaderRoundingModeRTEFloat32                         uint32
	ShaderRoundingModeRTEFloat64                         uint32
	ShaderRoundingModeRTZFloat16                         uint32
	ShaderRoundingModeRTZFloat32                         uint32
	ShaderRoundingModeRTZFloat64                         uint32
	MaxUpdateAfterBindDescriptorsInAllPools              uint32
	ShaderUniformBufferArrayNonUniformIndexingNative     uint32
	ShaderSampledImageArrayNonUniformIndexingNative      uint32
	ShaderStorageBufferArrayNonUniformIndexingNative     uint32
	ShaderStorageImageArrayNonUniformIndexingNative      uint32
	ShaderInputAttachmentArrayNonUniformIndexingNative   uint32
	RobustBufferAccessUpdateAfterBind                    uint32
	QuadDivergentImplicitLod                             uint32
	MaxPerStageDescriptorUpdateAfterBindSamplers         uint32
	MaxPerStageDescriptorUpdateAfterBindUniformBuffers   uint32
	MaxPerStageDescriptorUpdateAfterBindStorageBuffers   uint32
	MaxPerStageDescriptorUpdateAfterBindSampledImages    uint32
	MaxPerStageDescriptorUpdateAfterBindStorageImages    uint32
	MaxPerStageDescriptorUpdateAfterBindInputAttachments uint32
	MaxPerStageUpdateAfterBindResources                  uint32
	MaxDescriptorSetUpdateAfterBindSamplers              uint32
	MaxDescriptorSetUpdateAfterBindUniformBuffers        uint32
	MaxDescriptorSetUpdateAfterBindUniformBuffersDynamic uint32
	MaxDescriptorSetUpdateAfterBindStorageBuffers        uint32
	MaxDescriptorSetUpdateAfterBindStorageBuffersDynamic uint32
	MaxDescriptorSetUpdateAfterBindSampledImages         uint32
	MaxDescriptorSetUpdateAfterBindStorageImages         uint32
	MaxDescriptorSetUpdateAfterBindInputAttachments      uint32
	SupportedDepthResolveModes                           uint32
	SupportedStencilResolveModes                         uint32
	IndependentResolveNone                               uint32
	IndependentResolve                                   uint32
	FilterMinmaxSingleComponentFormats                   uint32
	FilterMinmaxImageComponentMapping                    uint32
	MaxTimelineSemaphoreValueDifference                  uint64
	FramebufferIntegerColorSampleCounts                  uint32
}

type PhysicalDeviceVulkan13Properties struct {
	SType                                                                         int32
	PNext                                                                         unsafe.Pointer
	MinSubgroupSize                                                               uint32
	MaxSubgroupSize                                                               uint32
	MaxComputeWorkgroupSubgroups                                                  uint32
	RequiredSubgroupSizeStages                                                    uint32
	MaxInlineUniformBlockSize                                                     uint32
	MaxPerStageDescriptorInlineUniformBlocks                                      uint32
	MaxPerStageDescriptorUpdateAfterBindInlineUniformBlocks                       uint32
	MaxDescriptorSetInlineUniformBlocks                                           uint32
	MaxDescriptorSetUpdateAfterBindInlineUniformBlocks                            uint32
	MaxInlineUniformTotalSize                                                     uint32
	IntegerDotProduct8BitUnsignedAccelerated                                      uint32
	IntegerDotProduct8BitSignedAccelerated                                        uint32
	IntegerDotProduct8BitMixedSignednessAccelerated                               uint32
	IntegerDotProduct4x8BitPackedUnsignedAccelerated                              uint32
	IntegerDotProduct4x8BitPackedSignedAccelerated                                uint32
	IntegerDotProduct4x8BitPackedMixedSignednessAccelerated                       uint32
	IntegerDotProduct16BitUnsignedAccelerated                                     uint32
	IntegerDotProduct16BitSignedAccelerated                                       uint32
	IntegerDotProduct16BitMixedSignednessAccelerated                              uint32
	IntegerDotProduct32BitUnsignedAccelerated                                     uint32
	IntegerDotProduct32BitSignedAccelerated                                       uint32
	IntegerDotProduct32BitMixedSignednessAccelerated                              uint32
	IntegerDotProduct64BitUnsignedAccelerated                                     uint32
	IntegerDotProduct64BitSignedAccelerated                                       uint32
	IntegerDotProduct64BitMixedSignednessAccelerated                              uint32
	IntegerDotProductAccumulatingSaturating8BitUnsignedAccelerated                uint32
	IntegerDotProductAccumulatingSaturating8BitSignedAccelerated                  uint32
	IntegerDotProductAccumulatingSaturating8BitMixedSignednessAccelerated         uint32
	IntegerDotProductAccumulatingSaturating4x8BitPackedUnsignedAccelerated        uint32
	IntegerDotProductAccumulatingSaturating4x8BitPackedSignedAccelerated          uint32
	IntegerDotProductAccumulatingSaturating4x8BitPackedMixedSignednessAccelerated uint32
	IntegerDotProductAccumulatingSaturating16BitUnsignedAccelerated               uint32
	IntegerDotProductAccumulatingSaturating16BitSignedAccelerated                 uint32
	IntegerDotProductAccumulatingSaturating16BitMixedSignednessAccelerated        uint32
	IntegerDotProductAccumulatingSaturating32BitUnsignedAccelerated               uint32
	IntegerDotProductAccumulatingSaturating32BitSignedAccelerated                 uint32
	IntegerDotProductAccumulatingSaturating32BitMixedSignednessAccelerated        uint32
	IntegerDotProductAccumulatingSaturating64BitUnsignedAccelerated               uint32
	IntegerDotProductAccumulatingSaturating64BitSignedAccelerated                 uint32
	IntegerDotProductAccumulatingSaturating64BitMixedSignednessAccelerated        uint32
	StorageTexelBufferOffsetAlignmentBytes                                        uint64
	StorageTexelBufferOffsetSingleTexelAlignment                                  uint32
	UniformTexelBufferOffsetAlignmentBytes                                        uint64
	UniformTexelBufferOffsetSingleTexelAlignment                                  uint32
	MaxBufferSize                                                                 uint64
}

type PhysicalDeviceShaderAtomicFloatFeaturesEXT struct {
	SType                        int32
	PNext                        unsafe.Pointer
	ShaderBufferFloat32Atomics   uint32
	ShaderBufferFloat32AtomicAdd uint32
	ShaderBufferFloat64Atomics   uint32
	ShaderBufferFloat64AtomicAdd uint32
	ShaderSharedFloat32Atomics   uint32
	ShaderSharedFloat32AtomicAdd uint32
	ShaderSharedFloat64Atomics   uint32
	ShaderSharedFloat64AtomicAdd uint32
	ShaderImageFloat32Atomics    uint32
	ShaderImageFloat32AtomicAdd  uint32
	SparseImageFloat32Atomics    uint32
	SparseImageFloat32AtomicAdd  uint32
}

type PhysicalDeviceAccelerationStructureFeaturesKHR struct {
	SType                                                 int32
	PNext                                                 unsafe.Pointer
	AccelerationStructure                                 uint32
	AccelerationStructureCaptureReplay                    uint32
	AccelerationStructureIndirectBuild                    uint32
	AccelerationStructureHostCommands                     uint32
	DescriptorBindingAccelerationStructureUpdateAfterBind uint32
}

type PhysicalDeviceRayQueryFeaturesKHR struct {
	SType    int32
	PNext    unsafe.Pointer
	RayQuery uint32
}

type PhysicalDevicePushDescriptorPropertiesKHR struct {
	SType              int32
	PNext              unsafe.Pointer
	MaxPushDescriptors uint32
}

type PhysicalDeviceMemoryProperties struct {
	MemoryTypeCount uint32
	MemoryTypes     [32]MemoryType
	MemoryHeapCount uint32
	MemoryHeaps     [16]MemoryHeap
}

type MemoryType struct {
	PropertyFlags uint32
	HeapIndex     uint32
}

type MemoryHeap struct {
	Size  uint64
	Flags uint32
}

type QueueFamilyProperties struct {
	QueueFlags                  uint32
	QueueCount                  uint32
	TimestampValidBits          uint32
	MinImageTransferGranularity Extent3D
}

type Extent3D struct {
	Width  uint32
	Height uint32
	Depth  uint32
}

type Offset3D struct {
	X int32
	Y int32
	Z int32
}

type DeviceQueueCreateInfo struct {
	SType            int32
	PNext            unsafe.Pointer
	Flags            uint32
	QueueFamilyIndex uint32
	QueueCount       uint32
	PQueuePriorities unsafe.Pointer
}

type DeviceCreateInfo struct {
	SType                   int32
	PNext                   unsafe.Pointer
	Flags                   uint32
	QueueCreateInfoCount    uint32
	PQueueCreateInfos       unsafe.Pointer
	EnabledLayerCount       uint32
	PpEnabledLayerNames     unsafe.Pointer
	EnabledExtensionCount   uint32
	PpEnabledExtensionNames unsafe.Pointer
	PEnabledFeatures        unsafe.Pointer
}

type ExtensionProperties struct {
	ExtensionName [256]byte
	SpecVersion   uint32
}

type LayerProperties struct {
	LayerName             [256]byte
	SpecVersion           uint32
	ImplementationVersion uint32
	Description           [256]byte
}

type BufferCreateInfo struct {
	SType                 int32
	PNext                 unsafe.Pointer
	Flags                 uint32
	Size                  uint64
	Usage                 uint32
	SharingMode           int32
	QueueFamilyIndexCount uint32
	PQueueFamilyIndices   unsafe.Pointer
}

type MemoryRequirements struct {
	Size           uint64
	Alignment      uint64
	MemoryTypeBits uint32
}

type MemoryAllocateInfo struct {
	SType           int32
	PNext           unsafe.Pointer
	AllocationSize  uint64
	MemoryTypeIndex uint32
}

type MemoryAllocateFlagsInfo struct {
	SType      int32
	PNext      unsafe.Pointer
	Flags      uint32
	DeviceMask uint32
}

type BufferDeviceAddressInfo struct {
	SType  int32
	PNext  unsafe.Pointer
	Buffer uintptr
}

type ImageCreateInfo struct {
	SType                 int32
	PNext                 unsafe.Pointer
	Flags                 uint32
	ImageType             int32
	Format                int32
	Extent                Extent3D
	MipLevels             uint32
	ArrayLayers           uint32
	Samples               int32
	Tiling                int32
	Usage                 uint32
	SharingMode           int32
	QueueFamilyIndexCount uint32
	PQueueFamilyIndices   unsafe.Pointer
	InitialLayout         int32
}

type ImageViewCreateInfo struct {
	SType            int32
	PNext            unsafe.Pointer
	Flags            uint32
	Image            uintptr
	ViewType         int32
	Format           int32
	Components       ComponentMapping
	SubresourceRange ImageSubresourceRange
}

type ComponentMapping struct {
	R int32
	G int32
	B int32
	A int32
}

type ImageSubresourceRange struct {
	AspectMask     uint32
	BaseMipLevel   uint32
	LevelCount     uint32
	BaseArrayLayer uint32
	LayerCount     uint32
}

type ImageSubresourceLayers struct {
	AspectMask     uint32
	MipLevel       uint32
	BaseArrayLayer uint32
	LayerCount     uint32
}

type SamplerCreateInfo struct {
	SType                   int32
	PNext                   unsafe.Pointer
	Flags                   uint32
	MagFilter               int32
	MinFilter               int32
	MipmapMode              int32
	AddressModeU            int32
	AddressModeV            int32
	AddressModeW            int32
	MipLodBias              float32
	AnisotropyEnable        uint32
	MaxAnisotropy           float32
	CompareEnable           uint32
	CompareOp               int32
	MinLod                  float32
	MaxLod                  float32
	BorderColor             int32
	UnnormalizedCoordinates uint32
}

type CommandPoolCreateInfo struct {
	SType            int32
	PNext            unsafe.Pointer
	Flags            uint32
	QueueFamilyIndex uint32
}

type CommandBufferAllocateInfo struct {
	SType              int32
	PNext              unsafe.Pointer
	CommandPool        uintptr
	Level              int32
	CommandBufferCount uint32
}

type CommandBufferBeginInfo struct {
	SType            int32
	PNext            unsafe.Pointer
	Flags            uint32
	PInheritanceInfo unsafe.Pointer
}

type SubmitInfo2 struct {
	SType                    int32
	PNext                    unsafe.Pointer
	Flags                    uint32
	WaitSemaphoreInfoCount   uint32
	PWaitSemaphoreInfos      unsafe.Pointer
	CommandBufferInfoCount   uint32
	PCommandBufferInfos      unsafe.Pointer
	SignalSemaphoreInfoCount uint32
	PSignalSemaphoreInfos    unsafe.Pointer
}

type CommandBufferSubmitInfo struct {
	SType         int32
	PNext         unsafe.Pointer
	CommandBuffer uintptr
	DeviceMask    uint32
}

type SemaphoreSubmitInfo struct {
	SType       int32
	PNext       unsafe.Pointer
	Semaphore   uintptr
	Value       uint64
	StageMask   uint64
	DeviceIndex uint32
}

type SemaphoreCreateInfo struct {
	SType int32
	PNext unsafe.Pointer
	Flags uint32
}

type SemaphoreTypeCreateInfo struct {
	SType         int32
	PNext         unsafe.Pointer
	SemaphoreType int32
	InitialValue  uint64
}

type SemaphoreWaitInfo struct {
	SType          int32
	PNext          unsafe.Pointer
	Flags          uint32
	SemaphoreCount uint32
	PSemaphores    unsafe.Pointer
	PValues        unsafe.Pointer
}

type SemaphoreSignalInfo struct {
	SType     int32
	PNext     unsafe.Pointer
	Semaphore uintptr
	Value     uint64
}

type ShaderModuleCreateInfo struct {
	SType    int32
	PNext    unsafe.Pointer
	Flags    uint32
	CodeSize uintptr
	PCode    unsafe.Pointer
}

type DescriptorSetLayoutBinding struct {
	Binding            uint32
	DescriptorType     int32
	DescriptorCount    uint32
	StageFlags         uint32
	PImmutableSamplers unsafe.Pointer
}

type DescriptorSetLayoutCreateInfo struct {
	SType        int32
	PNext        unsafe.Pointer
	Flags        uint32
	BindingCount uint32
	PBindings    unsafe.Pointer
}

type PushConstantRange struct {
	StageFlags uint32
	Offset     uint32
	Size       uint32
}

type PipelineLayoutCreateInfo struct {
	SType                  int32
	PNext                  unsafe.Pointer
	Flags                  uint32
	SetLayoutCount         uint32
	PSetLayouts            unsafe.Pointer
	PushConstantRangeCount uint32
	PPushConstantRanges    unsafe.Pointer
}

type PipelineShaderStageCreateInfo struct {
	SType               int32
	PNext               unsafe.Pointer
	Flags               uint32
	Stage               int32
	Module              uintptr
	PName               unsafe.Pointer
	PSpecializationInfo unsafe.Pointer
}

type ComputePipelineCreateInfo struct {
	SType              int32
	PNext              unsafe.Pointer
	Flags              uint32
	Stage              PipelineShaderStageCreateInfo
	Layout             uintptr
	BasePipelineHandle uintptr
	BasePipelineIndex  int32
}

type SpecializationInfo struct {
	MapEntryCount uint32
	PMapEntries   unsafe.Pointer
	DataSize      uintptr
	PData         unsafe.Pointer
}

type WriteDescriptorSet struct {
	SType            int32
	PNext            unsafe.Pointer
	DstSet           uintptr
	DstBinding       uint32
	DstArrayElement  uint32
	DescriptorCount  uint32
	DescriptorType   int32
	PImageInfo       unsafe.Pointer
	PBufferInfo      unsafe.Pointer
	PTexelBufferView unsafe.Pointer
}

type DescriptorBufferInfo struct {
	Buffer uintptr
	Offset uint64
	Range  uint64
}

type DescriptorImageInfo struct {
	Sampler     uintptr
	ImageView   uintptr
	ImageLayout int32
}

type BufferCopy struct {
	SrcOffset uint64
	DstOffset uint64
	Size      uint64
}

type BufferImageCopy struct {
	BufferOffset      uint64
	BufferRowLength   uint32
	BufferImageHeight uint32
	ImageSubresource  ImageSubresourceLayers
	ImageOffset       Offset3D
	ImageExtent       Extent3D
}

type MemoryBarrier2 struct {
	SType         int32
	PNext         unsafe.Pointer
	SrcStageMask  uint64
	SrcAccessMask uint64
	DstStageMask  uint64
	DstAccessMask uint64
}

type BufferMemoryBarrier2 struct {
	SType               int32
	PNext               unsafe.Pointer
	SrcStageMask        uint64
	SrcAccessMask       uint64
	DstStageMask        uint64
	DstAccessMask       uint64
	SrcQueueFamilyIndex uint32
	DstQueueFamilyIndex uint32
	Buffer              uintptr
	Offset              uint64
	Size                uint64
}

type ImageMemoryBarrier2 struct {
	SType               int32
	PNext               unsafe.Pointer
	SrcStageMask        uint64
	SrcAccessMask       uint64
	DstStageMask        uint64
	DstAccessMask       uint64
	OldLayout           int32
	NewLayout           int32
	SrcQueueFamilyIndex uint32
	DstQueueFamilyIndex uint32
	Image               uintptr
	SubresourceRange    ImageSubresourceRange
}

type DependencyInfo struct {
	SType                    int32
	PNext                    unsafe.Pointer
	DependencyFlags          uint32
	MemoryBarrierCount       uint32
	PMemoryBarriers          unsafe.Pointer
	BufferMemoryBarrierCount uint32
	PBufferMemoryBarriers    unsafe.Pointer
	ImageMemoryBarrierCount  uint32
	PImageMemoryBarriers     unsafe.Pointer
}

type DispatchIndirectCommand struct {
	X uint32
	Y uint32
	Z uint32
}

type FormatProperties struct {
	LinearTilingFeatures  uint32
	OptimalTilingFeatures uint32
	BufferFeatures        uint32
}

type PhysicalDeviceMemoryProperties2 struct {
	SType            int32
	PNext            unsafe.Pointer
	MemoryProperties PhysicalDeviceMemoryProperties
}

type PhysicalDeviceMemoryBudgetPropertiesEXT struct {
	SType      int32
	PNext      unsafe.Pointer
	HeapBudget [16]uint64
	HeapUsage  [16]uint64
}

type ConformanceVersion struct {
	Major    uint8
	Minor    uint8
	Subminor uint8
	Patch    uint8
}

type ImageCopy struct {
	SrcSubresource ImageSubresourceLayers
	SrcOffset      Offset3D
	DstSubresource ImageSubresourceLayers
	DstOffset      Offset3D
	Extent         Extent3D
}
