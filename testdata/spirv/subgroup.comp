#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { float v[]; } d;
layout(set = 0, binding = 1) buffer Ballots { uvec4 ballots[]; } bal;
void main() {
    uint i = gl_GlobalInvocationID.x;
    float x = d.v[i];
    float r = subgroupAdd(x) + subgroupInclusiveMul(x) + subgroupExclusiveAdd(x) + subgroupMax(x);
    r += subgroupShuffleXor(x, 1u) + subgroupShuffleUp(x, 1u) + subgroupBroadcastFirst(x) + subgroupQuadSwapHorizontal(x);
    if (subgroupAll(x > 0.0) || subgroupAny(x < -1.0)) { r = -r; }
    uvec4 b = subgroupBallot(x > 0.5);
    if (subgroupElect()) { bal.ballots[i / gl_SubgroupSize] = b + uvec4(subgroupBallotBitCount(b)); }
    d.v[i] = r + float(gl_SubgroupInvocationID);
}
