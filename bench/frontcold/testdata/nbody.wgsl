// The WGSL twin of nbody/nbody.go (the parameters are a uniform buffer).
struct Body { pos: vec3<f32>, mass: f32, vel: vec3<f32>, pad: f32 }
struct Params { dt: f32 }
@group(0) @binding(2) var<uniform> pc: Params;
@group(0) @binding(0) var<storage, read> bodies_in: array<Body>;
@group(0) @binding(1) var<storage, read_write> bodies_out: array<Body>;
const SOFTENING: f32 = 0.01;
fn accel(p: vec3<f32>, b: Body) -> vec3<f32> {
    let d = b.pos - p;
    let r2 = dot(d, d) + SOFTENING;
    let inv = 1.0 / sqrt(r2);
    return d * (b.mass * inv * inv * inv);
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let n = arrayLength(&bodies_in);
    if (i >= n) { return; }
    var me = bodies_in[i];
    var a = vec3<f32>(0.0);
    for (var j = 0u; j < n; j = j + 1u) {
        if (j == i) { continue; }
        a = a + accel(me.pos, bodies_in[j]);
    }
    me.vel = me.vel + a * pc.dt;
    me.pos = me.pos + me.vel * pc.dt;
    bodies_out[i] = me;
}
