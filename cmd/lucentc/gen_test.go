package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/internal/testenv"
)

// kernSource is the kernel package of the generated-launcher tests: a 1-D
// kernel with a uniform and two buffers, and a 2-D one over a buffer of a
// user struct.
const kernSource = `// Package kern holds the kernels of the lucentc end-to-end test.
package kern

` + "//go:generate" + ` lucentc -go .

import "github.com/lucent-gpu/lucent/kernel"

// Pair is one element of Affine2D's input.
type Pair struct{ A, B float32 }

// Saxpy computes y = a*x + y.
//
//lucent:kernel block=64
func Saxpy(a float32, x, y []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(y)) {
		y[i] = a*x[i] + y[i]
	}
}

// Affine2D writes in.A*x + in.B*y for each cell of a w×h grid.
//
//lucent:kernel block=8,8
func Affine2D(w, h uint32, in []Pair, out []float32) {
	id := kernel.DispatchID()
	if id.X >= w || id.Y >= h {
		return
	}
	p := in[id.Y*w+id.X]
	out[id.Y*w+id.X] = p.A*float32(id.X) + p.B*float32(id.Y)
}

// Reverse reverses each block of 128 elements of buf, through shared memory.
//
//lucent:kernel block=128
func Reverse(buf []uint32) {
	tile := kernel.Shared[[128]uint32]()
	t, i := kernel.ThreadID().X, kernel.DispatchID().X
	tile[t] = buf[i]
	kernel.Barrier()
	buf[i] = tile[127-t]
}

// Invert writes 1-c for each colour channel of src's texels to dst, keeping alpha.
//
//lucent:kernel block=8,8
func Invert(src, dst kernel.Texture2D[kernel.Float4]) {
	id := kernel.DispatchID()
	size := src.Size()
	if id.X >= size.X || id.Y >= size.Y {
		return
	}
	c := src.Read(id.X, id.Y)
	c.X, c.Y, c.Z = 1-c.X, 1-c.Y, 1-c.Z
	dst.Write(id.X, id.Y, c)
}
`

