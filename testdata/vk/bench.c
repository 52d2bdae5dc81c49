// The C reference for vk's call-overhead benchmarks: the same calls, made
// through the same device-level function pointers, timed the same way.
// Usage: bench ITERATIONS; prints "NAME ns/op" lines.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#define CHECK(x)                                                   \
	do {                                                           \
		VkResult r_ = (x);                                         \
		if (r_ != VK_SUCCESS) {                                    \
			fprintf(stderr, "%s failed: %d\n", #x, (int)r_);       \
			exit(1);                                               \
		}                                                          \
	} while (0)

enum { BATCH = 4096 };

static double now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
	long iters = argc > 1 ? atol(argv[1]) : 1000000;

	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3};
	VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
	VkInstance inst;
	CHECK(vkCreateInstance(&ici, NULL, &inst));
	uint32_t n = 1;
	VkPhysicalDevice phys;
	VkResult r = vkEnumeratePhysicalDevices(inst, &n, &phys);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) {
		fprintf(stderr, "no physical device\n");
		return 1;
	}
	uint32_t qn = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &qn, NULL);
	VkQueueFamilyProperties qs[16];
	if (qn > 16) qn = 16;
	vkGetPhysicalDeviceQueueFamilyProperties(phys, &qn, qs);
	uint32_t family = 0;
	while (family < qn && !(qs[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) family++;
	float prio = 1;
	VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                               .queueFamilyIndex = family, .queueCount = 1, .pQueuePriorities = &prio};
	VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci};
	VkDevice dev;
	CHECK(vkCreateDevice(phys, &dci, NULL, &dev));

	PFN_vkCmdDispatch cmdDispatch = (PFN_vkCmdDispatch)vkGetDeviceProcAddr(dev, "vkCmdDispatch");
	PFN_vkGetDeviceQueue getDeviceQueue = (PFN_vkGetDeviceQueue)vkGetDeviceProcAddr(dev, "vkGetDeviceQueue");
	PFN_vkBeginCommandBuffer begin = (PFN_vkBeginCommandBuffer)vkGetDeviceProcAddr(dev, "vkBeginCommandBuffer");
	PFN_vkEndCommandBuffer end = (PFN_vkEndCommandBuffer)vkGetDeviceProcAddr(dev, "vkEndCommandBuffer");
	PFN_vkResetCommandBuffer reset = (PFN_vkResetCommandBuffer)vkGetDeviceProcAddr(dev, "vkResetCommandBuffer");

	VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                               .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = family};
	VkCommandPool pool;
	CHECK(vkCreateCommandPool(dev, &pci, NULL, &pool));
	VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
	                                   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
	VkCommandBuffer cb;
	CHECK(vkAllocateCommandBuffers(dev, &cai, &cb));
	VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};

	double total = 0;
	for (long done = 0; done < iters;) {
		CHECK(begin(cb, &bi));
		double t0 = now_ns();
		for (int i = 0; i < BATCH && done < iters; i++, done++) cmdDispatch(cb, 1, 1, 1);
		total += now_ns() - t0;
		CHECK(end(cb));
		CHECK(reset(cb, 0));
	}
	printf("CmdDispatch %.3f\n", total / (double)iters);

	VkQueue q = VK_NULL_HANDLE;
	double t0 = now_ns();
	for (long i = 0; i < iters; i++) getDeviceQueue(dev, family, 0, &q);
	printf("GetDeviceQueue %.3f\n", (now_ns() - t0) / (double)iters);
	if (q == VK_NULL_HANDLE) return 1;

	vkDestroyCommandPool(dev, pool, NULL);
	vkDestroyDevice(dev, NULL);
	vkDestroyInstance(inst, NULL);
	return 0;
}
