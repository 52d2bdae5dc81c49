package device_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/shadercache"
)

// syncErr submits cmds on a fresh stream and returns Synchronize's error.
func syncErr(t *testing.T, d *device.Device, cmds ...device.Command) error {
	t.Helper()
	s, err := d.NewStream(device.StreamCompute)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Submit(cmds...))
	return s.Synchronize(context.Background())
}

// faultOf checks that err is a *device.KernelFault of kind at pos (when
// not empty: the end of its Pos) whose text says each of text, on every
// backend.
func faultOf(t *testing.T, err error, kind device.FaultKind, pos string, text ...string) *device.KernelFault {
	t.Helper()
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	for _, s := range text {
		require.ErrorContains(t, err, s)
	}
	var f *device.KernelFault
	require.True(t, errors.As(err, &f), "%v is not a *KernelFault", err)
	require.Equal(t, kind, f.Kind)
	require.GreaterOrEqual(t, f.Count, 1)
	if pos != "" {
		require.True(t, f.Pos == pos || strings.HasSuffix(f.Pos, "/"+pos), "fault at %q, want %s", f.Pos, pos)
		require.ErrorContains(t, err, pos+": kernel ")
	}
	return f
}

// next is "file:line" of the line after its caller's: where a DSL
// statement made there is.
func next() string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("%s:%d", filepath.Base(file), line+1)
}

// A kernel compiled checked reports an index out of range, a shared index
// out of range and an integer division by zero from the stream's
// Synchronize, naming the kernel, the argument, the index and the thread;
// in range, it runs as the unchecked kernel does and the stream goes on.
func TestCheckedKernel(t *testing.T) {
	d := openDevice(t)
	compile := func(f *ir.Function, err error) *device.Kernel {
		t.Helper()
		require.NoError(t, err)
		k, err := device.Compile(d, f, device.WithChecked())
		require.NoError(t, err)
		t.Cleanup(func() { k.Close() })
		return k
	}
	buf := func(data []uint32) *device.Buffer[uint32] {
		b, err := device.NewBuffer[uint32](d, len(data))
		require.NoError(t, err)
		t.Cleanup(func() { b.Close() })
		run(t, d, b.Upload(data))
		return b
	}

	var pos string
	shift := compile(dsl.Kernel1D(64, func(k *dsl.K, src, dst dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		pos = next()
		dst.Write(i, src.Read(i.Add(dsl.U(1))))
	}, "src", "dst"))
	src, dst := buf(make([]uint32, 100)), buf(make([]uint32, 100))
	err := syncErr(t, d, shift.Dispatch([3]uint32{100}, src, dst))
	f := faultOf(t, err, device.FaultBufferIndex, pos, "argument 0 (src): index 100 out of range [0, 100)", "thread [99 0 0]")
	require.Equal(t, device.KernelFault{Kernel: f.Kernel, Kind: device.FaultBufferIndex, What: "argument 0 (src)", Index: 100, Len: 100,
		Thread: [3]uint32{99, 0, 0}, Pos: f.Pos, Count: 1}, *f)
	require.NoError(t, syncErr(t, d, shift.Dispatch([3]uint32{99}, src, dst)), "in range: no fault, and the device goes on")

	div := compile(dsl.Kernel1D(64, func(k *dsl.K, a, b dsl.Buf[dsl.I32]) {
		i := k.DispatchID().X()
		pos = next()
		a.Write(i, a.Read(i).Div(b.Read(i)))
	}, "a", "b"))
	a, err := device.NewBuffer[int32](d, 4)
	require.NoError(t, err)
	defer a.Close()
	bb, err := device.NewBuffer[int32](d, 4)
	require.NoError(t, err)
	defer bb.Close()
	run(t, d, a.Upload([]int32{10, 20, 30, 40}), bb.Upload([]int32{2, 5, 0, 1}))
	err = syncErr(t, d, div.Dispatch([3]uint32{4}, a, bb))
	faultOf(t, err, device.FaultDivideByZero, pos, "integer division by zero", "thread [2 0 0]")

	// In a callable: the fault is kept and reported by the kernel.
	pos = next()
	quot := dsl.Callable("quot", func(k *dsl.K, x, y dsl.I32) dsl.I32 { return x.Div(y) })
	divc := compile(dsl.Kernel1D(64, func(k *dsl.K, a, b dsl.Buf[dsl.I32]) {
		i := k.DispatchID().X()
		a.Write(i, quot(k, a.Read(i), b.Read(i)))
	}, "a", "b"))
	run(t, d, a.Upload([]int32{10, 20, 30, 40}), bb.Upload([]int32{2, 0, 3, 1}))
	err = syncErr(t, d, divc.Dispatch([3]uint32{4}, a, bb))
	faultOf(t, err, device.FaultDivideByZero, pos, "integer division by zero", "thread [1 0 0]")

	sh := compile(dsl.Kernel1D(32, func(k *dsl.K, idx, out dsl.Buf[dsl.U32]) {
		s := dsl.NewShared[dsl.U32](k, 32)
		tid := k.ThreadID().X()
		s.Write(tid, tid)
		k.Barrier()
		pos = next()
		out.Write(tid, s.Read(idx.Read(tid)))
	}, "idx", "out"))
	ids := make([]uint32, 32)
	for i := range ids {
		ids[i] = uint32(31 - i)
	}
	bi, bo := buf(ids), buf(make([]uint32, 32))
	require.NoError(t, syncErr(t, d, sh.Dispatch([3]uint32{32}, bi, bo)))
	got := make([]uint32, 32)
	run(t, d, bo.Download(got))
	require.Equal(t, ids, got, "the shared array reversed")
	ids[7] = 32
	run(t, d, bi.Upload(ids))
	err = syncErr(t, d, sh.Dispatch([3]uint32{32}, bi, bo))
	faultOf(t, err, device.FaultSharedIndex, pos, "shared variable", "index 32 out of range [0, 32)", "thread [7 0 0]")
}