// programSource uses the launchers generated into the kernel package (kern)
// and into a separate package (launch), runs the same kernel on the CPU with
// kernel.Run, and checks every element against a plain-Go reference: first
// on the cpu backend (which runs the kernels as compiled Go where the
// launcher carries them), then on Vulkan.
const programSource = `package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	"example.com/e2e/kern"
	"example.com/e2e/launch"
	"github.com/lucent-gpu/lucent/device"
	_ "github.com/lucent-gpu/lucent/device/cpu"
	_ "github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/kernel"
	"github.com/lucent-gpu/lucent/shadercache"
)

// lockedWriter serialises writes to w.
type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func main() {
	ctx := context.Background()
	cpu, err := device.Open(ctx, "cpu", device.WithValidation())
	if err == nil {
		err = check(ctx, cpu)
	}
	if err == nil {
		err = hostFault(ctx, cpu)
	}
	if cerr := cpu.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Println("FAIL on cpu:", err)
		os.Exit(1)
	}
	fmt.Println("cpu ok")
	var mu sync.Mutex
	var validation []string
	// No shader cache: every codegen run counts as a miss. The log shows
	// the kernels whose embedded artefact is not used.
	var logs strings.Builder
	dev, err := device.Open(ctx, "vulkan", device.WithValidationLayer(true),
		device.WithShaderCache(shadercache.Disabled),
		device.WithLogger(slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			},
		}))),
		device.WithDebug(func(m device.DebugMessage) {
			if m.Severity == device.SeverityError {
				mu.Lock()
				validation = append(validation, m.ID+": "+m.Text)
				mu.Unlock()
			}
		}))
	if err != nil {
		fmt.Println("no device:", err)
		os.Exit(3)
	}
	err = check(ctx, dev)
	fmt.Printf("vulkan codegen runs: %d\n", dev.CacheStats().Shader.Misses)
	if cerr := dev.Close(); err == nil {
		err = cerr
	}
	mu.Lock()
	for _, l := range strings.SplitAfter(logs.String(), "\n") {
		if strings.Contains(l, "code generator version") {
			fmt.Print("stale: ", l)
		}
	}
	mu.Unlock()
	if err == nil && len(validation) > 0 {
		err = fmt.Errorf("validation errors: %v", validation)
	}
	if err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("ok")
}

func check(ctx context.Context, dev *device.Device) error {
	stream, err := dev.NewStream(device.StreamCompute)
	if err != nil {
		return err
	}
	defer stream.Close()
	submit := func(cmds ...device.Command) error {
		if err := stream.Submit(cmds...); err != nil {
			return err
		}
		return stream.Synchronize(ctx)
	}

	// Saxpy through the launcher generated into the kernel package.
	saxpy, err := kern.NewSaxpy(dev)
	if err != nil {
		return err
	}
	const n = 1000
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i), float32(3*i+1)
	}
	x, err := device.NewBuffer[float32](dev, n)
	if err != nil {
		return err
	}
	defer x.Close()
	y, err := device.NewBuffer[float32](dev, n)
	if err != nil {
		return err
	}
	defer y.Close()
	got := make([]float32, n)
	if err := submit(x.Upload(xs), y.Upload(ys), saxpy.Dispatch(n, 2.5, x, y), y.Download(got)); err != nil {
		return fmt.Errorf("saxpy: %w", err)
	}
	cpu := append([]float32(nil), ys...)
	if err := kernel.Run(ctx, kernel.Grid1(64, n), func() { kern.Saxpy(2.5, xs, cpu) }); err != nil {
		return fmt.Errorf("saxpy on the CPU: %w", err)
	}
	for i := range got {
		want := 2.5*xs[i] + ys[i]
		if got[i] != want || cpu[i] != want {
			return fmt.Errorf("saxpy[%d] = %v on the device, %v on the CPU, want %v", i, got[i], cpu[i], want)
		}
	}

	// The view form: only the first m elements change.
	const m = 300
	if err := submit(y.Upload(ys), saxpy.DispatchViews(n, -1, x.View(0, m).ReadOnly(), y.View(0, m)), y.Download(got)); err != nil {
		return fmt.Errorf("saxpy on views: %w", err)
	}
	for i := range got {
		want := ys[i]
		if i < m {
			want = ys[i] - xs[i]
		}
		if got[i] != want {
			return fmt.Errorf("saxpy on views [%d] = %v, want %v", i, got[i], want)
		}
	}

	// A nil buffer is an error naming the argument, not a crash.
	err = stream.Submit(saxpy.Dispatch(n, 1, nil, y))
	if err == nil {
		return fmt.Errorf("saxpy with a nil buffer: no error")
	}
	fmt.Println("nil buffer:", err)
	if err := saxpy.Close(); err != nil {
		return err
	}

	// Reverse has barriers: its launcher refuses a size that is not whole
	// blocks, as device.Kernel.Dispatch does, and runs in whole blocks, direct
	// and indirect.
	reverse, err := kern.NewReverse(dev)
	if err != nil {
		return err
	}
	defer reverse.Close()
	words := make([]uint32, 256)
	for i := range words {
		words[i] = uint32(i)
	}
	rb, err := device.NewBuffer[uint32](dev, 256)
	if err != nil {
		return err
	}
	defer rb.Close()
	err = stream.Submit(reverse.Dispatch(200, rb))
	if !errors.Is(err, device.ErrInvalidArgument) || !strings.Contains(err.Error(), "must be a multiple of its block [128 1 1]") {
		return fmt.Errorf("reverse over 200 threads: got %v, want the whole-block error", err)
	}
	fmt.Println("partial block:", err)
	groups, err := device.NewBuffer[uint32](dev, 3)
	if err != nil {
		return err
	}
	defer groups.Close()
	rev := make([]uint32, 256)
	if err := submit(rb.Upload(words), groups.Upload([]uint32{1, 1, 1}), reverse.Dispatch(256, rb),
		reverse.DispatchIndirect(groups.All(), rb.View(128, 128)), rb.Download(rev)); err != nil {
		return fmt.Errorf("reverse: %w", err)
	}
	for i, v := range rev {
		want := uint32(i/128*128 + 127 - i%128) // reversed by the direct dispatch
		if i >= 128 {
			want = uint32(i) // and back by the indirect one
		}
		if v != want {
			return fmt.Errorf("reverse[%d] = %d, want %d", i, v, want)
		}
	}

	// Affine2D through the launcher generated into a separate package.
	affine, err := launch.NewAffine2D(dev)
	if err != nil {
		return err
	}
	defer affine.Close()
	const w, h = 37, 23
	pairs := make([]kern.Pair, w*h)
	for i := range pairs {
		pairs[i] = kern.Pair{A: float32(i%7 + 1), B: float32(i%5 - 2)}
	}
	in, err := device.NewBuffer[kern.Pair](dev, w*h)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := device.NewBuffer[float32](dev, w*h)
	if err != nil {
		return err
	}
	defer out.Close()
	res := make([]float32, w*h)
	if err := submit(in.Upload(pairs), affine.Dispatch(w, h, w, h, in, out), out.Download(res)); err != nil {
		return fmt.Errorf("affine2d: %w", err)
	}
	for yy := 0; yy < h; yy++ {
		for xx := 0; xx < w; xx++ {
			p := pairs[yy*w+xx]
			want := p.A*float32(xx) + p.B*float32(yy)
			if got := res[yy*w+xx]; got != want {
				return fmt.Errorf("affine2d[%d,%d] = %v, want %v", xx, yy, got, want)
			}
		}
	}

	// Invert: storage textures, images of the format's pixel type in the launcher.
	invert, err := kern.NewInvert(dev)
	if err != nil {
		return err
	}
	defer invert.Close()
	const tw, th = 13, 7
	texels := make([]kernel.Float4, tw*th)
	for i := range texels {
		texels[i] = kernel.Float4{X: float32(i%8) / 8, Y: float32(i%4) / 4, Z: 0.5, W: float32(i % 2)}
	}
	src, err := device.NewImage[kernel.Float4](dev, device.RGBA32Float, tw, th, 1)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := device.NewImage[kernel.Float4](dev, device.RGBA32Float, tw, th, 1)
	if err != nil {
		return err
	}
	defer dst.Close()
	inv := make([]kernel.Float4, tw*th)
	if err := submit(src.Upload(texels), invert.Dispatch(tw, th, src, dst), dst.Download(inv)); err != nil {
		return fmt.Errorf("invert: %w", err)
	}
	for i, c := range texels {
		want := kernel.Float4{X: 1 - c.X, Y: 1 - c.Y, Z: 1 - c.Z, W: c.W}
		if inv[i] != want {
			return fmt.Errorf("invert[%d] = %v, want %v", i, inv[i], want)
		}
	}
	// A nil image is an error naming the argument, not a crash.
	if err := stream.Submit(invert.Dispatch(tw, th, src, nil)); err == nil || !strings.Contains(err.Error(), "argument 1 (dst)") {
		return fmt.Errorf("invert with a nil image: got %v, want an error naming dst", err)
	}
	return nil
}

// hostFault reads past Affine2D's input on the cpu backend, which runs the
// kernel as compiled Go: Go's bounds check panics the thread, and the error
// says so (kernel.ErrKernelPanic) and names the kernel.
func hostFault(ctx context.Context, dev *device.Device) error {
	stream, err := dev.NewStream(device.StreamCompute)
	if err != nil {
		return err
	}
	defer stream.Close()
	affine, err := launch.NewAffine2D(dev)
	if err != nil {
		return err
	}
	defer affine.Close()
	in, err := device.NewBuffer[kern.Pair](dev, 10)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := device.NewBuffer[float32](dev, 100)
	if err != nil {
		return err
	}
	defer out.Close()
	if err := stream.Submit(affine.Dispatch(10, 10, 10, 10, in, out)); err != nil {
		return err
	}
	err = stream.Synchronize(ctx)
	if !errors.Is(err, kernel.ErrKernelPanic) || !errors.Is(err, device.ErrInvalidArgument) || !strings.Contains(err.Error(), "kernel kern.Affine2D (kern.go:") {
		return fmt.Errorf("affine2d past its input: got %v, want a thread panic naming the kernel", err)
	}
	fmt.Println("host fault:", err)
	return nil
}
`

