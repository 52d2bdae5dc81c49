/* vkbench: the raw-Vulkan twin of device/vulkan's benchmarks (bench_test.go).
 * It does the same work the runtime does for each benchmark -- the same
 * instance and device set-up (features, extensions), the same barriers, push
 * descriptors, push constants, dispatch splitting, staging copies and
 * timeline-semaphore waits -- with nothing in between, so the ratio of the
 * two is the runtime's overhead.
 *
 * It is a shared library, loaded by BenchmarkVsC (device/vulkan) into the Go
 * benchmark's own process through purego and run interleaved with the Go
 * side, so that both see the same machine:
 *
 *   cc -O2 -shared -fPIC -o libvkbench.so vkbench.c -lvulkan
 *
 *   int     vkb_init(const char *deviceName, const uint32_t *empty, size_t emptyBytes,
 *                    const uint32_t *saxpy, size_t saxpyBytes);
 *   int64_t vkb_run(int which, int64_t iters);  // ns for iters operations, < 0: a VkResult
 *   void    vkb_close(void);
 *
 * which: 0 DispatchChain, 1 RoundTrip, 2 Upload, 3 Download, 4 Saxpy: the
 * twin, call for call what the runtime records. 5 and up: the same work done
 * the fastest ways this file knows, each a variant (vkb_name names them), so
 * that the fastest of them is "the best use of the driver" (BenchmarkVsFastestC):
 *
 *   5  chain/sets       a descriptor set written at init and bound once per
 *                       command buffer, the narrowest barrier between
 *                       dispatches (compute shader write -> compute shader
 *                       read/write), synchronization2
 *   6  chain/push-once  one push-descriptor write per command buffer, the
 *                       same narrow barrier
 *   7  chain/legacy     as 5 with vkCmdPipelineBarrier (synchronization 1)
 *   8  rt/rerecord      re-recorded each time as 5 records it, a timeline
 *                       semaphore waited for by blocking
 *   9  rt/timeline      a command buffer recorded once and resubmitted,
 *                       a timeline semaphore, blocking wait
 *   10 rt/fence         recorded once, a fence, vkWaitForFences + vkResetFences
 *   11 rt/timeline-spin recorded once, vkGetSemaphoreCounterValue polled
 *   12 rt/fence-spin    recorded once, vkGetFenceStatus polled
 *   13 upload/map       a memcpy into the host-visible buffer (the runtime's
 *                       direct upload on an idle device), nothing submitted
 *   14 download/map     a memcpy out of the host-visible buffer (its direct read)
 *   15 rt/rerecord-wide as 8 with the twin's leading barrier (all commands ->
 *                       all commands, the one the runtime records): what that
 *                       barrier costs against the narrow one
 *   16 chain/once       the chain of 5 recorded once and resubmitted, a
 *                       timeline semaphore waited for by blocking (the
 *                       runtime resubmits a list recorded before)
 *   17 chain/once-wide  as 16 with the barriers the runtime recorded before
 *                       it derived the narrow one (compute writes -> all
 *                       commands' memory reads and writes): what the wide
 *                       barrier costs a replayed chain
 *
 *   const char *vkb_name(int which);  // NULL past the last */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#define CHECK(x) do { VkResult r_ = (x); if (r_ < 0) { fprintf(stderr, "vkbench: %s:%d: %s = %d\n", __FILE__, __LINE__, #x, r_); return r_; } } while (0)
#define FAIL(msg) do { fprintf(stderr, "vkbench: %s\n", msg); return VK_ERROR_INITIALIZATION_FAILED; } while (0)

static VkInstance inst;
static VkPhysicalDevice pd;
static VkDevice dev;
static VkQueue queue;
static VkCommandPool pool;
static VkCommandBuffer cb;
static VkSemaphore timeline;
static uint64_t timelineValue;
static VkPhysicalDeviceMemoryProperties memProps;
static PFN_vkCmdPushDescriptorSetKHR pushDescriptorSet;
static VkBool32 deviceAddress; /* bufferDeviceAddress enabled: buffers get the usage, memory the flag */

