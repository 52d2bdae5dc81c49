#version 450
// dst = src * 2 + (x, y, 0, 1) texel by texel, on storage images.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba32f) readonly uniform image2D src;
layout(set = 0, binding = 1, rgba32f) writeonly uniform image2D dst;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, imageSize(dst)))) return;
    imageStore(dst, p, imageLoad(src, p) * 2.0 + vec4(p, 0.0, 1.0));
}
