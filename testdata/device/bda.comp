#version 450
// Buffers reached by device address: dst[j] = src[j] + 1 for j in
// [first, first+count), so buffers beyond maxStorageBufferRange are reachable.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32 { uint v; };
layout(push_constant) uniform P { U32 src; U32 dst; uint64_t first; uint count; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= p.count) return;
    uint64_t off = (p.first + uint64_t(i)) * 4ul;
    U32 s = U32(uint64_t(p.src) + off);
    U32 d = U32(uint64_t(p.dst) + off);
    d.v = s.v + 1u;
}