// WithCheckedKernels checks every kernel of the device; without it a kernel
// out of range reports nothing on Vulkan (robust access reads zero).
func TestCheckedKernelsDeviceWide(t *testing.T) {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, src, dst dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		dst.Write(i, src.Read(i.Add(dsl.U(5))))
	}, "src", "dst")
	require.NoError(t, err)
	for _, checked := range []bool{false, true} {
		var opts []device.Option
		if checked {
			opts = append(opts, device.WithCheckedKernels())
		}
		d, _ := openPrinting(t, opts...)
		k, err := device.Compile(d, f)
		require.NoError(t, err)
		src, err := device.NewBuffer[uint32](d, 10)
		require.NoError(t, err)
		dst, err := device.NewBuffer[uint32](d, 10)
		require.NoError(t, err)
		err = syncErr(t, d, k.Dispatch([3]uint32{10}, src, dst))
		if checked || d.Backend() == "cpu" {
			faultOf(t, err, device.FaultBufferIndex, "", "index 10 out of range [0, 10)")
		} else {
			require.NoError(t, err)
		}
		if checked && d.Backend() == "vulkan" {
			var kf *device.KernelFault
			require.ErrorAs(t, err, &kf)
			require.Equal(t, 5, kf.Count, "threads 5 to 9 read past the end")
		}
		// A kernel loaded ahead of time is checked too: its artefact is
		// the unchecked code, so the device compiles its IR.
		store := shadercache.NewMemory()
		sig, err := device.SaveKernel(store, "shifted", f)
		require.NoError(t, err)
		aot, err := device.LoadKernel(d, store, "shifted", sig)
		require.NoError(t, err)
		err = syncErr(t, d, aot.Dispatch([3]uint32{10}, src, dst))
		if checked || d.Backend() == "cpu" {
			faultOf(t, err, device.FaultBufferIndex, "", "index 10 out of range [0, 10)")
		} else {
			require.NoError(t, err)
		}
		require.NoError(t, aot.Close())
		require.NoError(t, k.Close())
		require.NoError(t, src.Close())
		require.NoError(t, dst.Close())
	}
}

