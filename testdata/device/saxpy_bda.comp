#version 450
// saxpy.comp with its buffers passed by device address in push constants
// instead of push descriptors (the binding-scheme measurement).
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer XS { float x[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer YS { float y[]; };
layout(push_constant) uniform P { XS xs; YS ys; uint n; float a; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) p.ys.y[i] = p.a * p.xs.x[i] + p.ys.y[i];
}
