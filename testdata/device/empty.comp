#version 450
// A kernel that does nothing (its one store never runs) but declares a
// read-write buffer, so consecutive dispatches form a dependent chain.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { uint b[]; };
void main() {
    if (gl_GlobalInvocationID.x == 0xFFFFFFFFu) b[0] = 1u;
}
