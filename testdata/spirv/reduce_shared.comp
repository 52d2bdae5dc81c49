#version 450
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) readonly buffer In { float data[]; } src;
layout(set = 0, binding = 1) buffer Out { float sums[]; } dst;
shared float partial[128];
void main() {
    uint l = gl_LocalInvocationID.x;
    partial[l] = src.data[gl_GlobalInvocationID.x];
    barrier();
    for (uint s = 64u; s > 0u; s >>= 1) {
        if (l < s) {
            partial[l] += partial[l + s];
        }
        memoryBarrierShared();
        barrier();
    }
    if (l == 0u) {
        dst.sums[gl_WorkGroupID.x] = partial[0];
    }
}
