#version 450
// A kernel in lucent's ABI v1 shape: push constants start with dispatch_size
// and block_offset; the thread id adds block_offset, so split dispatches
// cover every thread once. out[id] = id * mul, over a 1-D range.
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0, scalar) writeonly buffer O { uint o[]; };
layout(push_constant, scalar) uniform P {
    uvec3 dispatch_size;
    uvec3 block_offset;
    uint mul;
} p;
void main() {
    uvec3 id = (gl_WorkGroupID + p.block_offset) * gl_WorkGroupSize + gl_LocalInvocationID;
    if (any(greaterThanEqual(id, p.dispatch_size))) return;
    o[id.x] = id.x * p.mul;
}
