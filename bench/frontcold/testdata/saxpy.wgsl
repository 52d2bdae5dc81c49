// The WGSL twin of testdata/saxpy/saxpy.go and testdata/frontend/saxpy.comp (naga has no push
// constants in WGSL: the parameters are a uniform buffer).
struct Params { a: f32, n: u32 }
@group(0) @binding(2) var<uniform> pc: Params;
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= pc.n) { return; }
    y[i] = pc.a * x[i] + y[i];
}
