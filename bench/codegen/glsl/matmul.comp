#version 450
// C = A*B, n x n row-major, 16x16 tiles in shared memory; the twin of
// frontend/programs.MatMul.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Params { uint n; } pc;
layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 2) buffer C { float c[]; };
shared float ta[256];
shared float tb[256];
void main() {
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
    uint n = pc.n;
    float acc = 0.0;
    for (uint t = 0u; t < n / 16u; t++) {
        uint base = t * 16u;
        ta[ty * 16u + tx] = a[row * n + base + tx];
        tb[ty * 16u + tx] = b[(base + ty) * n + col];
        barrier();
        for (uint j = 0u; j < 16u; j++) acc = fma(ta[ty * 16u + j], tb[j * 16u + tx], acc);
        barrier();
    }
    c[row * n + col] = acc;
}
