#version 450
// y = a*x + y; the GLSL twin of frontend/programs.Saxpy.
layout(local_size_x = 256) in;
layout(push_constant) uniform Params { float a; uint n; } pc;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) buffer Y { float y[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.n) return;
    y[i] = pc.a * x[i] + y[i];
}
