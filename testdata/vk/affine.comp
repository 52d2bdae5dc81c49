#version 450
// data[i] = data[i] * mul + i for i < n; the vk integration test checks every element.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint v[]; } data;
layout(push_constant) uniform Params { uint n; uint mul; } params;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < params.n) {
        data.v[i] = data.v[i] * params.mul + i;
    }
}