// A Go-subset kernel compiled checked names the faulting statement's
// file:line:col, on every backend.
func TestCheckedKernelGoPosition(t *testing.T) {
	testenv.NeedGoCommand(t)
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel")
	require.Empty(t, errs)
	var saxpy *gokernel.Kernel
	for _, k := range ks {
		if k.Name == "Saxpy" {
			saxpy = k
		}
	}
	require.NotNil(t, saxpy)
	d := openDevice(t)
	k, err := device.Compile(d, saxpy.Func, device.WithChecked())
	require.NoError(t, err)
	defer k.Close()
	x, err := device.NewBuffer[float32](d, 10) // too short
	require.NoError(t, err)
	defer x.Close()
	y, err := device.NewBuffer[float32](d, 20)
	require.NoError(t, err)
	defer y.Close()
	err = syncErr(t, d, k.Dispatch([3]uint32{20}, float32(2), x, y))
	f := faultOf(t, err, device.FaultBufferIndex, "basic.go:15:3", "argument 1 (x): index 1")
	require.Equal(t, "Saxpy", f.Kernel)
	require.Equal(t, uint64(10), f.Len)
}

// A failed assertion of a checked kernel, DSL or Go, is a FaultAssert with
// its message and position; an unchecked kernel on Vulkan does not check it.
func TestCheckedAssert(t *testing.T) {
	d := openDevice(t)
	var pos string
	fd, err := dsl.Kernel1D(64, func(k *dsl.K, a dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		k.Assert(i.Lt(dsl.U(1000)), "never fails")
		pos = next()
		k.Assert(a.Read(i).Ne(dsl.U(7)), "no sevens")
		a.Write(i, a.Read(i).Add(dsl.U(1)))
	}, "a")
	require.NoError(t, err)
	src := "package k\n\nimport \"github.com/lucent-gpu/lucent/kernel\"\n\n//lucent:kernel block=64\nfunc K(a []uint32) {\n" +
		"\ti := kernel.DispatchID().X\n" +
		"\tkernel.Assert(a[i] != 7, \"no sevens\")\n" + // line 8
		"\ta[i]++\n}\n"
	ks, errs := gokernel.Check("k.go", []byte(src))
	require.Empty(t, errs)
	for _, c := range []struct {
		name string
		f    *ir.Function
		pos  string
	}{{"dsl", fd, pos}, {"go", ks[0].Func, "k.go:8:2"}} {
		t.Run(c.name, func(t *testing.T) {
			a, err := device.NewBuffer[uint32](d, 8)
			require.NoError(t, err)
			defer a.Close()
			for _, checked := range []bool{true, false} {
				var opts []device.CompileOption
				if checked {
					opts = append(opts, device.WithChecked())
				}
				k, err := device.Compile(d, c.f, opts...)
				require.NoError(t, err)
				defer k.Close()
				run(t, d, a.Upload([]uint32{0, 1, 2, 3, 4, 5, 7, 8}))
				err = syncErr(t, d, k.Dispatch([3]uint32{8}, a))
				if !checked && d.Backend() == "vulkan" {
					require.NoError(t, err, "unchecked, the assertion is not emitted")
					continue
				}
				f := faultOf(t, err, device.FaultAssert, c.pos, "assertion failed: no sevens", "thread [6 0 0]")
				require.Equal(t, "no sevens", f.Msg)
				require.Equal(t, [3]uint32{6, 0, 0}, f.Thread)
			}
		})
	}
}

