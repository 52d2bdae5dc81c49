#version 450
// 64-bin histogram, per block in shared memory then into the global bins;
// the twin of frontend/programs.Histogram.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) buffer Bins { uint bins[]; };
shared uint local_bins[64];
void main() {
    uint tid = gl_LocalInvocationID.x;
    local_bins[tid] = 0u;
    barrier();
    uint i = gl_GlobalInvocationID.x;
    if (i < uint(src.length())) atomicAdd(local_bins[src[i] % 64u], 1u);
    barrier();
    atomicAdd(bins[tid], local_bins[tid]);
}
