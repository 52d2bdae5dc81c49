package cpu_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/cpu"
	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/lucent-gpu/lucent/kernel"
)

// openRace opens a cpu device with the race detector.
func openRace(t *testing.T) *device.Device {
	t.Helper()
	d, err := device.Open(context.Background(), "cpu", device.WithRaceDetector())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d
}

// racyKernels loads testdata/gokernel/racy by name.
func racyKernels(t *testing.T) map[string]*ir.Function {
	t.Helper()
	testenv.NeedGoCommand(t)
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/racy")
	require.Empty(t, errs)
	m := map[string]*ir.Function{}
	for _, k := range ks {
		m[k.Name] = k.Func
	}
	return m
}

// raceOf runs f over n elements of in into out on d and returns its race
// report (nil: none) and out.
func raceOf(t *testing.T, d *device.Device, f *ir.Function, in []float32, nout int) (*device.KernelRace, []float32) {
	t.Helper()
	k, err := device.Compile(d, f)
	require.NoError(t, err)
	defer k.Close()
	bin, bout := upload(t, d, in), upload(t, d, make([]float32, nout))
	err = runErr(t, d, k.Dispatch([3]uint32{uint32(len(in))}, bin, bout))
	if err == nil {
		return nil, download(t, d, bout)
	}
	var r *device.KernelRace
	require.True(t, errors.As(err, &r), "%v is not a race report", err)
	require.ErrorIs(t, err, device.ErrInvalidArgument)
	return r, download(t, d, bout)
}

const racySource = "../../testdata/gokernel/racy/racy.go"

func thisFile() string {
	_, file, _, _ := runtime.Caller(0)
	return file
}

// lineOf is the line of the nth occurrence of text in file.
func lineOf(t *testing.T, file, text string, nth int) int {
	t.Helper()
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, text) {
			if nth--; nth == 0 {
				return i + 1
			}
		}
	}
	t.Fatalf("%s: no line %d with %q", file, nth, text)
	return 0
}

func iota32(n int) []float32 {
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i + 1)
	}
	return in
}

// TestRaceMissingBarrier: the motivating bug, a shared tile of 128 threads
// read before the barrier that should order it after its writes, is found
// by name, variable, element and threads, in a Go-subset kernel and in a
// DSL one; with the barrier, the detector is silent and the output right.
func TestRaceMissingBarrier(t *testing.T) {
	ks := racyKernels(t)
	build := func(barrier bool) *ir.Function {
		f, err := dsl.Kernel1D(128, func(k *dsl.K, in, out dsl.Buf[dsl.F32]) {
			tile := dsl.NewShared[dsl.F32](k, 128)
			tid, i := k.ThreadID().X(), k.DispatchID().X()
			tile.Write(tid, in.Read(i))
			if barrier {
				k.Barrier()
			}
			out.Write(i, tile.Read(dsl.U(127).Sub(tid)))
		}, "in", "out")
		require.NoError(t, err)
		f.Name = "reverse"
		return f
	}
	d := openRace(t)
	in := iota32(256)
	for _, c := range []struct {
		name    string
		bad, ok *ir.Function
		what    string // the shared variable, as the report names it
		// the positions of the read (out[i] = tile[127-t]) and the write
		// (tile[t] = in[i])
		read, write string
	}{
		{"gokernel", ks["ReverseNoBarrier"], ks["Reverse"],
			fmt.Sprintf(`^shared variable tile \(.*racy\.go:%d:2\)$`, lineOf(t, racySource, "tile := kernel.Shared", 2)),
			fmt.Sprintf("racy/racy.go:%d:2", lineOf(t, racySource, "out[i] = tile[Block-1-t]", 2)),
			fmt.Sprintf("racy/racy.go:%d:2", lineOf(t, racySource, "tile[t] = in[i]", 2))},
		{"dsl", build(false), build(true), `^shared variable `,
			fmt.Sprintf("race_test.go:%d", lineOf(t, thisFile(), "out.Write(i, tile.Read(", 1)),
			fmt.Sprintf("race_test.go:%d", lineOf(t, thisFile(), "tile.Write(tid, in.Read(i))", 1))},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _ := raceOf(t, d, c.bad, in[:128], 128) // one block: the report is deterministic
			require.NotNil(t, r, "the missing barrier")
			require.Equal(t, c.bad.Name, r.Kernel)
			require.Regexp(t, c.what, r.What)
			// The threads of a block run in order: thread 63 reads element 64
			// (127-63), then thread 64 writes it.
			require.Equal(t, uint64(64), r.Index)
			require.Equal(t, device.RaceAccess{Thread: [3]uint32{63, 0, 0}, Pos: r.First.Pos}, r.First)
			require.Equal(t, device.RaceAccess{Thread: [3]uint32{64, 0, 0}, Write: true, Pos: r.Second.Pos}, r.Second)
			require.True(t, strings.HasSuffix(r.First.Pos, c.read), "the read at %s", r.First.Pos)
			require.True(t, strings.HasSuffix(r.Second.Pos, c.write), "the write at %s", r.Second.Pos)
			require.Equal(t, 128, r.Count, "threads 64-127 each write an element read before, and read one written before")
			require.ErrorContains(t, r, "kernel "+c.bad.Name+": data race on shared variable")
			require.ErrorContains(t, r, "element 64: thread [63 0 0] read it at "+r.First.Pos)
			require.ErrorContains(t, r, "then thread [64 0 0] wrote it at "+r.Second.Pos)

			r, out := raceOf(t, d, c.ok, in, len(in))
			require.Nil(t, r, "with the barrier")
			for i := range out {
				require.Equal(t, in[i/128*128+127-i%128], out[i], "element %d", i)
			}
		})
	}
}