// repoRoot is the module root of lucent.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	return root
}

// tempModule writes a module that requires lucent through a replace
// directive and builds offline, with files (path → contents) in it.
func tempModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root := repoRoot(t)
	dir := t.TempDir()
	gomod := "module example.com/e2e\n\ngo 1.26\n\nrequire github.com/lucent-gpu/lucent v0.0.0\n\nreplace github.com/lucent-gpu/lucent => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	files["go.mod"] = gomod
	files["go.sum"] = string(sum)
	for name, src := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOWORK", "off")
	t.Setenv("CGO_ENABLED", "0")
	return dir
}

func goCommand(t *testing.T, ctx context.Context, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestGenerateEndToEnd generates launchers with -go (into the kernel package
// and, with -goout, into another), builds a program using both with
// CGO_ENABLED=0 and runs it on the Vulkan device.
func TestGenerateEndToEnd(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"kern/kern.go": kernSource, "main.go": programSource})

	_, stderr, code := lucentc(t, "-C", dir, "-go", "./kern")
	require.Equal(t, 0, code, stderr)
	gen := filepath.Join(dir, "kern", goFileName)
	first, err := os.ReadFile(gen)
	require.NoError(t, err)
	src := string(first)
	require.True(t, strings.HasPrefix(src, "// Code generated by lucentc. DO NOT EDIT.\n"))
	require.Contains(t, src, "//go:build !lucentc\n\npackage kern\n")
	require.Contains(t, src, "func NewSaxpy(dev *device.Device) (*SaxpyKernel, error)")
	require.Contains(t, src, "func (k *SaxpyKernel) Dispatch(threads uint32, a float32, x, y *device.Buffer[float32]) device.Command")
	require.Contains(t, src, "func (k *InvertKernel) Dispatch(threadsX, threadsY uint32, src, dst *device.Image[kernel.Float4]) device.Command")
	require.Contains(t, src, "Format: device.RGBA32Float")
	require.Contains(t, src, "func (k *SaxpyKernel) DispatchIndirect(groups device.BufferView[uint32], a float32, x device.ReadView[float32], y device.BufferView[float32]) device.Command")
	require.Contains(t, src, "return k.shader.Dispatch([3]uint32{threads, 1, 1}, a, x.ReadOnly(), lucentcAll(y))")
	// A nil buffer's view carries Buffer.View's error ("nil or zero-value
	// Buffer"), not the zero view's ("zero BufferView").
	require.Contains(t, src, "func lucentcAll[T any](b *device.Buffer[T]) device.BufferView[T] { return b.All() }")
	require.Regexp(t, `(?s)func NewReverse\(.*WholeBlocks: +true,.*func NewSaxpy\(`, src, "Reverse has barriers")
	require.NotRegexp(t, `(?s)func NewSaxpy\(.*WholeBlocks.*func \(k \*SaxpyKernel\) Dispatch\(`, src, "Saxpy has none")
	require.Contains(t, src, "func (k *Affine2DKernel) Dispatch(threadsX, threadsY uint32, w, h uint32, in *device.Buffer[Pair], out *device.Buffer[float32]) device.Command")
	require.NotContains(t, src, "example.com/e2e/kern\"", "the kernel package must not import itself")
	// Kernels whose arguments are Go memory as they are carry their Go
	// function for a backend running kernels on the host; Invert's textures
	// are not.
	require.Contains(t, src, "func hostSaxpy(ctx context.Context, size [3]uint32, args [][]byte) error {")
	require.Contains(t, src, "kernel.RunBlocks(ctx, grid, func(b *kernel.Block) { lucentcLoopSaxpy(b, a0, a1, a2) })")
	require.Contains(t, src, "// kernel.Run, not a loop over the threads: kernel.Shared.\n\treturn kernel.Run(ctx, grid, func() { Reverse(a0) })")
	// Each constructor hands the Vulkan artefact (the codegen version,
	// then the SPIR-V), the IR and the host function to
	// device.LoadPrebuilt, the path of ahead-of-time records.
	for _, k := range []string{"Saxpy", "Reverse", "Invert", "Affine2D"} {
		require.Regexp(t, `(?s)func New`+k+`\(dev \*device.Device\) \(\*`+k+`Kernel, error\) {\n.*?\tk, err := device.LoadPrebuilt\(dev, device.Prebuilt{\n\t\tName: +"kern.`+k+`",\n\t\tSignature: +signature`+k+`,\n.*?\t\tIR: +ir`+k+`,\n\t\tArtefacts: +map\[string\]\[\]byte{"vulkan": vulkan`+k+`},\n`, src)
		require.Contains(t, src, "\nvar vulkan"+k+" = []byte("+strings.TrimSuffix(strconv.Quote(string(binary.LittleEndian.AppendUint32(nil, codegen.Version))+"\x03\x02#\a"), `"`))
	}
	require.Regexp(t, `\n\t\tHost: +hostSaxpy,\n\t}\)`, src)
	require.Regexp(t, `\n\t\tHost: +hostReverse,\n\t}\)`, src)
	require.NotContains(t, src, "hostInvert")
	require.NotContains(t, src, "frontend/ir\"", "the launchers compile no IR themselves")

	// A second run (the generated file now present) reproduces it byte for byte.
	_, stderr, code = lucentc(t, "-C", dir, "-go", "./kern")
	require.Equal(t, 0, code, stderr)
	second, err := os.ReadFile(gen)
	require.NoError(t, err)
	require.Equal(t, string(first), string(second))

	_, stderr, code = lucentc(t, "-C", dir, "-go", "-goout", "launch", "./kern")
	require.Equal(t, 0, code, stderr)
	launch, err := os.ReadFile(filepath.Join(dir, "launch", goFileName))
	require.NoError(t, err)
	require.Contains(t, string(launch), "package launch\n")
	require.Contains(t, string(launch), "in *device.Buffer[kern.Pair]")
	require.Contains(t, string(launch), "kern.Affine2D(a0, a1, a2, a3)")
	// The launch package's Affine2D artefact is made another codegen
	// version's, as a launcher generated by another lucent's lucentc is:
	// the program must compile its IR (and say so) rather than run it.
	version := func(v uint32) string {
		return "\nvar vulkanAffine2D = []byte(" + strings.TrimSuffix(strconv.Quote(string(binary.LittleEndian.AppendUint32(nil, v))), `"`)
	}
	require.Equal(t, 1, strings.Count(string(launch), version(codegen.Version)))
	stale := strings.Replace(string(launch), version(codegen.Version), version(codegen.Version-1), 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "launch", goFileName), []byte(stale), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	prog := filepath.Join(t.TempDir(), "prog")
	out, err := goCommand(t, ctx, dir, "build", "-o", prog, ".")
	require.NoError(t, err, out)

	cmd := exec.CommandContext(ctx, prog)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	require.Contains(t, string(b), "host fault:", "the cpu backend ran Affine2D as compiled Go")
	require.Contains(t, string(b), "cpu ok\n")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		testenv.Need(t, "Vulkan device", errors.New(strings.TrimSpace(string(b))))
	}
	require.NoError(t, err, string(b))
	require.Contains(t, string(b), "nil buffer:")
	require.Contains(t, string(b), "partial block:")
	// On Vulkan, codegen ran once: for the stale artefact, which the
	// device logged; the other kernels ran their SPIR-V.
	require.Contains(t, string(b), "vulkan codegen runs: 1\n")
	require.Regexp(t, `stale: level=INFO msg="device: ahead-of-time artefact of another code generator version, compiling the kernel's IR" kernel=kern.Affine2D backend=vulkan\n`, string(b))
	require.Equal(t, 1, strings.Count(string(b), "stale:"), string(b))
	require.True(t, strings.HasSuffix(string(b), "ok\n"), string(b))
	t.Logf("program output:\n%s", b)
}

