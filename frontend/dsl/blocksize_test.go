package dsl_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lucent-gpu/lucent/frontend/dsl"
)

// A block size out of range is an error naming the value the caller gave,
// not its uint32 conversion, and a size past 32 bits is not truncated.
func TestKernelBlockSizeNamed(t *testing.T) {
	body := func(k *dsl.K, o dsl.Buf[dsl.U32]) { o.Write(k.DispatchID().X(), dsl.U(1)) }
	for _, c := range []struct {
		name string
		make func() error
		want string
	}{
		{"1D -5", func() error { _, err := dsl.Kernel1D(-5, body); return err }, "[-5]"},
		{"1D 0", func() error { _, err := dsl.Kernel1D(0, body); return err }, "[0]"},
		{"1D 1<<32+64", func() error { _, err := dsl.Kernel1D(1<<32+64, body); return err }, "4294967360"},
		{"1D 2048", func() error { _, err := dsl.Kernel1D(2048, body); return err }, "[2048]"},
		{"2D -1", func() error { _, err := dsl.Kernel2D(8, -1, body); return err }, "[8 -1]"},
		{"2D 64x64", func() error { _, err := dsl.Kernel2D(64, 64, body); return err }, "[64 64] has 4096 threads"},
		{"3D -2", func() error { _, err := dsl.Kernel3D(-2, 4, 4, body); return err }, "[-2 4 4]"},
		{"3D 1<<32+1", func() error { _, err := dsl.Kernel3D(4, 4, 1<<32+1, body); return err }, "4294967297"},
	} {
		err := c.make()
		if err == nil || !errors.Is(err, dsl.ErrDSL) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "429496729") && !strings.Contains(c.want, "429496729") {
			t.Errorf("%s: error %v, want an ErrDSL naming %s", c.name, err, c.want)
		}
	}
	for _, b := range [][3]int{{1, 1, 1}, {1024, 1, 1}, {8, 8, 16}} {
		f, err := dsl.Kernel3D(b[0], b[1], b[2], body)
		if err != nil || f.BlockSize != [3]uint32{uint32(b[0]), uint32(b[1]), uint32(b[2])} {
			t.Errorf("Kernel3D%v: %v, block %v", b, err, f)
		}
	}
	if f, err := dsl.Kernel2D(16, 4, body); err != nil || f.BlockSize != [3]uint32{16, 4, 1} {
		t.Errorf("Kernel2D(16, 4): %v", err)
	}
}