static uint64_t now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef struct { VkBuffer buf; VkDeviceMemory mem; void *map; VkDeviceSize size; } Buffer;

static int memoryType(uint32_t bits, VkMemoryPropertyFlags want, uint32_t *out) {
    for (uint32_t i = 0; i < memProps.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (memProps.memoryTypes[i].propertyFlags & want) == want) { *out = i; return 0; }
    return -1;
}

/* The runtime's buffer usage (device/vulkan/memory.go) and memory flags. */
static VkResult newBuffer(VkDeviceSize size, Buffer *b) {
    *b = (Buffer){.size = size};
    VkBufferCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
        .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                 VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                 (deviceAddress ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0)};
    CHECK(vkCreateBuffer(dev, &ci, NULL, &b->buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b->buf, &req);
    VkMemoryAllocateFlagsInfo fi = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO, .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = deviceAddress ? &fi : NULL,
        .allocationSize = req.size};
    if (memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &ai.memoryTypeIndex))
        FAIL("no host-visible coherent memory type");
    CHECK(vkAllocateMemory(dev, &ai, NULL, &b->mem));
    CHECK(vkBindBufferMemory(dev, b->buf, b->mem, 0));
    CHECK(vkMapMemory(dev, b->mem, 0, VK_WHOLE_SIZE, 0, &b->map));
    memset(b->map, 0, size);
    return VK_SUCCESS;
}

typedef struct { VkPipeline pipe; VkPipelineLayout layout; VkDescriptorSetLayout set; VkShaderModule mod; } Pipeline;

/* As device/vulkan/shader.go creates a raw module's pipeline: push-descriptor
 * set 0, one push-constant range when the module has push constants, and
 * VK_PIPELINE_CREATE_DISPATCH_BASE_BIT (split dispatches use vkCmdDispatchBase). */
static VkResult newPipeline(const uint32_t *code, size_t n, uint32_t bindings, uint32_t pushSize, Pipeline *p) {
    VkShaderModuleCreateInfo mci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = n, .pCode = code};
    CHECK(vkCreateShaderModule(dev, &mci, NULL, &p->mod));
    VkDescriptorSetLayoutBinding b[4];
    for (uint32_t i = 0; i < bindings; i++)
        b[i] = (VkDescriptorSetLayoutBinding){.binding = i, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo lci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR, .bindingCount = bindings, .pBindings = b};
    CHECK(vkCreateDescriptorSetLayout(dev, &lci, NULL, &p->set));
    VkPushConstantRange pr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = pushSize};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
        .pSetLayouts = &p->set, .pushConstantRangeCount = pushSize ? 1 : 0, .pPushConstantRanges = &pr};
    CHECK(vkCreatePipelineLayout(dev, &pli, NULL, &p->layout));
    VkComputePipelineCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .flags = VK_PIPELINE_CREATE_DISPATCH_BASE_BIT,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = p->mod, .pName = "main"}, .layout = p->layout};
    CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpi, NULL, &p->pipe));
    return VK_SUCCESS;
}

static void barrier(VkPipelineStageFlags2 srcStage, VkAccessFlags2 srcAccess, VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess) {
    VkMemoryBarrier2 mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2, .srcStageMask = srcStage, .srcAccessMask = srcAccess,
        .dstStageMask = dstStage, .dstAccessMask = dstAccess};
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &mb};
    vkCmdPipelineBarrier2(cb, &di);
}

/* The barrier that orders a list after the stream's earlier work, as the runtime records it. */
static void leadingBarrier(void) {
    barrier(VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
            VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
}

static VkResult begin(void) {
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    CHECK(vkBeginCommandBuffer(cb, &bi));
    return VK_SUCCESS;
}

static VkResult submitWait(void) {
    CHECK(vkEndCommandBuffer(cb));
    timelineValue++;
    VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cb};
    VkSemaphoreSubmitInfo sig = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = timeline,
        .value = timelineValue, .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1, .pCommandBufferInfos = &cbi,
        .signalSemaphoreInfoCount = 1, .pSignalSemaphoreInfos = &sig};
    CHECK(vkQueueSubmit2(queue, 1, &si, VK_NULL_HANDLE));
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
        .pSemaphores = &timeline, .pValues = &timelineValue};
    CHECK(vkWaitSemaphores(dev, &wi, UINT64_MAX));
    return VK_SUCCESS;
}