// A checked kernel reports a texel coordinate past a storage texture's
// extent, naming the argument and the coordinate, for reads and writes.
func TestCheckedTexel(t *testing.T) {
	d := openDevice(t)
	var readPos, writePos string
	f, err := dsl.Kernel2D(8, 8, func(k *dsl.K, src, dst dsl.Tex2D, dx dsl.U32, dy dsl.U32) {
		id := k.DispatchID()
		readPos = next()
		v := src.Read(dsl.V2(id.X().Add(dx), id.Y()))
		writePos = next()
		dst.Write(dsl.V2(id.X(), id.Y().Add(dy)), v)
	}, "src", "dst", "dx", "dy")
	require.NoError(t, err)
	k, err := device.Compile(d, f, device.WithChecked())
	require.NoError(t, err)
	defer k.Close()
	src, err := device.NewImage[[4]float32](d, device.RGBA32Float, 8, 4, 1)
	require.NoError(t, err)
	defer src.Close()
	dst, err := device.NewImage[[4]float32](d, device.RGBA32Float, 8, 4, 1)
	require.NoError(t, err)
	defer dst.Close()
	require.NoError(t, syncErr(t, d, k.Dispatch([3]uint32{8, 4}, src, dst, uint32(0), uint32(0))))

	err = syncErr(t, d, k.Dispatch([3]uint32{8, 4}, src, dst, uint32(1), uint32(0)))
	f1 := faultOf(t, err, device.FaultTextureCoord, readPos, "argument 0 (src), coordinate x: texel coordinate 8 out of range [0, 8)")
	require.Equal(t, uint32(7), f1.Thread[0])

	err = syncErr(t, d, k.Dispatch([3]uint32{8, 4}, src, dst, uint32(0), uint32(2)))
	f2 := faultOf(t, err, device.FaultTextureCoord, writePos, "argument 1 (dst), coordinate y: texel coordinate ")
	require.Equal(t, uint64(4), f2.Len)
	require.GreaterOrEqual(t, f2.Index, uint64(4))
}

// With more faulting threads than records the print buffer holds, a
// checked kernel reports the faults that fit (Count) and a notice of the
// rest as dropped, on Vulkan; the cpu backend stops at the first.
func TestCheckedFaultsFillThePrintBuffer(t *testing.T) {
	f, err := dsl.Kernel1D(64, func(k *dsl.K, src, dst dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		dst.Write(i, src.Read(i.Add(dsl.U(1000))))
	}, "src", "dst")
	require.NoError(t, err)
	const records, threads = 20, 256
	d, log := openPrinting(t, device.WithCheckedKernels(), device.WithPrintCapacity(4*(4+9*records)))
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	src, err := device.NewBuffer[uint32](d, threads)
	require.NoError(t, err)
	defer src.Close()
	dst, err := device.NewBuffer[uint32](d, threads)
	require.NoError(t, err)
	defer dst.Close()
	err = syncErr(t, d, k.Dispatch([3]uint32{threads}, src, dst))
	kf := faultOf(t, err, device.FaultBufferIndex, "", "out of range [0, 256)")
	if d.Backend() != "vulkan" {
		return
	}
	require.Equal(t, records, kf.Count, "the records that fit")
	var dropped uint64
	for _, p := range log.take() {
		dropped += p.Dropped
	}
	require.Equal(t, uint64(threads-records), dropped, "the records that did not")
}

