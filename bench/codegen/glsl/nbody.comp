#version 450
// One softened-gravity step of n bodies (xyz position, w mass); the twin of
// frontend/programs.NBody.
layout(local_size_x = 64) in;
layout(push_constant) uniform Params { float dt; uint n; } pc;
layout(std430, set = 0, binding = 0) readonly buffer Pos { vec4 pos[]; };
layout(std430, set = 0, binding = 1) buffer Vel { vec4 vel[]; };
layout(std430, set = 0, binding = 2) buffer NewPos { vec4 newPos[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.n) return;
    vec4 p = pos[i];
    vec3 acc = vec3(0.0);
    for (uint j = 0u; j < pc.n; j++) {
        vec4 q = pos[j];
        vec3 d = q.xyz - p.xyz;
        float r2 = dot(d, d) + 0.01;
        float inv = inversesqrt(r2);
        acc += d * (q.w * inv * inv * inv);
    }
    vec3 v = vel[i].xyz + acc * pc.dt;
    vel[i] = vec4(v, 0.0);
    newPos[i] = vec4(p.xyz + v * pc.dt, p.w);
}
