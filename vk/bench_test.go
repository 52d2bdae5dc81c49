package vk

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ebitengine/purego"
	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/stretchr/testify/require"
)

// The call-overhead benchmarks time the same calls through these bindings
// and from C (testdata/vk/bench.c, built with cc -O2), in one run. Each Go
// benchmark reports the C figure as C-ns/op and the ratio as x-C.
//
//	go test -run '^$' -bench . -benchtime 2000000x ./vk

var cBench struct {
	once sync.Once
	bin  string
	err  error
}

// cFigures runs the C reference (built once) and returns its ns/op by name.
// It runs again for every timed benchmark run, so both sides see the same
// machine state.
func cFigures(b *testing.B) map[string]float64 {
	cBench.once.Do(func() {
		cc, err := exec.LookPath("cc")
		if err != nil {
			cBench.err = err
			return
		}
		dir, err := os.MkdirTemp("", "vkbench")
		if err != nil {
			cBench.err = err
			return
		}
		cBench.bin = filepath.Join(dir, "bench")
		out, err := exec.Command(cc, "-O2", "-o", cBench.bin, filepath.Join("..", "testdata", "vk", "bench.c"), "-lvulkan").CombinedOutput()
		if err != nil {
			cBench.err = fmt.Errorf("%w: %s", err, out)
		}
	})
	testenv.Need(b, "the C reference benchmark (cc, libvulkan)", cBench.err)
	iters := b.N
	if iters < 100000 {
		iters = 100000
	}
	out, err := exec.Command(cBench.bin, strconv.Itoa(iters)).CombinedOutput()
	require.NoError(b, err, "%s", out)
	res := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 {
			v, err := strconv.ParseFloat(f[1], 64)
			require.NoError(b, err)
			res[f[0]] = v
		}
	}
	require.Len(b, res, 2, "%s", out)
	return res
}

func report(b *testing.B, c float64) {
	goNs := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(c, "C-ns/op")
	b.ReportMetric(goNs/c, "x-C")
}

// BenchmarkCmdDispatch records vkCmdDispatch into a command buffer, 4096 per
// begin/end (which are not timed, as in C).
func BenchmarkCmdDispatch(b *testing.B) {
	c := cFigures(b)["CmdDispatch"]
	td := newTestDevice(b, false)
	benchDispatch(b, td, c, func(cb CommandBuffer) { td.dt.CmdDispatch(cb, 1, 1, 1) })
}

// BenchmarkCmdDispatchSyscallN is the same through purego.SyscallN, the path
// the bindings' own trampoline replaces on amd64.
func BenchmarkCmdDispatchSyscallN(b *testing.B) {
	c := cFigures(b)["CmdDispatch"]
	td := newTestDevice(b, false)
	fn := td.dt.fn[cmdCmdDispatch-deviceBase]
	benchDispatch(b, td, c, func(cb CommandBuffer) { purego.SyscallN(fn, uintptr(cb), 1, 1, 1) })
}

// BenchmarkCmdDispatchBatch queues the dispatches on a CommandBatch and
// flushes it once per 4096 (the flush is timed): one Go→C transition per
// batch instead of per call.
func BenchmarkCmdDispatchBatch(b *testing.B) {
	c := cFigures(b)["CmdDispatch"]
	td := newTestDevice(b, false)
	batch := td.dt.NewCommandBatch()
	n := 0
	benchDispatch(b, td, c, func(cb CommandBuffer) {
		batch.CmdDispatch(cb, 1, 1, 1)
		if n++; n%4096 == 0 || n == b.N {
			batch.Flush()
		}
	})
}

func benchDispatch(b *testing.B, td *testDevice, c float64, dispatch func(CommandBuffer)) {
	dt, dev := td.dt, td.dev
	var pool CommandPool
	require.NoError(b, dt.CreateCommandPool(dev, &CommandPoolCreateInfo{
		SType:            STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		Flags:            COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		QueueFamilyIndex: td.family,
	}, nil, &pool).Err())
	defer dt.DestroyCommandPool(dev, pool, nil)
	var cb CommandBuffer
	require.NoError(b, dt.AllocateCommandBuffers(dev, &CommandBufferAllocateInfo{
		SType:              STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		CommandPool:        pool,
		Level:              COMMAND_BUFFER_LEVEL_PRIMARY,
		CommandBufferCount: 1,
	}, &cb).Err())
	begin := &CommandBufferBeginInfo{SType: STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO}
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		b.StopTimer()
		require.NoError(b, dt.BeginCommandBuffer(cb, begin).Err())
		b.StartTimer()
		for i := 0; i < 4096 && done < b.N; i, done = i+1, done+1 {
			dispatch(cb)
		}
		b.StopTimer()
		require.NoError(b, dt.EndCommandBuffer(cb).Err())
		require.NoError(b, dt.ResetCommandBuffer(cb, 0).Err())
		b.StartTimer()
	}
	b.StopTimer()
	report(b, c)
}

// BenchmarkGetDeviceQueue calls vkGetDeviceQueue, a call that does almost
// nothing in the driver: the figure is the bindings' own overhead.
func BenchmarkGetDeviceQueue(b *testing.B) {
	c := cFigures(b)["GetDeviceQueue"]
	td := newTestDevice(b, false)
	var q Queue
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		td.dt.GetDeviceQueue(td.dev, td.family, 0, &q)
	}
	b.StopTimer()
	require.Equal(b, td.queue, q)
	report(b, c)
}
