#version 450
// out[i] = the red channel of texel (x, y) of level lod, read through a
// sampler at the texel's centre.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1) writeonly buffer O { float o[]; };
layout(push_constant) uniform P { int lod; } p;
void main() {
    ivec2 size = textureSize(tex, p.lod);
    ivec2 q = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(q, size))) return;
    vec2 uv = (vec2(q) + 0.5) / vec2(size);
    o[q.y * size.x + q.x] = textureLod(tex, uv, float(p.lod)).r;
}