// A checked kernel reports an index past a local array and a shared array
// as the cpu backend does: the kind, the place named the same way, the
// index, the length, the thread and the statement; in range, the values
// are right.
func TestCheckedArrayIndex(t *testing.T) {
	var arrPos, shPos string
	arr, err := dsl.Kernel1D(8, func(k *dsl.K, idx, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		a := dsl.NewArray[dsl.U32](k, 4)
		dsl.Range(k, dsl.U(0), dsl.U(4), func(j dsl.U32) { a.Set(j, j.Mul(dsl.U(10))) })
		arrPos = next()
		out.Write(i, a.At(idx.Read(i)))
	}, "idx", "out")
	require.NoError(t, err)
	sh, err := dsl.Kernel1D(8, func(k *dsl.K, idx, out dsl.Buf[dsl.U32]) {
		s := dsl.NewShared[dsl.U32](k, 8)
		tid := k.ThreadID().X()
		s.Write(tid, tid)
		k.Barrier()
		shPos = next()
		out.Write(tid, s.Read(idx.Read(tid)))
	}, "idx", "out")
	require.NoError(t, err)

	faults := func(backend string) []*device.KernelFault {
		d, err := device.Open(context.Background(), backend)
		testenv.Need(t, backend+" device", err)
		defer d.Close()
		var out []*device.KernelFault
		for _, c := range []struct {
			f    *ir.Function
			want []uint32 // in range
		}{{arr, []uint32{30, 20, 10, 0, 0, 10, 20, 30}}, {sh, []uint32{3, 2, 1, 0, 0, 1, 2, 3}}} {
			k, err := device.Compile(d, c.f, device.WithChecked())
			require.NoError(t, err)
			idx, err := device.NewBuffer[uint32](d, 8)
			require.NoError(t, err)
			res, err := device.NewBuffer[uint32](d, 8)
			require.NoError(t, err)
			ids := []uint32{3, 2, 1, 0, 0, 1, 2, 3}
			run(t, d, idx.Upload(ids))
			require.NoError(t, syncErr(t, d, k.Dispatch([3]uint32{8}, idx, res)), backend)
			got := make([]uint32, 8)
			run(t, d, res.Download(got))
			require.Equal(t, c.want, got, backend)
			ids[5] = 9
			run(t, d, idx.Upload(ids))
			err = syncErr(t, d, k.Dispatch([3]uint32{8}, idx, res))
			var kf *device.KernelFault
			require.ErrorAs(t, err, &kf, "%s, kernel %d", backend, len(out))
			out = append(out, kf)
			require.NoError(t, k.Close())
			require.NoError(t, idx.Close())
			require.NoError(t, res.Close())
		}
		return out
	}
	cpu, vk := faults("cpu"), faults("vulkan")
	for i, want := range []struct {
		kind device.FaultKind
		len  uint64
		pos  string
	}{{device.FaultArrayIndex, 4, arrPos}, {device.FaultSharedIndex, 8, shPos}} {
		for _, f := range []*device.KernelFault{cpu[i], vk[i]} {
			require.Equal(t, want.kind, f.Kind, "%v", f)
			require.Equal(t, uint64(9), f.Index, "%v", f)
			require.Equal(t, want.len, f.Len, "%v", f)
			require.Equal(t, [3]uint32{5, 0, 0}, f.Thread, "%v", f)
			require.True(t, strings.HasSuffix(f.Pos, "/"+want.pos), "%v at %q, want %s", f, f.Pos, want.pos)
			require.NotEmpty(t, f.What, "%v", f)
		}
		require.Equal(t, cpu[i].What, vk[i].What, "the place is named the same way on both backends")
	}
}

