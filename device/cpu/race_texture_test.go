package cpu_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// raceReport runs cmds on d and returns the race report they end with (nil:
// none); any other error fails the test.
func raceReport(t *testing.T, d *device.Device, cmds ...device.Command) *device.KernelRace {
	t.Helper()
	err := runErr(t, d, cmds...)
	if err == nil {
		return nil
	}
	var r *device.KernelRace
	require.True(t, errors.As(err, &r), "%v is not a race report", err)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	return r
}

// compileOn returns a function compiling a DSL kernel on d.
func compileOn(t *testing.T, d *device.Device) func(*ir.Function, error) *device.Kernel {
	return func(f *ir.Function, err error) *device.Kernel {
		t.Helper()
		require.NoError(t, err)
		k, err := device.Compile(d, f)
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, k.Close()) })
		return k
	}
}

// image makes a w×h RGBA32F image of levels levels on d.
func image(t *testing.T, d *device.Device, w, h, levels int) *device.Image[[4]float32] {
	t.Helper()
	img, err := device.NewImage[[4]float32](d, device.RGBA32Float, w, h, levels)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, img.Close()) })
	return img
}

func textureTestFile() string {
	_, file, _, _ := runtime.Caller(0)
	return file
}

// texel is the texel (x, 0) with value x in every channel.
func texel(x dsl.U32) (dsl.U32x2, dsl.F32x4) {
	f := dsl.Convert[float32](x)
	return dsl.V2(x, dsl.U(0)), dsl.V4(f, f, f, f)
}

// TestRaceTexelWriteWrite: two threads writing one texel race; the report
// names the texture argument, the level and the texel's coordinates. Bound
// at level 1, the shadow is level 1's.
func TestRaceTexelWriteWrite(t *testing.T) {
	d := openRace(t)
	k := compileOn(t, d)(dsl.Kernel1D(64, func(k *dsl.K, img dsl.Tex2D) {
		i := k.DispatchID().X()
		xy, v := texel(i.Div(dsl.U(2)))
		img.Write(xy, v)
	}, "img"))
	img := image(t, d, 64, 2, 2)
	for _, level := range []int{0, 1} {
		r := raceReport(t, d, k.Dispatch([3]uint32{64}, img.Level(level)))
		require.NotNil(t, r, "level %d", level)
		require.Contains(t, r.What, "argument 0 (img)")
		require.Equal(t, uint32(level), r.Level)
		require.Equal(t, []uint32{0, 0}, r.Texel)
		require.Equal(t, uint64(0), r.Index)
		want := fmt.Sprintf("race_texture_test.go:%d", lineOf(t, textureTestFile(), "img.Write(xy, v)", 1))
		require.Equal(t, device.RaceAccess{Thread: [3]uint32{0, 0, 0}, Write: true, Pos: r.First.Pos}, r.First)
		require.Equal(t, device.RaceAccess{Thread: [3]uint32{1, 0, 0}, Write: true, Pos: r.First.Pos}, r.Second)
		require.Contains(t, r.First.Pos, "race_texture_test.go:")
		require.Equal(t, want, r.First.Pos[len(r.First.Pos)-len(want):])
		require.Equal(t, 32, r.Count, "one pair per texel written twice")
		require.ErrorContains(t, r, fmt.Sprintf("data race on %s level %d texel [0 0]: thread [0 0 0] wrote it at %s, then thread [1 0 0] wrote it", r.What, level, r.First.Pos))
	}

	// A volume's texel has 3 coordinates.
	k3 := compileOn(t, d)(dsl.Kernel1D(64, func(k *dsl.K, vol dsl.Tex3D) {
		z := k.DispatchID().X().Div(dsl.U(2))
		vol.Write(dsl.V3(dsl.U(1), dsl.U(1), z), dsl.V4(dsl.F(1), dsl.F(2), dsl.F(3), dsl.F(4)))
	}, "vol"))
	vol, err := device.NewVolume[[4]float32](d, device.RGBA32Float, 2, 2, 32, 1)
	require.NoError(t, err)
	defer vol.Close()
	r := raceReport(t, d, k3.Dispatch([3]uint32{64}, vol))
	require.NotNil(t, r)
	require.Contains(t, r.What, "argument 0 (vol)")
	require.Equal(t, []uint32{1, 1, 0}, r.Texel)
	require.Equal(t, uint64(3), r.Index)
	require.Equal(t, 32, r.Count)
}

