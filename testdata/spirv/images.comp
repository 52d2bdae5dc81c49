#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba32f) uniform image2D img;
layout(set = 0, binding = 1) uniform sampler2D tex;
layout(set = 0, binding = 2, r32ui) uniform uimage2D counts;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(img);
    if (any(greaterThanEqual(p, size))) { return; }
    vec2 uv = (vec2(p) + 0.5) / vec2(textureSize(tex, 0));
    vec4 s = textureLod(tex, uv, 0.0) + texelFetch(tex, p, 0);
    imageStore(img, p, imageLoad(img, p) + s);
    imageAtomicAdd(counts, p, 1u);
}
