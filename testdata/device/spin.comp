#version 450
// A kernel that does not end in any useful time: every thread counts until a
// flag nobody sets becomes non-zero (the test of Close's bound on hung work).
// The count is a side effect the compiler cannot drop. llvmpipe ends a loop
// after 65535 iterations of one invocation, so the test runs enough of them
// (2^20: minutes of work).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) coherent buffer F { uint flag; uint count; };
void main() {
    while (atomicAdd(flag, 0u) == 0u) {
        atomicAdd(count, 1u);
    }
}