static void pushBuffers(Pipeline *p, Buffer **bufs, uint32_t n) {
    VkDescriptorBufferInfo info[4];
    VkWriteDescriptorSet w[4];
    for (uint32_t i = 0; i < n; i++) {
        info[i] = (VkDescriptorBufferInfo){.buffer = bufs[i]->buf, .offset = 0, .range = bufs[i]->size};
        w[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstBinding = i,
            .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &info[i]};
    }
    pushDescriptorSet(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0, n, w);
}

enum { chainLength = 10000, transferBytes = 64 << 20, saxpyN = 16 << 20 };
static Pipeline emptyPipe, saxpyPipe;
static Buffer small, device64, staging64, sx, sy;
static unsigned char *host64;

/* Each benchmark records what the encoder (device/vulkan/encoder.go) records
 * for the same command list, call for call: per dispatch a barrier (the
 * list's leading one, then compute write -> everything), the pipeline bound
 * once, a push-descriptor write of the whole buffer, the dispatch. */
static VkResult chain(void) {
    VkResult r = begin();
    if (r) return r;
    Buffer *b[1] = {&small};
    for (int i = 0; i < chainLength; i++) {
        if (i == 0) leadingBarrier();
        else barrier(VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
        if (i == 0) vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, emptyPipe.pipe);
        pushBuffers(&emptyPipe, b, 1);
        vkCmdDispatch(cb, 1, 1, 1);
    }
    return submitWait();
}

static VkResult roundTrip(void) {
    VkResult r = begin();
    if (r) return r;
    leadingBarrier();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, emptyPipe.pipe);
    Buffer *b[1] = {&small};
    pushBuffers(&emptyPipe, b, 1);
    vkCmdDispatch(cb, 1, 1, 1);
    return submitWait();
}

static VkResult upload(void) {
    memcpy(staging64.map, host64, transferBytes);
    VkResult r = begin();
    if (r) return r;
    leadingBarrier();
    VkBufferCopy c = {.size = transferBytes};
    vkCmdCopyBuffer(cb, staging64.buf, device64.buf, 1, &c);
    return submitWait();
}

static VkResult download(void) {
    VkResult r = begin();
    if (r) return r;
    leadingBarrier();
    VkBufferCopy c = {.size = transferBytes};
    vkCmdCopyBuffer(cb, device64.buf, staging64.buf, 1, &c);
    barrier(VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    if ((r = submitWait())) return r;
    memcpy(host64, staging64.map, transferBytes);
    return VK_SUCCESS;
}

static VkResult saxpy(void) {
    VkResult r = begin();
    if (r) return r;
    leadingBarrier();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, saxpyPipe.pipe);
    Buffer *b[2] = {&sx, &sy};
    pushBuffers(&saxpyPipe, b, 2);
    struct { uint32_t n; float a; } pc = {saxpyN, 2.0f};
    vkCmdPushConstants(cb, saxpyPipe.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
    /* 65,536 groups: one more than lavapipe's maxComputeWorkGroupCount, split as the runtime splits it. */
    vkCmdDispatch(cb, 65535, 1, 1);
    vkCmdDispatchBase(cb, 65535, 0, 0, saxpyN / 256 - 65535, 1, 1);
    return submitWait();
}

/* ---- The fastest uses (5 and up) ----------------------------------------
 * The same operations with what the driver does best, for a reference the
 * runtime's own calls do not set: what a hand-written program that knows its
 * work in advance would record. Same device, same buffers, same SPIR-V. */

static VkDescriptorSetLayout setLayout;
static VkPipelineLayout setPipeLayout;
static VkPipeline setPipe;
static VkDescriptorPool descPool;
static VkDescriptorSet smallSet;
static VkCommandBuffer rtCb; /* the round trip recorded once, resubmitted by 9-12 */
static VkCommandBuffer chainCb; /* the chain of 5 recorded once, resubmitted by 16 */
static VkCommandBuffer chainWideCb; /* the same with wide barriers, resubmitted by 17 */
static VkFence rtFenceObj;

/* The narrowest barrier between dependent dispatches: compute writes before
 * compute reads and writes, one global memory barrier. It also leads each
 * command buffer: the earlier submission's writes, made available by its
 * signal, made visible to this one's dispatches. */
static void computeBarrier(VkCommandBuffer c) {
    VkMemoryBarrier2 mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, .srcAccessMask = VK_ACCESS_2_SHADER_WRITE_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, .dstAccessMask = VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_SHADER_WRITE_BIT};
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &mb};
    vkCmdPipelineBarrier2(c, &di);
}