// A checked kernel reports a bindless slot past the array's slots or one
// holding nothing (FaultBindlessSlot, naming the argument, the slot and the
// slots there are) when it reads a buffer or a texture through it, on every
// backend and sampling path; unchecked, such a read gives zero.
func TestCheckedBindlessSlot(t *testing.T) {
	var bufPos, texPos string
	buf, err := dsl.Kernel1D(8, func(k *dsl.K, arr dsl.BindlessArray, slots dsl.Buf[dsl.U32], out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		bufPos = next()
		out.Write(i, dsl.ReadBuffer[dsl.F32](arr, slots.Read(i), dsl.U(0)))
	}, "arr", "slots", "out")
	require.NoError(t, err)
	tex, err := dsl.Kernel1D(8, func(k *dsl.K, arr dsl.BindlessArray, slots dsl.Buf[dsl.U32], out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		texPos = next()
		out.Write(i, arr.Texture2D(slots.Read(i)).Read(dsl.V2(dsl.U(0), dsl.U(0))).X())
	}, "arr", "slots", "out")
	require.NoError(t, err)
	check := func(t *testing.T, d *device.Device) {
		arr, err := d.NewBindlessArray(4)
		require.NoError(t, err)
		defer arr.Close()
		b := upload(t, d, []float32{7})
		img := rgbaImage(t, d, 1, 1, [][4]float32{{9, 0, 0, 1}})
		require.NoError(t, arr.EmplaceBuffer(0, b))
		require.NoError(t, arr.EmplaceTexture(1, img, device.Sampler{Filter: device.FilterPoint}))
		run(t, d, arr.Update())
		for _, c := range []struct {
			f    *ir.Function
			good uint32
			want float32
			pos  string
		}{{buf, 0, 7, bufPos}, {tex, 1, 9, texPos}} {
			for _, checked := range []bool{false, true} {
				var opts []device.CompileOption
				if checked {
					opts = append(opts, device.WithChecked())
				}
				k, err := device.Compile(d, c.f, opts...)
				require.NoError(t, err)
				out := upload(t, d, make([]float32, 8))
				for _, bad := range []struct {
					slot uint32
					text string
				}{{2, "argument 0 (arr): slot 2 is empty"}, {9, "argument 0 (arr): slot 9 out of range [0, 4)"}} {
					ids := []uint32{c.good, c.good, c.good, c.good, c.good, bad.slot, c.good, c.good}
					slots := upload(t, d, ids)
					err := syncErr(t, d, k.Dispatch([3]uint32{8}, arr, slots, out))
					if !checked {
						require.NoError(t, err)
						require.Equal(t, []float32{c.want, c.want, c.want, c.want, c.want, 0, c.want, c.want}, download(t, d, out))
						continue
					}
					f := faultOf(t, err, device.FaultBindlessSlot, c.pos, bad.text)
					require.Equal(t, device.KernelFault{Kernel: f.Kernel, Kind: device.FaultBindlessSlot, What: "argument 0 (arr)", Index: uint64(bad.slot), Len: 4,
						Thread: [3]uint32{5, 0, 0}, Pos: f.Pos, Count: 1}, *f)
				}
				require.NoError(t, k.Close())
			}
		}
	}
	t.Run("cpu", func(t *testing.T) {
		d, err := device.Open(context.Background(), "cpu")
		require.NoError(t, err)
		defer d.Close()
		check(t, d)
	})
	samplingPaths(t, openDevice, check)
}

