package vk

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

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
	res  map[string]float64
	err  error
	out  string
}

func cFigures(b *testing.B) map[string]float64 {
	cBench.once.Do(func() {
		cc, err := exec.LookPath("cc")
		if err != nil {
			cBench.err = err
			return
		}
		bin := filepath.Join(b.TempDir(), "bench")
		out, err := exec.Command(cc, "-O2", "-o", bin, filepath.Join("..", "testdata", "vk", "bench.c"), "-lvulkan").CombinedOutput()
		if err != nil {
			cBench.err, cBench.out = err, string(out)
			return
		}
		out, err = exec.Command(bin, "2000000").CombinedOutput()
		if err != nil {
			cBench.err, cBench.out = err, string(out)
			return
		}
		cBench.res = map[string]float64{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 2 {
				v, _ := strconv.ParseFloat(f[1], 64)
				cBench.res[f[0]] = v
			}
		}
	})
	testenv.Need(b, "the C reference benchmark (cc, libvulkan)", cBench.err)
	require.NotEmpty(b, cBench.res, cBench.out)
	return cBench.res
}

func report(b *testing.B, c float64) {
	goNs := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(c, "C-ns/op")
	b.ReportMetric(goNs/c, "x-C")
}

// BenchmarkCmdDispatch records vkCmdDispatch into a command buffer, 4096 per
// begin/end (which are not timed, as in C).
func BenchmarkCmdDispatch(b *testing.B) {
	td := newTestDevice(b, false)
	c := cFigures(b)["CmdDispatch"]
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
			dt.CmdDispatch(cb, 1, 1, 1)
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
	td := newTestDevice(b, false)
	c := cFigures(b)["GetDeviceQueue"]
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
