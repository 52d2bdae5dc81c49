#version 450
// Per-block sum with a shared-memory tree; the twin of frontend/programs.Reduce.
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) buffer Partial { uint partial[]; };
shared uint s[256];
void main() {
    uint tid = gl_LocalInvocationID.x;
    s[tid] = src[gl_GlobalInvocationID.x];
    barrier();
    for (uint st = 128u; st > 0u; st >>= 1) {
        if (tid < st) s[tid] += s[tid + st];
        barrier();
    }
    if (tid == 0u) partial[gl_WorkGroupID.x] = s[0];
}
