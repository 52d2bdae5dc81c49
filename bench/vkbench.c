/* vkbench: the raw-Vulkan twin of device/vulkan's benchmarks (bench_test.go).
 * It does the same work the runtime does for each benchmark -- the same
 * barriers, push descriptors, staging copies and timeline-semaphore waits --
 * with nothing in between, so the ratio of the two is the runtime's overhead.
 *
 *   cc -O2 -o vkbench vkbench.c -lvulkan
 *   ./vkbench <dir with empty.spv and saxpy.spv>
 *
 * Prints one line per benchmark: name, then ns per operation and, for
 * transfers and saxpy, MB/s (bytes as go test -bench counts them). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#define CHECK(x) do { VkResult r_ = (x); if (r_ < 0) { fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, r_); exit(1); } } while (0)

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

static uint64_t now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef struct { VkBuffer buf; VkDeviceMemory mem; void *map; VkDeviceSize size; } Buffer;

static uint32_t memoryType(uint32_t bits, VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < memProps.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (memProps.memoryTypes[i].propertyFlags & want) == want) return i;
    fprintf(stderr, "no memory type\n");
    exit(1);
}

static Buffer newBuffer(VkDeviceSize size) {
    Buffer b = {.size = size};
    VkBufferCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
        .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
    CHECK(vkCreateBuffer(dev, &ci, NULL, &b.buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b.buf, &req);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
        .memoryTypeIndex = memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)};
    CHECK(vkAllocateMemory(dev, &ai, NULL, &b.mem));
    CHECK(vkBindBufferMemory(dev, b.buf, b.mem, 0));
    CHECK(vkMapMemory(dev, b.mem, 0, VK_WHOLE_SIZE, 0, &b.map));
    memset(b.map, 0, size);
    return b;
}

typedef struct { VkPipeline pipe; VkPipelineLayout layout; VkDescriptorSetLayout set; VkShaderModule mod; } Pipeline;

static Pipeline newPipeline(const char *path, uint32_t bindings, uint32_t pushSize) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint32_t *code = malloc(n);
    if (fread(code, 1, n, f) != (size_t)n) { perror(path); exit(1); }
    fclose(f);
    Pipeline p;
    VkShaderModuleCreateInfo mci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = n, .pCode = code};
    CHECK(vkCreateShaderModule(dev, &mci, NULL, &p.mod));
    VkDescriptorSetLayoutBinding b[4];
    for (uint32_t i = 0; i < bindings; i++)
        b[i] = (VkDescriptorSetLayoutBinding){.binding = i, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo lci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR, .bindingCount = bindings, .pBindings = b};
    CHECK(vkCreateDescriptorSetLayout(dev, &lci, NULL, &p.set));
    VkPushConstantRange pr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .size = pushSize};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
        .pSetLayouts = &p.set, .pushConstantRangeCount = pushSize ? 1 : 0, .pPushConstantRanges = &pr};
    CHECK(vkCreatePipelineLayout(dev, &pli, NULL, &p.layout));
    VkComputePipelineCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .flags = VK_PIPELINE_CREATE_DISPATCH_BASE_BIT,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT,
            .module = p.mod, .pName = "main"}, .layout = p.layout};
    CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpi, NULL, &p.pipe));
    free(code);
    return p;
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

static void begin(void) {
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
        .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    CHECK(vkBeginCommandBuffer(cb, &bi));
}

static void submitWait(void) {
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

/* run calls f until a second has passed (after one warm-up call) and returns ns per call. */
static double run(void (*f)(void)) {
    f();
    uint64_t start = now(), n = 0;
    do { f(); n++; } while (now() - start < 1000000000ull);
    return (double)(now() - start) / (double)n;
}

enum { chainLength = 10000, transferBytes = 64 << 20, saxpyN = 16 << 20 };
static Pipeline emptyPipe, saxpyPipe;
static Buffer small, device64, staging64, sx, sy;
static unsigned char *host64;

static void chain(void) {
    begin();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, emptyPipe.pipe);
    Buffer *b[1] = {&small};
    for (int i = 0; i < chainLength; i++) {
        if (i == 0) leadingBarrier();
        else barrier(VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
        pushBuffers(&emptyPipe, b, 1);
        vkCmdDispatch(cb, 1, 1, 1);
    }
    submitWait();
}

