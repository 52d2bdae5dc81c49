package vk

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lucent-gpu/lucent/internal/testenv"
	"github.com/stretchr/testify/require"
)

type fieldOffset struct {
	name   string
	offset uintptr
}

type structLayout struct {
	name         string
	size, align  uintptr
	fieldOffsets []fieldOffset
}

// TestLayoutMatchesC compiles testdata/layout_gen.c against the installed
// Vulkan headers and checks that every generated struct and union has the C
// size, alignment and member offsets.
func TestLayoutMatchesC(t *testing.T) {
	cc, err := exec.LookPath("cc")
	testenv.Need(t, "a C compiler", err)
	bin := filepath.Join(t.TempDir(), "layout")
	out, err := exec.Command(cc, "-std=c11", "-o", bin, filepath.Join("testdata", "layout_gen.c")).CombinedOutput()
	if err != nil && bytes.Contains(out, []byte("vulkan_core.h")) && bytes.Contains(out, []byte("No such file")) {
		testenv.Need(t, "the Vulkan headers", fmt.Errorf("%s", out))
	}
	require.NoError(t, err, "compiling the layout program:\n%s", out)
	out, err = exec.Command(bin).Output()
	require.NoError(t, err)

	var c []structLayout
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch f[0] {
		case "S":
			size, _ := strconv.ParseUint(f[2], 10, 64)
			align, _ := strconv.ParseUint(f[3], 10, 64)
			c = append(c, structLayout{name: f[1], size: uintptr(size), align: uintptr(align), fieldOffsets: []fieldOffset{}})
		case "F":
			off, _ := strconv.ParseUint(f[3], 10, 64)
			last := &c[len(c)-1]
			require.Equal(t, last.name, f[1])
			last.fieldOffsets = append(last.fieldOffsets, fieldOffset{f[2], uintptr(off)})
		}
	}
	require.Len(t, c, len(goLayouts), "struct count")
	require.Greater(t, len(goLayouts), 850, "the whole API is generated")
	for i, g := range goLayouts {
		cl := c[i]
		require.Equal(t, cl.name, g.name)
		require.Equal(t, cl.size, g.size, "sizeof(%s)", g.name)
		require.Equal(t, cl.align, g.align, "_Alignof(%s)", g.name)
		require.Equal(t, cl.fieldOffsets, g.fieldOffsets, "member offsets of %s", g.name)
	}
}