static VkResult beginCb(VkCommandBuffer c, VkCommandBufferUsageFlags flags) {
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, .flags = flags};
    CHECK(vkBeginCommandBuffer(c, &bi));
    return VK_SUCCESS;
}

/* The round trip's work, bound with the set: one barrier (the narrow one, or
 * with wide the runtime's), bind, dispatch. */
static void recordRoundTripWith(VkCommandBuffer c, int wide) {
    if (wide) {
        VkMemoryBarrier2 mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
            .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, .srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT,
            .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, .dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT};
        VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &mb};
        vkCmdPipelineBarrier2(c, &di);
    } else
        computeBarrier(c);
    vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_COMPUTE, setPipe);
    vkCmdBindDescriptorSets(c, VK_PIPELINE_BIND_POINT_COMPUTE, setPipeLayout, 0, 1, &smallSet, 0, NULL);
    vkCmdDispatch(c, 1, 1, 1);
}

static void recordRoundTrip(VkCommandBuffer c) { recordRoundTripWith(c, 0); }

/* Compute writes before everything after: the wide barrier. */
static void wideBarrier(VkCommandBuffer c) {
    VkMemoryBarrier2 mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
        .srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, .srcAccessMask = VK_ACCESS_2_SHADER_WRITE_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, .dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT};
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1, .pMemoryBarriers = &mb};
    vkCmdPipelineBarrier2(c, &di);
}

/* The chain bound with the set: bind once, the narrow barrier between
 * dispatches (with wide, the wide one). */
static void recordChainWith(VkCommandBuffer c, int wide) {
    void (*bar)(VkCommandBuffer) = wide ? wideBarrier : computeBarrier;
    bar(c);
    vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_COMPUTE, setPipe);
    vkCmdBindDescriptorSets(c, VK_PIPELINE_BIND_POINT_COMPUTE, setPipeLayout, 0, 1, &smallSet, 0, NULL);
    for (int i = 0; i < chainLength; i++) {
        if (i > 0) bar(c);
        vkCmdDispatch(c, 1, 1, 1);
    }
}

static void recordChainSets(VkCommandBuffer c) { recordChainWith(c, 0); }

static VkResult initFastest(void) {
    VkDescriptorSetLayoutBinding b = {.binding = 0, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo lci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 1, .pBindings = &b};
    CHECK(vkCreateDescriptorSetLayout(dev, &lci, NULL, &setLayout));
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1, .pSetLayouts = &setLayout};
    CHECK(vkCreatePipelineLayout(dev, &pli, NULL, &setPipeLayout));
    VkComputePipelineCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = emptyPipe.mod, .pName = "main"}, .layout = setPipeLayout};
    CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpi, NULL, &setPipe));
    VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1, .poolSizeCount = 1, .pPoolSizes = &ps};
    CHECK(vkCreateDescriptorPool(dev, &dpi, NULL, &descPool));
    VkDescriptorSetAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = descPool,
        .descriptorSetCount = 1, .pSetLayouts = &setLayout};
    CHECK(vkAllocateDescriptorSets(dev, &dai, &smallSet));
    VkDescriptorBufferInfo info = {.buffer = small.buf, .range = small.size};
    VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = smallSet, .dstBinding = 0,
        .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &info};
    vkUpdateDescriptorSets(dev, 1, &w, 0, NULL);

    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    CHECK(vkAllocateCommandBuffers(dev, &cai, &rtCb));
    VkResult r = beginCb(rtCb, 0);
    if (r) return r;
    recordRoundTrip(rtCb);
    CHECK(vkEndCommandBuffer(rtCb));
    CHECK(vkAllocateCommandBuffers(dev, &cai, &chainCb));
    if ((r = beginCb(chainCb, 0))) return r;
    recordChainSets(chainCb);
    CHECK(vkEndCommandBuffer(chainCb));
    CHECK(vkAllocateCommandBuffers(dev, &cai, &chainWideCb));
    if ((r = beginCb(chainWideCb, 0))) return r;
    recordChainWith(chainWideCb, 1);
    CHECK(vkEndCommandBuffer(chainWideCb));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CHECK(vkCreateFence(dev, &fci, NULL, &rtFenceObj));
    return VK_SUCCESS;
}

