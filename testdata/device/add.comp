#version 450
// c[i] = a[i] + b[i] * scale, for i < n. A raw module: reflected bindings and
// a push-constant block without kernel ABI v1's dispatch header.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };
layout(push_constant) uniform P { uint n; float scale; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < p.n) c[i] = a[i] + b[i] * p.scale;
}