// TestRaceTexelWriteRead: a thread reading a texel another writes races,
// within a block and across blocks; with a barrier between the write and
// the read of a block's texels, nothing is reported and the reads see the
// writes.
func TestRaceTexelWriteRead(t *testing.T) {
	d := openRace(t)
	build := func(barrier bool) *device.Kernel {
		return compileOn(t, d)(dsl.Kernel1D(64, func(k *dsl.K, img dsl.Tex2D, out dsl.Buf[dsl.F32]) {
			i, tid := k.DispatchID().X(), k.ThreadID().X()
			xy, v := texel(i)
			img.Write(xy, v)
			if barrier {
				k.Barrier()
			}
			mirror := i.Sub(tid).Add(dsl.U(63).Sub(tid)) // the block's texel 63-tid
			out.Write(i, img.Read(dsl.V2(mirror, dsl.U(0))).X())
		}, "img", "out"))
	}
	img := image(t, d, 128, 1, 1)
	out := upload(t, d, make([]float32, 128))
	r := raceReport(t, d, build(false).Dispatch([3]uint32{64}, img, out))
	require.NotNil(t, r)
	// Thread 31 reads texel 32, then thread 32 writes it.
	require.Equal(t, []uint32{32, 0}, r.Texel)
	require.Equal(t, device.RaceAccess{Thread: [3]uint32{31, 0, 0}, Pos: r.First.Pos}, r.First)
	require.Equal(t, device.RaceAccess{Thread: [3]uint32{32, 0, 0}, Write: true, Pos: r.Second.Pos}, r.Second)
	require.Equal(t, 64, r.Count)

	require.Nil(t, raceReport(t, d, build(true).Dispatch([3]uint32{128}, img, out)), "with the barrier")
	got := download(t, d, out)
	for i := range got {
		require.Equal(t, float32(i/64*64+63-i%64), got[i], "element %d", i)
	}

	// Across blocks: thread 63 (block 0) reads texel 64, which thread 64
	// (block 1) writes; no barrier orders blocks.
	cross := compileOn(t, d)(dsl.Kernel1D(64, func(k *dsl.K, img dsl.Tex2D, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		k.If(i.Eq(dsl.U(63)), func() { out.Write(i, img.Read(dsl.V2(dsl.U(64), dsl.U(0))).X()) })
		k.If(i.Eq(dsl.U(64)), func() { xy, v := texel(i); img.Write(xy, v) })
	}, "img", "out"))
	r = raceReport(t, d, cross.Dispatch([3]uint32{128}, img, out))
	require.NotNil(t, r)
	require.Equal(t, 1, r.Count)
	require.Equal(t, []uint32{64, 0}, r.Texel)
	require.Equal(t, [3]uint32{63, 0, 0}, r.First.Thread)
	require.Equal(t, [3]uint32{64, 0, 0}, r.Second.Thread)
	require.True(t, r.Second.Write)
}

// TestRaceTexelSample: a filtered read reads every texel its filter
// weighs: a thread sampling between texels 0 and 1 races with the thread
// writing texel 1, not with one writing texel 2.
func TestRaceTexelSample(t *testing.T) {
	d := openRace(t)
	build := func(target uint32) *device.Kernel {
		return compileOn(t, d)(dsl.Kernel1D(64, func(k *dsl.K, img dsl.Tex2D, out dsl.Buf[dsl.F32]) {
			i := k.DispatchID().X()
			k.If(i.Eq(dsl.U(0)), func() { out.Write(i, img.Sample(dsl.V2(dsl.F(1.0/8), dsl.F(0.5))).X()) })
			k.If(i.Eq(dsl.U(1)), func() { xy, v := texel(dsl.U(target)); img.Write(xy, v) })
		}, "img", "out"))
	}
	img := image(t, d, 8, 1, 1) // u = 1/8 is halfway between texels 0 and 1
	out := upload(t, d, make([]float32, 64))
	r := raceReport(t, d, build(1).Dispatch([3]uint32{64}, img, out))
	require.NotNil(t, r)
	require.Equal(t, []uint32{1, 0}, r.Texel)
	require.Equal(t, device.RaceAccess{Thread: [3]uint32{0, 0, 0}, Pos: r.First.Pos}, r.First)
	require.Contains(t, r.First.Pos, fmt.Sprintf("race_texture_test.go:%d", lineOf(t, textureTestFile(), "img.Sample(dsl.V2(", 1)))
	require.Equal(t, [3]uint32{1, 0, 0}, r.Second.Thread)
	require.Nil(t, raceReport(t, d, build(2).Dispatch([3]uint32{64}, img, out)), "texel 2 is not under the filter")
}