static VkResult chainSets(void) {
    VkResult r = beginCb(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
    if (r) return r;
    recordChainSets(cb);
    return submitWait();
}

static VkResult chainPushOnce(void) {
    VkResult r = beginCb(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
    if (r) return r;
    computeBarrier(cb);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, emptyPipe.pipe);
    Buffer *b[1] = {&small};
    pushBuffers(&emptyPipe, b, 1);
    for (int i = 0; i < chainLength; i++) {
        if (i > 0) computeBarrier(cb);
        vkCmdDispatch(cb, 1, 1, 1);
    }
    return submitWait();
}

static VkResult chainLegacy(void) {
    VkResult r = beginCb(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
    if (r) return r;
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, setPipe);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, setPipeLayout, 0, 1, &smallSet, 0, NULL);
    for (int i = 0; i < chainLength; i++) {
        if (i > 0)
            vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
        vkCmdDispatch(cb, 1, 1, 1);
    }
    return submitWait();
}

static VkResult rtRerecord(void) {
    VkResult r = beginCb(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
    if (r) return r;
    recordRoundTrip(cb);
    return submitWait();
}

static VkResult rtRerecordWide(void) {
    VkResult r = beginCb(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
    if (r) return r;
    recordRoundTripWith(cb, 1);
    return submitWait();
}

/* submitOnly submits c signalling the timeline (and fence f, if any). */
static VkResult submitOnly(VkCommandBuffer c, VkFence f, int signalTimeline) {
    VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = c};
    VkSemaphoreSubmitInfo sig = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = timeline,
        .value = timelineValue + 1, .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1, .pCommandBufferInfos = &cbi,
        .signalSemaphoreInfoCount = signalTimeline ? 1 : 0, .pSignalSemaphoreInfos = &sig};
    CHECK(vkQueueSubmit2(queue, 1, &si, f));
    if (signalTimeline) timelineValue++;
    return VK_SUCCESS;
}

static VkResult rtTimeline(void) {
    VkResult r = submitOnly(rtCb, VK_NULL_HANDLE, 1);
    if (r) return r;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
        .pSemaphores = &timeline, .pValues = &timelineValue};
    CHECK(vkWaitSemaphores(dev, &wi, UINT64_MAX));
    return VK_SUCCESS;
}

/* chainOnce resubmits the chain recorded at init and waits on the timeline. */
static VkResult chainOnce(void) {
    VkResult r = submitOnly(chainCb, VK_NULL_HANDLE, 1);
    if (r) return r;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
        .pSemaphores = &timeline, .pValues = &timelineValue};
    CHECK(vkWaitSemaphores(dev, &wi, UINT64_MAX));
    return VK_SUCCESS;
}

static VkResult chainOnceWide(void) {
    VkResult r = submitOnly(chainWideCb, VK_NULL_HANDLE, 1);
    if (r) return r;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, .semaphoreCount = 1,
        .pSemaphores = &timeline, .pValues = &timelineValue};
    CHECK(vkWaitSemaphores(dev, &wi, UINT64_MAX));
    return VK_SUCCESS;
}

