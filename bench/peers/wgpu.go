package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/gogpu/gputypes"
	"github.com/gogpu/wgpu"
	_ "github.com/gogpu/wgpu/hal/vulkan" // the Vulkan backend only: the same driver as lucent's
)

const incWGSL = `
@group(0) @binding(0) var<storage, read_write> b: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    b[id.x] = b[id.x] + 1.0;
}
`

// saxpyRow is the threads in one row of the 2-D saxpy dispatch: WebGPU caps
// a dimension at 65,535 workgroups, so 16M threads need two.
const saxpyRow = 4096 * 64

const saxpyWGSL = `
struct Params { a: f32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x + id.y * 262144u;
    y[i] = p.a * x[i] + y[i];
}
`

// wgpuSide runs the operations through gogpu/wgpu's WebGPU API on its
// Vulkan backend. Waits are what the library offers: Device.WaitIdle after a
// submission, Buffer.Map for a read-back.
type wgpuSide struct {
	device string
	inst   *wgpu.Instance
	ad     *wgpu.Adapter
	d      *wgpu.Device
	q      *wgpu.Queue

	inc, saxpy                     *wgpu.ComputePipeline
	chainBuf, rtBuf, x, y, p, tbuf *wgpu.Buffer
	staging                        *wgpu.Buffer
	chainBG, rtBG, saxpyBG         *wgpu.BindGroup
	up, down                       []float32
}

func newWGPU() (*wgpuSide, error) {
	w := &wgpuSide{}
	var err error
	if w.inst, err = wgpu.CreateInstance(&wgpu.InstanceDescriptor{Backends: wgpu.BackendsVulkan}); err != nil {
		return nil, err
	}
	if w.ad, err = w.inst.RequestAdapter(nil); err != nil {
		w.inst.Release()
		return nil, err
	}
	info := w.ad.Info()
	w.device = fmt.Sprintf("%s (%s, %v backend)", info.Name, info.DriverInfo, info.Backend)
	if w.d, err = w.ad.RequestDevice(nil); err != nil {
		w.ad.Release()
		w.inst.Release()
		return nil, err
	}
	w.q = w.d.Queue()
	if err := w.setup(); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *wgpuSide) buffer(label string, size uint64, usage wgpu.BufferUsage) (*wgpu.Buffer, error) {
	return w.d.CreateBuffer(&wgpu.BufferDescriptor{Label: label, Size: size, Usage: usage})
}

func (w *wgpuSide) pipeline(label, src string, kinds ...gputypes.BufferBindingType) (*wgpu.ComputePipeline, *wgpu.BindGroupLayout, error) {
	sm, err := w.d.CreateShaderModule(&wgpu.ShaderModuleDescriptor{Label: label, WGSL: src})
	if err != nil {
		return nil, nil, err
	}
	var entries []wgpu.BindGroupLayoutEntry
	for i, k := range kinds {
		entries = append(entries, wgpu.BindGroupLayoutEntry{Binding: uint32(i), Visibility: wgpu.ShaderStageCompute,
			Buffer: &gputypes.BufferBindingLayout{Type: k}})
	}
	bgl, err := w.d.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: label, Entries: entries})
	if err != nil {
		return nil, nil, err
	}
	pl, err := w.d.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{Label: label, BindGroupLayouts: []*wgpu.BindGroupLayout{bgl}})
	if err != nil {
		return nil, nil, err
	}
	p, err := w.d.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{Label: label, Layout: pl, Module: sm, EntryPoint: "main"})
	return p, bgl, err
}

func (w *wgpuSide) bindGroup(bgl *wgpu.BindGroupLayout, bufs ...*wgpu.Buffer) (*wgpu.BindGroup, error) {
	var entries []wgpu.BindGroupEntry
	for i, b := range bufs {
		entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(i), Buffer: b, Size: b.Size()})
	}
	return w.d.CreateBindGroup(&wgpu.BindGroupDescriptor{Layout: bgl, Entries: entries})
}

func (w *wgpuSide) setup() error {
	const storage = wgpu.BufferUsageStorage | wgpu.BufferUsageCopyDst | wgpu.BufferUsageCopySrc
	var err error
	var incL, saxpyL *wgpu.BindGroupLayout
	if w.inc, incL, err = w.pipeline("inc", incWGSL, gputypes.BufferBindingTypeStorage); err != nil {
		return err
	}
	if w.saxpy, saxpyL, err = w.pipeline("saxpy", saxpyWGSL, gputypes.BufferBindingTypeReadOnlyStorage,
		gputypes.BufferBindingTypeStorage, gputypes.BufferBindingTypeUniform); err != nil {
		return err
	}
	for _, b := range []struct {
		p     **wgpu.Buffer
		size  uint64
		usage wgpu.BufferUsage
	}{
		{&w.chainBuf, chainThreads * 4, storage}, {&w.rtBuf, chainThreads * 4, storage},
		{&w.x, saxpyN * 4, storage}, {&w.y, saxpyN * 4, storage},
		{&w.p, 16, wgpu.BufferUsageUniform | wgpu.BufferUsageCopyDst},
		{&w.tbuf, transferN * 4, storage},
		{&w.staging, transferN * 4, wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst},
	} {
		if *b.p, err = w.buffer("", b.size, b.usage); err != nil {
			return err
		}
	}
	if w.chainBG, err = w.bindGroup(incL, w.chainBuf); err != nil {
		return err
	}
	if w.rtBG, err = w.bindGroup(incL, w.rtBuf); err != nil {
		return err
	}
	if w.saxpyBG, err = w.bindGroup(saxpyL, w.x, w.y, w.p); err != nil {
		return err
	}
	params := make([]byte, 16)
	binary.LittleEndian.PutUint32(params, math.Float32bits(saxpyA))
	if err := w.q.WriteBuffer(w.p, 0, params); err != nil {
		return err
	}
	w.up = transferData()
	w.down = make([]float32, transferN)
	return nil
}

