#version 450
// Inclusive per-block prefix sum (Hillis-Steele, double-buffered); the twin
// of frontend/programs.Scan.
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer In { float src[]; };
layout(std430, set = 0, binding = 1) buffer Out { float dst[]; };
shared float a[512];
void main() {
    uint tid = gl_LocalInvocationID.x;
    uint gid = gl_GlobalInvocationID.x;
    a[tid] = src[gid];
    barrier();
    uint s = 0u;
    for (uint step = 0u; step < 8u; step++) {
        uint off = 1u << step;
        uint d = 256u - s;
        float v = a[s + tid];
        if (tid >= off) a[d + tid] = v + a[s + tid - off];
        else a[d + tid] = v;
        barrier();
        s = d;
    }
    dst[gid] = a[s + tid];
}