static VkResult rtFence(void) {
    VkResult r = submitOnly(rtCb, rtFenceObj, 0);
    if (r) return r;
    CHECK(vkWaitForFences(dev, 1, &rtFenceObj, VK_TRUE, UINT64_MAX));
    CHECK(vkResetFences(dev, 1, &rtFenceObj));
    return VK_SUCCESS;
}

static VkResult rtTimelineSpin(void) {
    VkResult r = submitOnly(rtCb, VK_NULL_HANDLE, 1);
    if (r) return r;
    for (;;) {
        uint64_t v;
        CHECK(vkGetSemaphoreCounterValue(dev, timeline, &v));
        if (v >= timelineValue) return VK_SUCCESS;
    }
}

static VkResult rtFenceSpin(void) {
    VkResult r = submitOnly(rtCb, rtFenceObj, 0);
    if (r) return r;
    for (;;) {
        VkResult s = vkGetFenceStatus(dev, rtFenceObj);
        if (s == VK_SUCCESS) break;
        if (s != VK_NOT_READY) CHECK(s);
    }
    CHECK(vkResetFences(dev, 1, &rtFenceObj));
    return VK_SUCCESS;
}

static VkResult uploadMap(void) {
    memcpy(device64.map, host64, transferBytes);
    return VK_SUCCESS;
}

static VkResult downloadMap(void) {
    memcpy(host64, device64.map, transferBytes);
    return VK_SUCCESS;
}

static int has(const VkExtensionProperties *e, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(e[i].extensionName, name)) return 1;
    return 0;
}

/* The instance as device/vulkan/instance.go creates it without the
 * validation layer: Vulkan 1.3, the surface extensions present.go asks for,
 * portability enumeration where offered. */
static VkResult createInstance(void) {
    uint32_t n = 0;
    CHECK(vkEnumerateInstanceExtensionProperties(NULL, &n, NULL));
    VkExtensionProperties *e = calloc(n + 1, sizeof *e);
    CHECK(vkEnumerateInstanceExtensionProperties(NULL, &n, e));
    const char *names[16];
    uint32_t k = 0;
    if (has(e, n, "VK_KHR_surface")) {
        names[k++] = "VK_KHR_surface";
        const char *more[] = {"VK_KHR_xlib_surface", "VK_KHR_xcb_surface", "VK_KHR_wayland_surface",
            "VK_KHR_win32_surface", "VK_EXT_metal_surface", "VK_EXT_swapchain_colorspace"};
        for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
            if (!strcmp(more[i], "VK_KHR_wayland_surface") && !getenv("WAYLAND_DISPLAY") && !getenv("XDG_RUNTIME_DIR")) continue;
            if (has(e, n, more[i])) names[k++] = more[i];
        }
    }
    int portability = has(e, n, "VK_KHR_portability_enumeration");
    if (portability) names[k++] = "VK_KHR_portability_enumeration";
    free(e);
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "vkbench", .pEngineName = "vkbench",
        .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app,
        .enabledExtensionCount = k, .ppEnabledExtensionNames = names,
        .flags = portability ? VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR : 0};
    CHECK(vkCreateInstance(&ici, NULL, &inst));
    return VK_SUCCESS;
}

/* The device as device/vulkan/device.go creates it: every feature the device
 * reports in VkPhysicalDeviceFeatures, the Vulkan 1.1/1.2/1.3 structures and
 * the extension structures the runtime chains (robustBufferAccess included),
 * less the capture-replay and multi-device bits, and the runtime's extensions
 * where present; up to four queues of the first compute family (the runtime
 * also opens a transfer-only family where there is one; lavapipe has none). */
