#version 450
// empty.comp with its buffer passed by device address in push constants.
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer B { uint b[]; };
layout(push_constant) uniform P { B buf; } p;
void main() {
    if (gl_GlobalInvocationID.x == 0xFFFFFFFFu) p.buf.b[0] = 1u;
}