// A checked kernel reports an index past the buffer in a bindless slot, read
// or written (FaultBufferIndex, naming the array argument, the index and the
// slot's elements), on every backend, as it does for a buffer argument and
// as kernel.Run's slice does; unchecked, the read gives zero and the write
// is dropped. Before, the checked mode checked only the slot.
func TestCheckedBindlessBufferIndex(t *testing.T) {
	var readPos, writePos string
	read, err := dsl.Kernel1D(8, func(k *dsl.K, arr dsl.BindlessArray, idx dsl.Buf[dsl.U32], out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		readPos = next()
		out.Write(i, dsl.ReadBuffer[dsl.F32](arr, dsl.U(1), idx.Read(i)))
	}, "arr", "idx", "out")
	require.NoError(t, err)
	write, err := dsl.Kernel1D(8, func(k *dsl.K, arr dsl.BindlessArray, idx dsl.Buf[dsl.U32], out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		writePos = next()
		dsl.WriteBuffer(arr, dsl.U(1), idx.Read(i), dsl.Convert[float32](i))
	}, "arr", "idx", "out")
	require.NoError(t, err)
	check := func(t *testing.T, d *device.Device) {
		arr, err := d.NewBindlessArray(2)
		require.NoError(t, err)
		defer arr.Close()
		// The slot holds a view of 6 elements of a 16-element buffer.
		b := upload(t, d, []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
		require.NoError(t, arr.EmplaceBuffer(1, b.View(4, 6)))
		run(t, d, arr.Update())
		ids := []uint32{0, 1, 2, 3, 4, 6, 5, 0}
		idx := upload(t, d, ids)
		for _, c := range []struct {
			f   *ir.Function
			pos string
		}{{read, readPos}, {write, writePos}} {
			for _, checked := range []bool{false, true} {
				var opts []device.CompileOption
				if checked {
					opts = append(opts, device.WithChecked())
				}
				k, err := device.Compile(d, c.f, opts...)
				require.NoError(t, err)
				out := upload(t, d, make([]float32, 8))
				err = syncErr(t, d, k.Dispatch([3]uint32{8}, arr, idx, out))
				if checked {
					f := faultOf(t, err, device.FaultBufferIndex, c.pos, "argument 0 (arr), the buffer in its slot: index 6 out of range [0, 6)")
					require.Equal(t, device.KernelFault{Kernel: f.Kernel, Kind: device.FaultBufferIndex, What: "argument 0 (arr), the buffer in its slot",
						Index: 6, Len: 6, Thread: [3]uint32{5, 0, 0}, Pos: f.Pos, Count: 1}, *f)
				} else {
					require.NoError(t, err)
				}
				if c.f == read && !checked {
					require.Equal(t, []float32{4, 5, 6, 7, 8, 0, 9, 4}, download(t, d, out))
				}
				if c.f == write && !checked {
					// Thread 7 wrote index 0 after thread 0 did, or before: either.
					got := download(t, d, b)
					require.Equal(t, []float32{0, 1, 2, 3}, got[:4])
					require.Equal(t, []float32{1, 2, 3, 4, 6}, got[5:10])
					require.Contains(t, []float32{0, 7}, got[4])
					require.Equal(t, []float32{10, 11, 12, 13, 14, 15}, got[10:], "the write past the slot's view was dropped")
				}
				require.NoError(t, k.Close())
			}
		}
	}
	t.Run("cpu", func(t *testing.T) {
		d, err := device.Open(context.Background(), "cpu")
		require.NoError(t, err)
		defer d.Close()
		check(t, d)
	})
	samplingPaths(t, openDevice, check)
}

// A thread's loops past a driver's bound on iterations (lavapipe before
// Mesa 25 ends them silently at 65535, all loops together) are a
// FaultLoopLimit in the checked mode where the device has the loop-limit
// workaround; elsewhere they run to the end. Loops under the bound never
// fault.
func TestLoopLimitFault(t *testing.T) {
	d := openDevice(t)
	f, err := dsl.Kernel1D(4, func(k *dsl.K, n dsl.U32, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		dsl.Range(k, dsl.U(0), n, func(j dsl.U32) { out.Write(i, out.Read(i).Add(dsl.U(1))) })
		dsl.Range(k, dsl.U(0), n, func(j dsl.U32) { out.Write(i, out.Read(i).Add(dsl.U(1))) })
	}, "n", "out")
	require.NoError(t, err)
	k, err := device.Compile(d, f, device.WithChecked())
	require.NoError(t, err)
	defer k.Close()
	limited := false
	for _, w := range d.Capabilities().Workarounds {
		limited = limited || w == "loop-limit"
	}
	// Each loop costs the driver a pass more than its iterations (the one
	// that leaves it): 30000 twice is 60002 passes, under the bound.
	for _, n := range []uint32{1000, 30000, 40000, 100000} {
		out, err := device.NewBuffer[uint32](d, 4)
		require.NoError(t, err)
		got := make([]uint32, 4)
		err = syncErr(t, d, k.Dispatch([3]uint32{4}, n, out), out.Download(got))
		require.NoError(t, out.Close())
		if !limited || n == 1000 || n == 30000 {
			require.NoError(t, err, "%d iterations twice", n)
			require.Equal(t, []uint32{2 * n, 2 * n, 2 * n, 2 * n}, got, "%d iterations twice", n)
			continue
		}
		f := faultOf(t, err, device.FaultLoopLimit, "", "65535 iterations")
		require.Equal(t, uint64(65535), f.Len)
		require.Equal(t, 4, f.Count, "every thread faults")
		for _, g := range got {
			require.Less(t, g, 2*n, "%d iterations twice: the driver ended the loops early", n)
		}
	}
}