// TestRaceBuffer: two threads writing one buffer element race, within a
// block and across blocks; the report names the argument and the element.
func TestRaceBuffer(t *testing.T) {
	d := openRace(t)
	pairs := racyKernels(t)["Pairs"]
	r, _ := raceOf(t, d, pairs, iota32(64), 32)
	require.NotNil(t, r)
	require.Equal(t, "Pairs", r.Kernel)
	require.Contains(t, r.What, "argument 1 (out)")
	require.Equal(t, uint64(0), r.Index)
	require.Equal(t, device.RaceAccess{Thread: [3]uint32{0, 0, 0}, Write: true, Pos: r.First.Pos}, r.First)
	require.Equal(t, device.RaceAccess{Thread: [3]uint32{1, 0, 0}, Write: true, Pos: r.First.Pos}, r.Second)
	require.True(t, strings.HasSuffix(r.First.Pos, fmt.Sprintf("racy/racy.go:%d:2", lineOf(t, racySource, "out[i/2] = in[i]", 1))), r.First.Pos)
	require.Equal(t, 32, r.Count, "one pair per element")

	// Across blocks: thread 63 of block 0 and thread 0 of block 1 both
	// write out[0]; no barrier could order them.
	cross, err := dsl.Kernel1D(64, func(k *dsl.K, in, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		k.If(i.Eq(dsl.U(63)).Or(i.Eq(dsl.U(64))), func() { out.Write(dsl.U(0), in.Read(i)) })
	}, "in", "out")
	require.NoError(t, err)
	cross.Name = "cross"
	r, _ = raceOf(t, d, cross, iota32(128), 1)
	require.NotNil(t, r)
	require.Equal(t, 1, r.Count)
	require.ElementsMatch(t, [][3]uint32{{63, 0, 0}, {64, 0, 0}}, [][3]uint32{r.First.Thread, r.Second.Thread})
}

// TestRaceAtomics: atomic updates of one element do not race with each
// other, in shared memory or in a buffer; an atomic and a plain access of
// one element do.
func TestRaceAtomics(t *testing.T) {
	d := openRace(t)
	k, err := device.Compile(d, racyKernels(t)["Histogram"])
	require.NoError(t, err)
	defer k.Close()
	in := make([]uint32, 256)
	for i := range in {
		in[i] = uint32(i * 7)
	}
	bin, bins := upload(t, d, in), upload(t, d, make([]uint32, 4))
	require.NoError(t, runErr(t, d, k.Dispatch([3]uint32{256}, bin, bins)))
	require.Equal(t, []uint32{64, 64, 64, 64}, download(t, d, bins))

	mixed, err := dsl.Kernel1D(64, func(k *dsl.K, out dsl.Buf[dsl.U32]) {
		i := k.DispatchID().X()
		k.If(i.Eq(dsl.U(5)), func() { out.Write(dsl.U(0), i) }).Else(func() { out.AtomicAdd(dsl.U(0), dsl.U(1)) })
	}, "out")
	require.NoError(t, err)
	mixed.Name = "mixed"
	km, err := device.Compile(d, mixed)
	require.NoError(t, err)
	defer km.Close()
	bout := upload(t, d, make([]uint32, 1))
	err = runErr(t, d, km.Dispatch([3]uint32{64}, bout))
	var r *device.KernelRace
	require.True(t, errors.As(err, &r), "%v", err)
	require.Equal(t, device.RaceAccess{Thread: [3]uint32{4, 0, 0}, Write: true, Atomic: true, Pos: r.First.Pos}, r.First)
	require.Equal(t, device.RaceAccess{Thread: [3]uint32{5, 0, 0}, Write: true, Pos: r.Second.Pos}, r.Second)
	require.ErrorContains(t, r, "thread [4 0 0] atomically updated it at "+r.First.Pos+", then thread [5 0 0] wrote it at "+r.Second.Pos)
}

// TestRaceOff: without the detector a racy kernel runs as before, with no
// report.
func TestRaceOff(t *testing.T) {
	d := openPlain(t)
	k, err := device.Compile(d, racyKernels(t)["Pairs"])
	require.NoError(t, err)
	defer k.Close()
	bin, bout := upload(t, d, iota32(64)), upload(t, d, make([]float32, 32))
	require.NoError(t, runErr(t, d, k.Dispatch([3]uint32{64}, bin, bout)))
}

