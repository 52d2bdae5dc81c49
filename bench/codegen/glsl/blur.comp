#version 450
// 3x3 box blur of src into dst, and src sampled bilinearly (clamp to edge)
// at (x+1, y+1)/size into smp, from four texel loads as lucent emulates
// sampling; the twin of frontend/programs.Blur.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba32f) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba32f) uniform writeonly image2D dst;
layout(set = 0, binding = 2, rgba32f) uniform writeonly image2D smp;
void main() {
    ivec2 size = imageSize(src);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= size.x || p.y >= size.y) return;
    vec4 sum = vec4(0.0);
    for (int dy = -1; dy <= 1; dy++) {
        for (int dx = -1; dx <= 1; dx++) {
            sum += imageLoad(src, clamp(p + ivec2(dx, dy), ivec2(0), size - 1));
        }
    }
    imageStore(dst, p, sum * (1.0 / 9.0));
    vec2 uv = (vec2(p) + 1.0) / vec2(size);
    vec2 t = uv * vec2(size) - 0.5;
    vec2 f = floor(t);
    vec2 w = t - f;
    ivec2 lo = clamp(ivec2(f), ivec2(0), size - 1);
    ivec2 hi = clamp(ivec2(f) + 1, ivec2(0), size - 1);
    vec4 a = imageLoad(src, lo), b = imageLoad(src, ivec2(hi.x, lo.y));
    vec4 c = imageLoad(src, ivec2(lo.x, hi.y)), d = imageLoad(src, hi);
    imageStore(smp, p, mix(mix(a, b, w.x), mix(c, d, w.x), w.y));
}
