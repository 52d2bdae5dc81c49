#version 450
// The GLSL twin of frontend/programs.Mandelbrot, for side-by-side benchmarks.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Params { uint w; uint h; } pc;
layout(std430, set = 0, binding = 0) buffer Out { uint o[]; };
void main() {
    uint px = gl_GlobalInvocationID.x, py = gl_GlobalInvocationID.y;
    if (px >= pc.w || py >= pc.h) return;
    float cx = float(px) / float(pc.w) * 3.0 - 2.0;
    float cy = float(py) / float(pc.h) * 3.0 - 1.5;
    float zx = 0.0, zy = 0.0;
    uint n = 256u;
    for (uint i = 0u; i < 256u; i++) {
        if (zx * zx + zy * zy > 4.0) { n = i; break; }
        float t = zx * zx - zy * zy + cx;
        zy = 2.0 * zx * zy + cy;
        zx = t;
    }
    o[py * pc.w + px] = n;
}