static VkResult createDevice(const char *name) {
    uint32_t n = 0;
    CHECK(vkEnumeratePhysicalDevices(inst, &n, NULL));
    VkPhysicalDevice *pds = calloc(n + 1, sizeof *pds);
    CHECK(vkEnumeratePhysicalDevices(inst, &n, pds));
    VkPhysicalDeviceProperties props;
    pd = VK_NULL_HANDLE;
    for (uint32_t i = 0; i < n && !pd; i++) {
        vkGetPhysicalDeviceProperties(pds[i], &props);
        if (!strcmp(props.deviceName, name)) pd = pds[i];
    }
    free(pds);
    if (!pd) FAIL("the runtime's device is not among the physical devices");
    vkGetPhysicalDeviceMemoryProperties(pd, &memProps);

    uint32_t ne = 0;
    CHECK(vkEnumerateDeviceExtensionProperties(pd, NULL, &ne, NULL));
    VkExtensionProperties *e = calloc(ne + 1, sizeof *e);
    CHECK(vkEnumerateDeviceExtensionProperties(pd, NULL, &ne, e));
    const char *want[] = {"VK_KHR_push_descriptor", "VK_EXT_shader_atomic_float", "VK_KHR_shader_clock",
        "VK_KHR_acceleration_structure", "VK_KHR_ray_query", "VK_KHR_deferred_host_operations", "VK_KHR_portability_subset", "VK_KHR_swapchain"};
    const char *exts[8];
    uint32_t k = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (has(e, ne, want[i])) exts[k++] = want[i];
    int atomicFloat = has(e, ne, "VK_EXT_shader_atomic_float"), accel = has(e, ne, "VK_KHR_acceleration_structure"),
        rayQuery = has(e, ne, "VK_KHR_ray_query"), deferred = has(e, ne, "VK_KHR_deferred_host_operations");
    if (!has(e, ne, "VK_KHR_push_descriptor")) FAIL("no VK_KHR_push_descriptor");
    free(e);

    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT af = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
    VkPhysicalDeviceAccelerationStructureFeaturesKHR as = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
    VkPhysicalDeviceRayQueryFeaturesKHR rq = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    /* chain as physical.go's chainFeatures does, for the query and for creation */
    void **tail;
#define CHAIN() do { \
        f2.pNext = &f11; f11.pNext = &f12; f12.pNext = NULL; af.pNext = NULL; as.pNext = NULL; rq.pNext = NULL; f13.pNext = NULL; \
        tail = &f12.pNext; \
        if (props.apiVersion >= VK_API_VERSION_1_3) { *tail = &f13; tail = &f13.pNext; } \
        if (atomicFloat) { *tail = &af; tail = &af.pNext; } \
        if (accel) { *tail = &as; tail = &as.pNext; } \
        if (rayQuery) { *tail = &rq; } \
    } while (0)
    CHAIN();
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    if (!f12.timelineSemaphore || !f13.synchronization2) FAIL("no timeline semaphores or synchronization2");
    f12.bufferDeviceAddressCaptureReplay = VK_FALSE;
    f12.bufferDeviceAddressMultiDevice = VK_FALSE;
    as.accelerationStructureCaptureReplay = VK_FALSE;
    if (as.accelerationStructure && !deferred) {
        as = (VkPhysicalDeviceAccelerationStructureFeaturesKHR){.sType = as.sType};
    }
    CHAIN();
#undef CHAIN
    deviceAddress = f12.bufferDeviceAddress;

    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
    VkQueueFamilyProperties *qf = calloc(nq + 1, sizeof *qf);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, qf);
    int compute = -1;
    for (uint32_t i = 0; i < nq && compute < 0; i++)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) compute = (int)i;
    uint32_t count = compute >= 0 ? qf[compute].queueCount : 0;
    free(qf);
    if (compute < 0) FAIL("no compute queue");
    if (count > 4) count = 4;
    float prio[4] = {1, 1, 1, 1};
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = (uint32_t)compute,
        .queueCount = count, .pQueuePriorities = prio};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f2, .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci, .enabledExtensionCount = k, .ppEnabledExtensionNames = exts};
    CHECK(vkCreateDevice(pd, &dci, NULL, &dev));
    vkGetDeviceQueue(dev, (uint32_t)compute, 0, &queue);
    pushDescriptorSet = (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(dev, "vkCmdPushDescriptorSetKHR");
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
        .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = (uint32_t)compute};
    CHECK(vkCreateCommandPool(dev, &pci, NULL, &pool));
    return VK_SUCCESS;
}