// TestGenerateStaleFile: a generated file that no longer compiles (its
// kernel package changed under it) does not stop lucentc from regenerating it.
func TestGenerateStaleFile(t *testing.T) {
	needSPIRVTools(t)
	stale := "// Code generated by lucentc. DO NOT EDIT.\n\n//go:build !lucentc\n\npackage kern\n\nvar _ = RemovedKernel\n"
	dir := tempModule(t, map[string]string{"kern/kern.go": kernSource, "kern/" + goFileName: stale})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "./kern")
	require.Equal(t, 0, code, stderr)
	src, err := os.ReadFile(filepath.Join(dir, "kern", goFileName))
	require.NoError(t, err)
	require.NotContains(t, string(src), "RemovedKernel")
	require.Contains(t, string(src), "func NewAffine2D(")

	// -check agrees with the fresh file, flags one whose artefact another
	// codegen version made (a launcher of another lucent), and flags it
	// once the kernel changes.
	_, stderr, code = lucentc(t, "-C", dir, "-go", "-check", "./kern")
	require.Equal(t, 0, code, stderr)
	gen := filepath.Join(dir, "kern", goFileName)
	quoted := func(v uint32) string {
		return "\nvar vulkanSaxpy = []byte(" + strings.TrimSuffix(strconv.Quote(string(binary.LittleEndian.AppendUint32(nil, v))), `"`)
	}
	require.NoError(t, os.WriteFile(gen, []byte(strings.Replace(string(src), quoted(codegen.Version), quoted(codegen.Version+1), 1)), 0o644))
	_, stderr, code = lucentc(t, "-C", dir, "-go", "-check", "./kern")
	require.Equal(t, 1, code)
	require.Regexp(t, `lucentc: -check: out of date: \S*kern/lucent_kernels\.go`, stderr)
	require.NoError(t, os.WriteFile(gen, src, 0o644))
	kern := filepath.Join(dir, "kern", "kern.go")
	require.NoError(t, os.WriteFile(kern, []byte(strings.Replace(kernSource, "block=64", "block=128", 1)), 0o644))
	_, stderr, code = lucentc(t, "-C", dir, "-go", "-check", "./kern")
	require.Equal(t, 1, code)
	require.Regexp(t, `lucentc: -check: out of date: \S*kern/lucent_kernels\.go`, stderr)
	after, err := os.ReadFile(filepath.Join(dir, "kern", goFileName))
	require.NoError(t, err)
	require.Equal(t, string(src), string(after), "-check wrote the file")
}

