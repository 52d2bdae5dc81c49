#version 450
#extension GL_ARB_gpu_shader_fp64 : enable
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { vec4 v[]; } src;
layout(set = 0, binding = 1) buffer Out { vec4 r[]; } dst;
layout(set = 0, binding = 2) buffer OutD { double d[]; } dstd;
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 x = src.v[i];
    vec4 y = sqrt(abs(x)) + sin(x) * cos(x) + pow(vec4(2.0), clamp(x, -4.0, 4.0));
    y += floor(x) + fract(x) + fma(x, x, vec4(1.0)) + exp(x * 0.125) + log2(abs(x) + 1e-7);
    y += vec4(length(x.xyz), dot(x, y), distance(x.xy, y.zw), inversesqrt(1.0 + x.w * x.w));
    y = mix(y, normalize(y + 0.5), 0.25) + step(0.5, x) * smoothstep(0.0, 1.0, x);
    y += vec4(1.0 / 0.0, 3.4028235e38, 1.17549435e-38, 1e-45);
    mat3 m = mat3(x.xyz, y.xyz, cross(x.xyz, y.xyz));
    y.xyz += m * x.zyx + transpose(m)[1] * determinant(m);
    dst.r[i] = y + vec4(packHalf2x16(x.xy), bitCount(uint(x.z)), findMSB(int(x.w)), uintBitsToFloat(0x7fc00000u));
    dstd.d[i] = double(y.x) * 0.1LF + 1.0e300LF - 4.9e-324LF;
}
