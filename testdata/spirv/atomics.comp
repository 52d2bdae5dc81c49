#version 450
#extension GL_EXT_shader_atomic_float : require
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Counters { uint hist[16]; int smin; uint64_t total; float fsum; } c;
layout(set = 0, binding = 1) readonly buffer In { float v[]; };
shared uint localCount;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (gl_LocalInvocationIndex == 0u) { localCount = 0u; }
    barrier();
    atomicAdd(localCount, 1u);
    atomicAdd(c.hist[i % 16u], 1u);
    atomicMin(c.smin, -int(i));
    atomicAdd(c.total, uint64_t(i) * 0x100000001ul);
    atomicAdd(c.fsum, v[i]);
    atomicCompSwap(c.hist[15], 0u, 7u);
    atomicExchange(c.hist[14], atomicOr(c.hist[13], 3u));
    barrier();
}