// TestCheckNamesStaleKernels: each launcher file records the hash of every
// kernel's IR, so -check, with or without -go, names the kernel whose source
// changed (and one added or removed) and the command that regenerates it.
func TestCheckNamesStaleKernels(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"kern/kern.go": kernSource})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "./kern")
	require.Equal(t, 0, code, stderr)
	gen := filepath.Join(dir, "kern", goFileName)
	src, err := os.ReadFile(gen)
	require.NoError(t, err)
	require.Regexp(t, `(?m)^// lucentc kernel Saxpy ir-sha256 [0-9a-f]{32}$`, string(src))
	for _, args := range [][]string{{"-check"}, {"-go", "-check"}} {
		_, stderr, code = lucentc(t, append([]string{"-C", dir}, append(args, "./kern")...)...)
		require.Equal(t, 0, code, "%v: %s", args, stderr)
	}

	// Saxpy's body changes (same lines, so the other kernels' IR does not);
	// a kernel is added after the last one.
	edited := strings.Replace(kernSource, "y[i] = a*x[i] + y[i]", "y[i] = a*x[i] - y[i]", 1) +
		"\n//lucent:kernel block=64\nfunc Zero(out []float32) { out[kernel.DispatchID().X] = 0 }\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kern", "kern.go"), []byte(edited), 0o644))
	for _, args := range [][]string{{"-check"}, {"-go", "-check"}} {
		_, stderr, code = lucentc(t, append([]string{"-C", dir}, append(args, "./kern")...)...)
		require.Equal(t, 1, code, "%v: %s", args, stderr)
		require.Regexp(t, `kern\.go:\d+:6: kernel Saxpy: changed since its launcher in \S*kern/lucent_kernels\.go was generated: rerun lucentc -go -target vulkan1\.2 example\.com/e2e/kern`, stderr, args)
		require.Regexp(t, `kern\.go:\d+:6: kernel Zero: has no launcher in \S*kern/lucent_kernels\.go: rerun lucentc -go -target vulkan1\.2 example\.com/e2e/kern`, stderr, args)
		require.NotContains(t, stderr, "kernel Affine2D", args)
		require.NotContains(t, stderr, "kernel Invert", args)
	}
	after, err := os.ReadFile(gen)
	require.NoError(t, err)
	require.Equal(t, string(src), string(after), "-check wrote the file")

	// A kernel removed from the package is named too.
	removed := strings.Replace(kernSource, "//lucent:kernel block=8,8\nfunc Invert(", "func Invert(", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kern", "kern.go"), []byte(removed), 0o644))
	_, stderr, code = lucentc(t, "-C", dir, "-check", "./kern")
	require.Equal(t, 1, code, stderr)
	require.Regexp(t, `\S*kern/lucent_kernels\.go: kernel Invert: has a launcher but is no longer a kernel: rerun lucentc -go -target vulkan1\.2 example\.com/e2e/kern`, stderr)
	t.Logf("-check:\n%s", stderr)

	// A launcher file without hashes (an older lucentc's) is named once.
	require.NoError(t, os.WriteFile(gen, []byte("// Code generated by lucentc. DO NOT EDIT.\n// lucentc -go -target vulkan1.2\n\npackage kern\n"), 0o644))
	_, stderr, code = lucentc(t, "-C", dir, "-check", "./kern")
	require.Equal(t, 1, code, stderr)
	require.Regexp(t, `\S*kern/lucent_kernels\.go: records no kernel hashes .*: rerun lucentc -go -target vulkan1\.2 example\.com/e2e/kern`, stderr)
	require.NotContains(t, stderr, "has no launcher")
}

