#version 450
// Emulated bindless array: a table of 32-byte slot records whose first field
// is a buffer device address. out[i] = sum of the uints in slot i's range.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 1) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer U32 { uint v; };
struct Slot { uint64_t addr; uint64_t size; uvec4 texture; };
layout(set = 0, binding = 0, std430) readonly buffer Table { Slot slots[]; };
layout(set = 0, binding = 1) writeonly buffer O { uint o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    Slot s = slots[i];
    uint sum = 0u;
    for (uint64_t off = 0ul; off < s.size; off += 4ul) {
        sum += U32(s.addr + off).v;
    }
    o[i] = sum;
}