func (w *wgpuSide) name() string { return "wgpu" }

func bytesOf(f []float32) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*4) }

// dispatch encodes n dispatches of p over bg in one compute pass (wgpu puts
// a barrier after each), submits them and waits.
func (w *wgpuSide) dispatch(p *wgpu.ComputePipeline, bg *wgpu.BindGroup, n int, groups [3]uint32) error {
	enc, err := w.d.CreateCommandEncoder(nil)
	if err != nil {
		return err
	}
	pass, err := enc.BeginComputePass(nil)
	if err != nil {
		return err
	}
	pass.SetPipeline(p)
	pass.SetBindGroup(0, bg, nil)
	for range n {
		pass.Dispatch(groups[0], groups[1], groups[2])
	}
	if err := pass.End(); err != nil {
		return err
	}
	return w.finish(enc)
}

func (w *wgpuSide) finish(enc *wgpu.CommandEncoder) error {
	cb, err := enc.Finish()
	if err != nil {
		return err
	}
	if _, err := w.q.Submit(cb); err != nil {
		return err
	}
	return w.d.WaitIdle()
}

func (w *wgpuSide) write(b *wgpu.Buffer, data []float32) error {
	if err := w.q.WriteBuffer(b, 0, bytesOf(data)); err != nil {
		return err
	}
	enc, err := w.d.CreateCommandEncoder(nil)
	if err != nil {
		return err
	}
	return w.finish(enc)
}

func (w *wgpuSide) read(b *wgpu.Buffer, dst []float32) error {
	size := uint64(len(dst) * 4)
	enc, err := w.d.CreateCommandEncoder(nil)
	if err != nil {
		return err
	}
	enc.CopyBufferToBuffer(b, 0, w.staging, 0, size)
	cb, err := enc.Finish()
	if err != nil {
		return err
	}
	if _, err := w.q.Submit(cb); err != nil {
		return err
	}
	if err := w.staging.Map(context.Background(), wgpu.MapModeRead, 0, size); err != nil {
		return err
	}
	rng, err := w.staging.MappedRange(0, size)
	if err != nil {
		w.staging.Unmap()
		return err
	}
	copy(bytesOf(dst), rng.Bytes())
	return w.staging.Unmap()
}

func (w *wgpuSide) op(name string) error {
	switch name {
	case "chain":
		return w.dispatch(w.inc, w.chainBG, chainLength, [3]uint32{1, 1, 1})
	case "roundtrip":
		return w.dispatch(w.inc, w.rtBG, 1, [3]uint32{1, 1, 1})
	case "saxpy":
		return w.dispatch(w.saxpy, w.saxpyBG, 1, [3]uint32{saxpyRow / 64, saxpyN / saxpyRow, 1})
	case "upload":
		return w.write(w.tbuf, w.up)
	case "download":
		return w.read(w.tbuf, w.down)
	}
	return fmt.Errorf("unknown operation %q", name)
}

func (w *wgpuSide) check() error {
	got := make([]float32, chainThreads)
	if err := w.write(w.chainBuf, got); err != nil {
		return err
	}
	if err := w.op("chain"); err != nil {
		return err
	}
	if err := w.read(w.chainBuf, got); err != nil {
		return err
	}
	if err := checkChain("wgpu", got); err != nil {
		return err
	}
	xs, ys := make([]float32, saxpyN), make([]float32, saxpyN)
	for i := range xs {
		xs[i], ys[i] = saxpyInput(i)
	}
	if err := w.write(w.x, xs); err != nil {
		return err
	}
	if err := w.write(w.y, ys); err != nil {
		return err
	}
	if err := w.op("saxpy"); err != nil {
		return err
	}
	if err := w.read(w.y, ys); err != nil {
		return err
	}
	if err := checkSaxpy("wgpu", ys); err != nil {
		return err
	}
	if err := w.op("roundtrip"); err != nil {
		return err
	}
	if err := w.op("upload"); err != nil {
		return err
	}
	clear(w.down)
	if err := w.op("download"); err != nil {
		return err
	}
	return checkTransfer("wgpu", w.down)
}

func (w *wgpuSide) close() {
	if w.d != nil {
		w.d.Release()
	}
	if w.ad != nil {
		w.ad.Release()
	}
	if w.inst != nil {
		w.inst.Release()
	}
}