// TestRaceBindlessBuffer: two threads writing one element of a buffer in a
// slot race; the report names the array and the slot. The same buffer in a
// slot and bound as an argument is one shadow: a write through the
// argument and a read through the slot race.
func TestRaceBindlessBuffer(t *testing.T) {
	d := openRace(t)
	buf := upload(t, d, make([]float32, 64))
	arr, err := d.NewBindlessArray(4)
	require.NoError(t, err)
	defer arr.Close()
	require.NoError(t, arr.EmplaceBuffer(2, buf.All()))

	pairs := compileOn(t, d)(dsl.Kernel1D(64, func(k *dsl.K, arr dsl.BindlessArray) {
		i := k.DispatchID().X()
		dsl.WriteBuffer(arr, dsl.U(2), i.Div(dsl.U(2)), dsl.Convert[float32](i))
	}, "arr"))
	r := raceReport(t, d, arr.Update(), pairs.Dispatch([3]uint32{64}, arr))
	require.NotNil(t, r)
	require.Contains(t, r.What, "argument 0 (arr)")
	require.Contains(t, r.What, "slot 2")
	require.Nil(t, r.Texel)
	require.Equal(t, uint64(0), r.Index)
	require.Equal(t, device.RaceAccess{Thread: [3]uint32{0, 0, 0}, Write: true, Pos: r.First.Pos}, r.First)
	require.Equal(t, device.RaceAccess{Thread: [3]uint32{1, 0, 0}, Write: true, Pos: r.First.Pos}, r.Second)
	require.Equal(t, 32, r.Count)

	both := compileOn(t, d)(dsl.Kernel1D(64, func(k *dsl.K, arr dsl.BindlessArray, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		out.Write(i, dsl.ReadBuffer[dsl.F32](arr, dsl.U(2), i.Add(dsl.U(1))))
	}, "arr", "out"))
	r = raceReport(t, d, arr.Update(), both.Dispatch([3]uint32{64}, arr, buf))
	require.NotNil(t, r, "element i+1 read through the slot, then written through the argument")
	require.Contains(t, r.What, "slot 2")
	require.Equal(t, uint64(1), r.Index)
	require.Equal(t, device.RaceAccess{Thread: [3]uint32{0, 0, 0}, Pos: r.First.Pos}, r.First)
	require.Equal(t, [3]uint32{1, 0, 0}, r.Second.Thread)
	require.True(t, r.Second.Write)
	require.Contains(t, r.Second.Via, "argument 1 (out)")
	require.ErrorContains(t, r, "then thread [1 0 0] wrote it through "+r.Second.Via)

	// Reads alone, through slots and arguments, never race.
	reads := compileOn(t, d)(dsl.Kernel1D(64, func(k *dsl.K, arr dsl.BindlessArray, in, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		out.Write(i, dsl.ReadBuffer[dsl.F32](arr, dsl.U(2), dsl.U(0)).Add(in.Read(dsl.U(0))))
	}, "arr", "in", "out"))
	require.Nil(t, raceReport(t, d, arr.Update(), reads.Dispatch([3]uint32{64}, arr, buf, upload(t, d, make([]float32, 64)))))
}

