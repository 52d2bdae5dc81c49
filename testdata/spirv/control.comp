#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { int result[]; };
void main() {
    int i = int(gl_GlobalInvocationID.x);
    int acc = 0;
    for (int j = 0; j < 16; ++j) {
        switch (j % 5) {
        case 0: acc += j; break;
        case 1: acc -= 2 * j; break;
        case -3: acc = acc * 3; break;
        case 3:
        case 4: acc ^= i; break;
        default: acc = 0;
        }
        if (acc > 1000) { break; }
        if ((j & 1) == 0) { continue; }
        acc += i;
    }
    int k = 0;
    while (k < i) { k += 3; }
    do { k--; } while (k > 100);
    result[i] = acc + k;
}
