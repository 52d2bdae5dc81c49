// The WGSL twin of mandelbrot/mandelbrot.go (the parameters are a uniform buffer).
struct Params { w: u32, h: u32 }
@group(0) @binding(1) var<uniform> pc: Params;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= pc.w || id.y >= pc.h) { return; }
    let cx = -2.0 + 3.0 * f32(id.x) / f32(pc.w);
    let cy = -1.5 + 3.0 * f32(id.y) / f32(pc.h);
    var x = 0.0;
    var y = 0.0;
    var n = 0u;
    loop {
        if (n >= 64u) { break; }
        if (x * x + y * y > 4.0) { break; }
        let nx = x * x - y * y + cx;
        y = 2.0 * x * y + cy;
        x = nx;
        n = n + 1u;
    }
    out[id.y * pc.w + id.x] = n;
}