// TestGenerateNameClash: a package declaring a name the launcher needs gets
// an error at the kernel naming the declaration, and no file.
func TestGenerateNameClash(t *testing.T) {
	needSPIRVTools(t)
	clash := "package kern\n\n// SaxpyKernel is taken.\ntype SaxpyKernel int\n"
	dir := tempModule(t, map[string]string{"kern/kern.go": kernSource, "kern/clash.go": clash})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "./kern")
	require.Equal(t, 1, code)
	require.Regexp(t, `kern\.go:\d+:6: kernel Saxpy: the launcher needs the name SaxpyKernel, which the package declares at \S*clash\.go:4:6`, stderr)
	_, err := os.Stat(filepath.Join(dir, "kern", goFileName))
	require.True(t, os.IsNotExist(err), "file written despite the error")
}

// TestGenerateCorpus generates launchers for every corpus kernel (textures,
// structs, vectors, 1-3 D) into a separate package and has go vet
// type-check them against the corpus.
func TestGenerateCorpus(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"doc.go": "// Package e2e is empty.\npackage e2e\n"})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "-atomicfloat", "-goout", "corpusgen", "github.com/lucent-gpu/lucent/testdata/gokernel")
	require.Equal(t, 0, code, stderr)
	src, err := os.ReadFile(filepath.Join(dir, "corpusgen", goFileName))
	require.NoError(t, err)
	for _, name := range corpusKernels(t) {
		k := strings.TrimPrefix(strings.TrimSuffix(name, ".spv"), "kernels.")
		require.Contains(t, string(src), "func New"+k+"(dev *device.Device) (*"+k+"Kernel, error)")
	}
	// The launchers carry the logical signature only: where arguments go is
	// the Vulkan backend's layout, derived from it by the kernel ABI.
	for _, layout := range []string{"Binding:", "Offset:", "Form:", "TextureSet:", "DispatchHeader:", "PushConstantSize:"} {
		require.NotContains(t, string(src), layout)
	}
	// A test inside the generated package compares each embedded signature
	// and module with what the runtime path (gokernel, device.KernelSignature,
	// codegen.Emit) makes of the same kernel.
	var table strings.Builder
	for _, name := range corpusKernels(t) {
		k := strings.TrimPrefix(strings.TrimSuffix(name, ".spv"), "kernels.")
		fmt.Fprintf(&table, "\t%q: {signature%s, vulkan%s, ir%s},\n", k, k, k, k)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "corpusgen", "roundtrip_test.go"),
		[]byte(strings.Replace(roundTripSource, "TABLE\n", table.String(), 1)), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := goCommand(t, ctx, dir, "vet", "./corpusgen")
	require.NoError(t, err, out)
	out, err = goCommand(t, ctx, dir, "test", "-count=1", "-v", "./corpusgen")
	require.NoError(t, err, out)
	require.Contains(t, out, "--- PASS: TestRoundTrip")
	if strings.Contains(out, "--- SKIP: TestFromIR") {
		testenv.Need(t, "a Vulkan device for the launchers' IR path", errors.New(out))
	}
	require.Contains(t, out, "--- PASS: TestFromIR")
}