static void roundTrip(void) {
    begin();
    leadingBarrier();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, emptyPipe.pipe);
    Buffer *b[1] = {&small};
    pushBuffers(&emptyPipe, b, 1);
    vkCmdDispatch(cb, 1, 1, 1);
    submitWait();
}

static void upload(void) {
    memcpy(staging64.map, host64, transferBytes);
    begin();
    leadingBarrier();
    VkBufferCopy r = {.size = transferBytes};
    vkCmdCopyBuffer(cb, staging64.buf, device64.buf, 1, &r);
    submitWait();
}

static void download(void) {
    begin();
    leadingBarrier();
    VkBufferCopy r = {.size = transferBytes};
    vkCmdCopyBuffer(cb, device64.buf, staging64.buf, 1, &r);
    barrier(VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    submitWait();
    memcpy(host64, staging64.map, transferBytes);
}

static void saxpy(void) {
    begin();
    leadingBarrier();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, saxpyPipe.pipe);
    Buffer *b[2] = {&sx, &sy};
    pushBuffers(&saxpyPipe, b, 2);
    struct { uint32_t n; float a; } pc = {saxpyN, 2.0f};
    vkCmdPushConstants(cb, saxpyPipe.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, &pc);
    /* 65,536 groups: one more than lavapipe's maxComputeWorkGroupCount, split as the runtime splits it. */
    vkCmdDispatch(cb, 65535, 1, 1);
    vkCmdDispatchBase(cb, 65535, 0, 0, saxpyN / 256 - 65535, 1, 1);
    submitWait();
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: vkbench <spv dir>\n"); return 2; }
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "vkbench", .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    CHECK(vkCreateInstance(&ici, NULL, &inst));
    uint32_t n = 1;
    VkResult r = vkEnumeratePhysicalDevices(inst, &n, &pd);
    if (r < 0 || n == 0) { fprintf(stderr, "no device\n"); return 1; }
    vkGetPhysicalDeviceMemoryProperties(pd, &memProps);
    float prio = 1;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = 0, .queueCount = 1, .pQueuePriorities = &prio};
    VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, .synchronization2 = VK_TRUE};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .pNext = &f13, .timelineSemaphore = VK_TRUE};
    const char *ext[] = {"VK_KHR_push_descriptor"};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f12, .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci, .enabledExtensionCount = 1, .ppEnabledExtensionNames = ext};
    CHECK(vkCreateDevice(pd, &dci, NULL, &dev));
    vkGetDeviceQueue(dev, 0, 0, &queue);
    pushDescriptorSet = (PFN_vkCmdPushDescriptorSetKHR)vkGetDeviceProcAddr(dev, "vkCmdPushDescriptorSetKHR");
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT};
    CHECK(vkCreateCommandPool(dev, &pci, NULL, &pool));
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    CHECK(vkAllocateCommandBuffers(dev, &cai, &cb));
    VkSemaphoreTypeCreateInfo tci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &tci};
    CHECK(vkCreateSemaphore(dev, &sci, NULL, &timeline));

    char path[4096];
    snprintf(path, sizeof path, "%s/empty.spv", argv[1]);
    emptyPipe = newPipeline(path, 1, 0);
    snprintf(path, sizeof path, "%s/saxpy.spv", argv[1]);
    saxpyPipe = newPipeline(path, 2, 8);
    small = newBuffer(256);
    device64 = newBuffer(transferBytes);
    staging64 = newBuffer(transferBytes);
    host64 = malloc(transferBytes);
    for (size_t i = 0; i < transferBytes; i++) host64[i] = (unsigned char)i;
    sx = newBuffer(4ull * saxpyN);
    sy = newBuffer(4ull * saxpyN);

    double ns = run(chain);
    printf("DispatchChain %.0f ns/op %.1f ns/dispatch\n", ns, ns / chainLength);
    printf("RoundTrip %.0f ns/op\n", run(roundTrip));
    ns = run(upload);
    printf("Upload %.0f ns/op %.2f MB/s\n", ns, transferBytes / ns * 1e3);
    ns = run(download);
    printf("Download %.0f ns/op %.2f MB/s\n", ns, transferBytes / ns * 1e3);
    ns = run(saxpy);
    printf("Saxpy %.0f ns/op %.2f MB/s\n", ns, 12.0 * saxpyN / ns * 1e3);

    vkDeviceWaitIdle(dev);
    vkDestroyDevice(dev, NULL); /* the process exits: the driver frees the rest */
    vkDestroyInstance(inst, NULL);
    return 0;
}
