#version 450
// One link of a dependent chain: dst[i] = src[(i + 1) % n] * 3 + k. Every
// element reads a neighbour's, so a missing barrier between links shows.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer S { uint src[]; };
layout(set = 0, binding = 1) writeonly buffer D { uint dst[]; };
layout(push_constant) uniform P { uint n; uint k; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) dst[i] = src[(i + 1) % p.n] * 3u + p.k;
}