// roundTripSource is the test run inside a generated package.
const roundTripSource = `package corpusgen

import (
	"context"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/vulkan"
	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

var generated = map[string]struct {
	sig device.Signature
	art []byte
	ir  []byte
}{
TABLE
}

// dirs matches the directories of a source position.
var dirs = regexp.MustCompile("[^\\s(]*/([^/\\s(]+\\.go:)")

// portable cuts the directories off the source positions in sig, as a
// launcher carries them (the same on every machine).
func portable(sig device.Signature) device.Signature {
	cut := func(l []string) []string {
		for i, s := range l {
			l[i] = dirs.ReplaceAllString(s, "$1")
		}
		return l
	}
	sig.Sites, sig.Places = cut(sig.Sites), cut(sig.Places)
	return sig
}

func TestRoundTrip(t *testing.T) {
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(ks) != len(generated) {
		t.Fatalf("%d kernels loaded, %d generated", len(ks), len(generated))
	}
	for _, k := range ks {
		g, ok := generated[k.Name]
		if !ok {
			t.Fatalf("kernel %s has no launcher", k.Name)
		}
		sig, _, err := device.KernelSignature(k.Func)
		if err != nil {
			t.Fatal(err)
		}
		sig = portable(sig)
		if !reflect.DeepEqual(sig, g.sig) {
			t.Errorf("%s: generated signature\n%#v\nruntime signature\n%#v", k.Name, g.sig, sig)
		}
		opts := codegen.Options{Env: spirv.EnvVulkan1_2, FloatAtomicAdd: true}
		for _, w := range codegen.AllWorkarounds() {
			w.Apply(&opts)
		}
		words, err := codegen.Emit(k.Func, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(vulkan.Artefact(words), g.art) {
			t.Errorf("%s: embedded artefact differs from codegen's", k.Name)
		}
		f, err := ir.UnmarshalKernel(g.ir)
		if err != nil {
			t.Fatal(err)
		}
		if f.Hash() != k.Func.Hash() {
			t.Errorf("%s: embedded IR is another kernel", k.Name)
		}
	}
}

// TestFromIR builds every kernel from its embedded IR, the path a backend
// without SPIR-V, or a lucent of another code generator, takes.
func TestFromIR(t *testing.T) {
	dev, err := device.Open(context.Background(), "vulkan")
	if err != nil {
		t.Skip("no Vulkan device:", err)
	}
	defer dev.Close()
	for name, g := range generated {
		k, err := device.LoadPrebuilt(dev, device.Prebuilt{Name: name, Signature: g.sig, IR: g.ir})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if k.Function() == nil {
			t.Fatalf("%s: not compiled from the IR", name)
		}
		sh := k.Shader
		if got := sh.Signature(); !reflect.DeepEqual(got.Args, g.sig.Args) {
			t.Errorf("%s: signature from the IR\n%#v\nembedded\n%#v", name, got.Args, g.sig.Args)
		}
		if err := sh.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
`