// TestRaceBindlessTexture: a texture in a slot and bound as a storage
// argument is one shadow: reads and samples through the slot race with
// writes through the argument, and the report names the slot.
func TestRaceBindlessTexture(t *testing.T) {
	d := openRace(t)
	img := image(t, d, 64, 1, 1)
	arr, err := d.NewBindlessArray(2)
	require.NoError(t, err)
	defer arr.Close()
	require.NoError(t, arr.EmplaceTexture(1, img, device.Sampler{Filter: device.FilterPoint}))
	out := upload(t, d, make([][4]float32, 64))
	for _, c := range []struct {
		name  string
		fetch func(tx dsl.BindlessTex2D, i dsl.U32) dsl.F32x4
	}{
		{"read", func(tx dsl.BindlessTex2D, i dsl.U32) dsl.F32x4 { return tx.Read(dsl.V2(i.Add(dsl.U(1)), dsl.U(0))) }},
		// the centre of texel i+1
		{"sample", func(tx dsl.BindlessTex2D, i dsl.U32) dsl.F32x4 {
			u := dsl.Convert[float32](i).Add(dsl.F(1.5)).Div(dsl.F(64))
			return tx.Sample(dsl.V2(u, dsl.F(0.5)))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := compileOn(t, d)(dsl.Kernel1D(64, func(k *dsl.K, arr dsl.BindlessArray, img dsl.Tex2D, out dsl.Buf[dsl.F32x4]) {
				i := k.DispatchID().X()
				out.Write(i, c.fetch(arr.Texture2D(dsl.U(1)), i))
				xy, v := texel(i)
				img.Write(xy, v)
			}, "arr", "img", "out"))
			r := raceReport(t, d, arr.Update(), k.Dispatch([3]uint32{64}, arr, img, out))
			require.NotNil(t, r)
			require.Contains(t, r.What, "argument 0 (arr)")
			require.Contains(t, r.What, "slot 1")
			require.Equal(t, []uint32{1, 0}, r.Texel)
			require.Equal(t, uint32(0), r.Level)
			require.Equal(t, device.RaceAccess{Thread: [3]uint32{0, 0, 0}, Pos: r.First.Pos}, r.First)
			require.Equal(t, [3]uint32{1, 0, 0}, r.Second.Thread)
			require.True(t, r.Second.Write)
			require.Contains(t, r.Second.Via, "argument 1 (img)")
			require.Equal(t, 63, r.Count)
		})
	}
}

// BenchmarkRaceTexture runs a 256×256 RGBA32F image invert (a texel read
// and a texel write per thread) and a bilinear blur (a sample of 4 texels
// into a buffer) with the race detector off, on, and off on the per-thread
// engine, which the detector runs every kernel on (textures keep a kernel
// off the lane engine anyway), reporting the CPU time too.
func BenchmarkRaceTexture(b *testing.B) {
	const w = 256
	invert, err := dsl.Kernel2D(8, 8, func(k *dsl.K, img dsl.Tex2D, out dsl.Buf[dsl.F32x4]) {
		p := k.DispatchID().XY()
		one := dsl.V4(dsl.F(1), dsl.F(1), dsl.F(1), dsl.F(1))
		img.Write(p, one.Sub(img.Read(p)))
	}, "img", "out")
	require.NoError(b, err)
	blur, err := dsl.Kernel2D(8, 8, func(k *dsl.K, img dsl.Tex2D, out dsl.Buf[dsl.F32x4]) {
		p := k.DispatchID().XY()
		uv := dsl.V2(dsl.Convert[float32](p.X()).Div(dsl.F(w)), dsl.Convert[float32](p.Y()).Div(dsl.F(w)))
		out.Write(p.Y().Mul(dsl.U(w)).Add(p.X()), img.Sample(uv))
	}, "img", "out")
	require.NoError(b, err)
	for _, kc := range []struct {
		name string
		f    *ir.Function
	}{{"invert", invert}, {"blur", blur}} {
		for _, mode := range []string{"off", "perthread", "race"} {
			b.Run(kc.name+"/"+mode, func(b *testing.B) {
				if mode == "perthread" {
					defer cpu.SetLaneEngine(cpu.SetLaneEngine(false))
				}
				var opts []device.Option
				if mode == "race" {
					opts = append(opts, device.WithRaceDetector())
				}
				d, err := device.Open(context.Background(), "cpu", opts...)
				require.NoError(b, err)
				defer d.Close()
				k, err := device.Compile(d, kc.f)
				require.NoError(b, err)
				defer k.Close()
				img, err := device.NewImage[[4]float32](d, device.RGBA32Float, w, w, 1)
				require.NoError(b, err)
				defer img.Close()
				out, err := device.NewBuffer[[4]float32](d, w*w)
				require.NoError(b, err)
				defer out.Close()
				s, err := d.NewStream(device.StreamCompute)
				require.NoError(b, err)
				defer s.Close()
				c0 := cpuSeconds() // work, where wall time on a shared machine measures the neighbours too
				for b.Loop() {
					require.NoError(b, s.Submit(k.Dispatch([3]uint32{w, w}, img, out)))
					require.NoError(b, s.Synchronize(context.Background()))
				}
				b.ReportMetric((cpuSeconds()-c0)*1e9/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