int vkb_init(const char *deviceName, const uint32_t *empty, size_t emptyBytes, const uint32_t *saxpyCode, size_t saxpyBytes) {
    VkResult r;
    if ((r = createInstance()) || (r = createDevice(deviceName))) return r;
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    CHECK(vkAllocateCommandBuffers(dev, &cai, &cb));
    VkSemaphoreTypeCreateInfo tci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci};
    CHECK(vkCreateSemaphore(dev, &sci, NULL, &timeline));
    if ((r = newPipeline(empty, emptyBytes, 1, 0, &emptyPipe)) || (r = newPipeline(saxpyCode, saxpyBytes, 2, 8, &saxpyPipe)))
        return r;
    if ((r = newBuffer(256, &small)) || (r = newBuffer(transferBytes, &device64)) || (r = newBuffer(transferBytes, &staging64)) ||
        (r = newBuffer(4ull * saxpyN, &sx)) || (r = newBuffer(4ull * saxpyN, &sy)))
        return r;
    if ((r = initFastest())) return r;
    host64 = malloc(transferBytes);
    for (size_t i = 0; i < transferBytes; i++) host64[i] = (unsigned char)i;
    return VK_SUCCESS;
}

/* vkb_run runs benchmark which iters times and returns the nanoseconds taken,
 * or a negative VkResult. */
int64_t vkb_run(int which, int64_t iters) {
    static VkResult (*const fns[])(void) = {chain, roundTrip, upload, download, saxpy,
        chainSets, chainPushOnce, chainLegacy, rtRerecord, rtTimeline, rtFence, rtTimelineSpin, rtFenceSpin,
        uploadMap, downloadMap, rtRerecordWide, chainOnce, chainOnceWide};
    if (which < 0 || which >= (int)(sizeof fns / sizeof fns[0])) return VK_ERROR_UNKNOWN;
    uint64_t start = now();
    for (int64_t i = 0; i < iters; i++) {
        VkResult r = fns[which]();
        if (r < 0) return r;
    }
    return (int64_t)(now() - start);
}

const char *vkb_name(int which) {
    static const char *const names[] = {"chain/twin", "rt/twin", "upload/twin", "download/twin", "saxpy/twin",
        "chain/sets", "chain/push-once", "chain/legacy", "rt/rerecord", "rt/timeline", "rt/fence",
        "rt/timeline-spin", "rt/fence-spin", "upload/map", "download/map", "rt/rerecord-wide", "chain/once", "chain/once-wide"};
    return which >= 0 && which < (int)(sizeof names / sizeof names[0]) ? names[which] : NULL;
}

static void destroyPipeline(Pipeline *p) {
    vkDestroyPipeline(dev, p->pipe, NULL);
    vkDestroyPipelineLayout(dev, p->layout, NULL);
    vkDestroyDescriptorSetLayout(dev, p->set, NULL);
    vkDestroyShaderModule(dev, p->mod, NULL);
}

static void destroyBuffer(Buffer *b) {
    vkDestroyBuffer(dev, b->buf, NULL);
    vkFreeMemory(dev, b->mem, NULL); /* unmaps it */
}

/* vkb_close destroys everything vkb_init created (the validation layer
 * checks it in TestFastestCVariants). */
void vkb_close(void) {
    if (dev) {
        vkDeviceWaitIdle(dev);
        destroyPipeline(&emptyPipe);
        destroyPipeline(&saxpyPipe);
        vkDestroyPipeline(dev, setPipe, NULL);
        vkDestroyPipelineLayout(dev, setPipeLayout, NULL);
        vkDestroyDescriptorSetLayout(dev, setLayout, NULL);
        vkDestroyDescriptorPool(dev, descPool, NULL);
        vkDestroyFence(dev, rtFenceObj, NULL);
        vkDestroySemaphore(dev, timeline, NULL);
        vkDestroyCommandPool(dev, pool, NULL);
        Buffer *bufs[] = {&small, &device64, &staging64, &sx, &sy};
        for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) destroyBuffer(bufs[i]);
        vkDestroyDevice(dev, NULL);
        dev = VK_NULL_HANDLE;
    }
    if (inst) {
        vkDestroyInstance(inst, NULL);
        inst = VK_NULL_HANDLE;
    }
    free(host64);
    host64 = NULL;
}
