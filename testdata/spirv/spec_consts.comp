#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x_id = 0, local_size_y = 1) in;
layout(constant_id = 1) const int SCALE = 3;
layout(constant_id = 2) const bool FLIP = false;
layout(constant_id = 3) const float BIAS = -0.5;
const int DOUBLED = SCALE * 2;
layout(set = 0, binding = 0) buffer Out { int64_t a[]; } o;
layout(set = 0, binding = 1) buffer Small { int16_t s[]; } sm;
layout(set = 0, binding = 2) buffer Half { float16_t h[]; } hf;
void main() {
    uint i = gl_GlobalInvocationID.x;
    int64_t v = int64_t(i) * DOUBLED - 9223372036854775807l;
    if (FLIP) { v = -v; }
    switch (int(i) - 2) {
    case -1: v = 42l; break;
    case 2147483647: v = 0x100000000l; break;
    default: break;
    }
    o.a[i] = v + int64_t(BIAS);
    sm.s[i] = int16_t(-5) * int16_t(i);
    hf.h[i] = float16_t(1.5) * float16_t(i) + float16_t(-0.0);
}
