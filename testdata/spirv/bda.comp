#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Floats { float v[]; };
layout(buffer_reference) buffer Node;
layout(buffer_reference, scalar) buffer Node { Node next; vec3 value; };
layout(push_constant, scalar) uniform Push { uvec3 dispatch_size; uvec3 block_offset; Floats src; Floats dst; Node head; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.dispatch_size.x) { return; }
    float acc = pc.src.v[i] * 3.0;
    Node n = pc.head;
    for (int k = 0; k < 4; ++k) { acc += n.value.y; n = n.next; }
    pc.dst.v[i] = acc;
}