// BenchmarkRaceDetector runs Reverse (a shared tile and a barrier) and
// scale (one load and one store per thread) over 2^16 elements, with the
// race detector off, on, and (scale) off on the per-thread engine, which
// the detector runs every kernel on.
func BenchmarkRaceDetector(b *testing.B) {
	testenv.NeedGoCommand(b)
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel/racy")
	require.Empty(b, errs)
	copyK, err := dsl.Kernel1D(128, func(k *dsl.K, in, out dsl.Buf[dsl.F32]) {
		i := k.DispatchID().X()
		out.Write(i, in.Read(i).Mul(dsl.F(2)))
	}, "in", "out")
	require.NoError(b, err)
	var reverse *ir.Function
	for _, k := range ks {
		if k.Name == "Reverse" {
			reverse = k.Func
		}
	}
	const n = 1 << 16
	for _, kc := range []struct {
		name string
		f    *ir.Function
	}{{"reverse", reverse}, {"scale", copyK}} {
		for _, mode := range []string{"off", "perthread", "race"} {
			if mode == "perthread" && kc.name == "reverse" {
				continue // a barrier kernel runs on it anyway
			}
			opts := []device.Option{}
			if mode == "race" {
				opts = append(opts, device.WithRaceDetector())
			}
			b.Run(kc.name+"/"+mode, func(b *testing.B) {
				if mode == "perthread" {
					defer cpu.SetLaneEngine(cpu.SetLaneEngine(false))
				}
				d, err := device.Open(context.Background(), "cpu", opts...)
				require.NoError(b, err)
				defer d.Close()
				k, err := device.Compile(d, kc.f)
				require.NoError(b, err)
				defer k.Close()
				in, err := device.NewBuffer[float32](d, n)
				require.NoError(b, err)
				defer in.Close()
				out, err := device.NewBuffer[float32](d, n)
				require.NoError(b, err)
				defer out.Close()
				s, err := d.NewStream(device.StreamCompute)
				require.NoError(b, err)
				defer s.Close()
				for b.Loop() {
					require.NoError(b, s.Submit(k.Dispatch([3]uint32{n}, in, out)))
					require.NoError(b, s.Synchronize(context.Background()))
				}
			})
		}
	}
}

// TestRaceIgnoresHost: a shader carrying its compiled Go function
// (ShaderDesc.Host) runs its IR in race mode, where the detector sees the
// accesses; without race mode the Go function runs.
func TestRaceIgnoresHost(t *testing.T) {
	pairs := racyKernels(t)["Pairs"]
	var calls atomic.Int32
	host := hostFunc(kernel.Uint3{X: 64, Y: 1, Z: 1}, &calls, func(args [][]byte) (func(), error) {
		in, out := must(kernel.HostSlice[float32](args[0])), must(kernel.HostSlice[float32](args[1]))
		return func() {
			// Pairs' even threads: a -race build of this test would report
			// the odd ones' race.
			if i := kernel.DispatchID().X; i%2 == 0 {
				out[i/2] = in[i]
			}
		}, nil
	})
	for _, race := range []bool{false, true} {
		d := openPlain(t)
		if race {
			d = openRace(t)
		}
		k, err := device.Compile(d, pairs, device.WithHost(host))
		require.NoError(t, err)
		bin, bout := upload(t, d, iota32(64)), upload(t, d, make([]float32, 32))
		err = runErr(t, d, k.Dispatch([3]uint32{64}, bin, bout))
		require.NoError(t, k.Close())
		var r *device.KernelRace
		if race {
			require.True(t, errors.As(err, &r), "%v", err)
			require.Equal(t, int32(1), calls.Load(), "the Go function did not run again")
		} else {
			require.NoError(t, err)
			require.Equal(t, int32(1), calls.Load())
		}
	}
}

// TestRaceFromEnv: LUCENT_RACE=1 switches the detector on for devices
// opened without the option.
func TestRaceFromEnv(t *testing.T) {
	t.Setenv(device.EnvRace, "1")
	r, _ := raceOf(t, openPlain(t), racyKernels(t)["Pairs"], iota32(64), 32)
	require.NotNil(t, r)
	require.Equal(t, "Pairs", r.Kernel)
}

// TestRaceThroughReference: a shared element written through a helper's
// pointer parameter is watched as the variable itself.
func TestRaceThroughReference(t *testing.T) {
	r, _ := raceOf(t, openRace(t), racyKernels(t)["ViaHelper"], iota32(64), 64)
	require.NotNil(t, r)
	require.Regexp(t, `^shared variable tile `, r.What)
	require.Equal(t, uint64(32), r.Index)
	require.Equal(t, [3]uint32{31, 0, 0}, r.First.Thread)
	require.Equal(t, [3]uint32{32, 0, 0}, r.Second.Thread)
	require.True(t, r.Second.Write)
	require.True(t, strings.HasSuffix(r.Second.Pos, fmt.Sprintf("racy/racy.go:%d:2", lineOf(t, racySource, "store(&tile[t], in[i])", 1))), r.Second.Pos)
}