// TestGenerateImportClash: a kernel package declaring the name "device" gets
// the device package under another name, and a kernel parameter with a
// predeclared name is renamed; the result builds.
func TestGenerateImportClash(t *testing.T) {
	needSPIRVTools(t)
	const src = `package kern

import "github.com/lucent-gpu/lucent/kernel"

type device struct{ X float32 }

var _ device

// Scale scales v by any.
//
//lucent:kernel block=64
func Scale(any float32, v []float32) {
	i := kernel.DispatchID().X
	if i < uint32(len(v)) {
		v[i] *= any
	}
}
`
	dir := tempModule(t, map[string]string{"kern/kern.go": src})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "./kern")
	require.Equal(t, 0, code, stderr)
	gen, err := os.ReadFile(filepath.Join(dir, "kern", goFileName))
	require.NoError(t, err)
	require.Contains(t, string(gen), `device2 "github.com/lucent-gpu/lucent/device"`)
	require.Contains(t, string(gen), "Dispatch(threads uint32, arg0 float32, v *device2.Buffer[float32]) device2.Command")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := goCommand(t, ctx, dir, "vet", "./kern")
	require.NoError(t, err, out)
}

// TestTypeErrorOnce: a Go type error in a kernel package resolved with -C is
// listed once, at its position, with status 1.
func TestTypeErrorOnce(t *testing.T) {
	const src = "package kern\n\n//lucent:kernel block=64\nfunc Bad(v []float32) {\n\tv[0] = undefinedName\n}\n"
	dir := tempModule(t, map[string]string{"kern/kern.go": src})
	_, stderr, code := lucentc(t, "-C", dir, "-o", "out", "./kern")
	require.Equal(t, 1, code)
	require.Equal(t, 1, strings.Count(stderr, "undefined: undefinedName"), stderr)
	require.Regexp(t, `(?m)^\S*kern/kern\.go:5:9: undefined: undefinedName$`, stderr)
}

// The launchers' modules lucentc validated are trusted (device.Prebuilt), so
// the program does not validate them again (nor need SPIRV-Tools); with
// -validate=false they carry Validate, and the device validates them at run
// time.
func TestGenerateMarksValidatedModulesTrusted(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"kern/kern.go": kernSource})
	gen := filepath.Join(dir, "kern", goFileName)

	_, stderr, code := lucentc(t, "-C", dir, "-go", "./kern")
	require.Equal(t, 0, code, stderr)
	src, err := os.ReadFile(gen)
	require.NoError(t, err)
	require.Regexp(t, `(?s)func NewSaxpy\(.*Artefacts: map\[string\]\[\]byte{"vulkan": vulkanSaxpy},\n\t\tHost: +hostSaxpy,\n\t}\)`, string(src))
	require.NotContains(t, string(src), "Validate:")

	_, stderr, code = lucentc(t, "-C", dir, "-go", "-validate=false", "./kern")
	require.Equal(t, 0, code, stderr)
	src, err = os.ReadFile(gen)
	require.NoError(t, err)
	require.Regexp(t, `(?s)func NewSaxpy\(.*Host: +hostSaxpy,\n\t\tValidate: +true,\n\t}\)`, string(src))
}

// TestCheckNamesTheGeneratingCommand: a launcher file generated with other
// flags than -check is given (-O here) is out of date, and the error says
// which command made it and which one it was checked with, rather than
// have the file regenerated with the checking command's flags unawares.
func TestCheckNamesTheGeneratingCommand(t *testing.T) {
	needSPIRVTools(t)
	dir := tempModule(t, map[string]string{"kern/kern.go": kernSource})
	_, stderr, code := lucentc(t, "-C", dir, "-go", "-O", "./kern")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = lucentc(t, "-C", dir, "-go", "-O", "-check", "./kern")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = lucentc(t, "-C", dir, "-go", "-check", "./kern")
	require.Equal(t, 1, code)
	require.Regexp(t, `lucentc: -check: out of date: \S*kern/lucent_kernels\.go \(generated by "lucentc -go -target vulkan1\.2 -O", checked with "lucentc -go -target vulkan1\.2"\)`, stderr)
}
