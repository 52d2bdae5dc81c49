package gokernel_test

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
)

// The differential test: random integer expressions, compiled by gokernel
// and run on the device, against the same expressions compiled by the Go
// toolchain and run on the host. Go's own compiler is the oracle for Go's
// integer semantics (wrapping, truncating division, conversions, shifts).
// Some expressions are computed by helpers that take views of the inputs.

type exprType struct{ name, mask string }

var exprTypes = []exprType{{"int32", "31"}, {"uint32", "31"}, {"int64", "63"}, {"uint64", "63"}, {"uint8", "7"}, {"int16", "15"}}

// leaves are the variables expressions read: the inputs and locals holding
// edge values (variables, not constants, so Go does not fold and reject
// overflowing constant expressions).
var leaves = []struct{ name, typ, init string }{
	{"a", "int32", ""}, {"b", "int32", ""},
	{"c0", "uint32", "uint32(0xdeadbeef)"}, {"c1", "int32", "int32(-2147483648)"},
	{"c2", "int64", "int64(-7)"}, {"c3", "uint8", "uint8(200)"}, {"c4", "int16", "int16(-300)"},
	{"c5", "uint64", "uint64(0xfedcba9876543210)"},
}

func genExpr(r *rand.Rand, t exprType, depth int) string {
	if depth == 0 || r.IntN(6) == 0 {
		l := leaves[r.IntN(len(leaves))]
		if l.typ == t.name {
			return l.name
		}
		return t.name + "(" + l.name + ")"
	}
	sub := func() string { return genExpr(r, t, depth-1) }
	switch r.IntN(7) {
	case 0:
		return "-(" + sub() + ")"
	case 1:
		return "^(" + sub() + ")"
	case 2:
		ops := []string{"+", "-", "*", "&", "|", "^", "&^"}
		return "(" + sub() + " " + ops[r.IntN(len(ops))] + " " + sub() + ")"
	case 3:
		d := "(" + sub() + ")|1"
		if t.name[0] == 'i' { // a positive divisor: no MinInt/-1 overflow
			d = "(" + sub() + ")&0x3fff|1"
		}
		op := "/"
		if r.IntN(2) == 0 {
			op = "%"
		}
		return "(" + sub() + " " + op + " (" + d + "))"
	case 4:
		op := "<<"
		if r.IntN(2) == 0 {
			op = ">>"
		}
		mask := t.mask
		if r.IntN(2) == 0 { // counts past the width: Go gives 0 (or the sign)
			mask = "127"
		}
		return "(" + sub() + " " + op + " (uint32(" + genExpr(r, exprTypes[1], depth-1) + ")&" + mask + "))"
	case 5:
		o := exprTypes[r.IntN(len(exprTypes))]
		return t.name + "(" + genExpr(r, o, depth-1) + ")"
	default:
		f := "min"
		if r.IntN(2) == 0 {
			f = "max"
		}
		return f + "(" + sub() + ", " + sub() + ")"
	}
}

var diffRounds = flag.Int("diff.rounds", 4, "rounds of 48 random expressions in TestDifferentialIntegers")

func TestDifferentialIntegers(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the oracle: %v", err)
	}
	d := openDevice(t)
	for round := range *diffRounds {
		t.Run(fmt.Sprintf("seed%d", round), func(t *testing.T) { differential(t, d, goTool, uint64(round)) })
	}
}

func differential(t *testing.T, d *device.Device, goTool string, seed uint64) {
	const m, n = 48, 64
	r := rand.New(rand.NewPCG(42, seed))
	exprs := make([]string, m)
	for j := range exprs {
		exprs[j] = "int64(" + genExpr(r, exprTypes[r.IntN(len(exprTypes))], 4) + ")"
	}
	as, bs := make([]int32, n), make([]int32, n)
	edges := []int32{0, 1, -1, 2, -2, 7, -7, 1 << 30, -1 << 31, 1<<31 - 1, 255, 256, -256, 65535}
	for i := range as {
		if i < len(edges) {
			as[i], bs[i] = edges[i], edges[len(edges)-1-i]
			continue
		}
		as[i], bs[i] = int32(r.Uint32()), int32(r.Uint32()>>uint(r.IntN(32)))
	}

	var decls strings.Builder
	for _, l := range leaves[2:] {
		fmt.Fprintf(&decls, "\t%s := %s\n", l.name, l.init)
	}
	use := "\t_, _, _, _, _, _, _, _ = a, b, c0, c1, c2, c3, c4, c5\n"
	// A third of the expressions are computed by helpers that take views
	// of the input buffers (as[i:], bs[i:]) and read their element 0.
	var body, helpers strings.Builder
	for j, e := range exprs {
		if r.IntN(3) == 0 {
			fmt.Fprintf(&helpers, "\nfunc e%d(as, bs []int32, i uint32) int64 {\n\ta, b := as[i], bs[i]\n%s%s\treturn %s\n}\n", j, decls.String(), use, e)
			fmt.Fprintf(&body, "\tout[i*%d+%d] = e%d(as[i:], bs[i:], 0)\n", m, j, j)
			continue
		}
		fmt.Fprintf(&body, "\tout[i*%d+%d] = %s\n", m, j, e)
	}

	kernelSrc := "package diff\n\nimport \"github.com/lucent-gpu/lucent/kernel\"\n\n//lucent:kernel block=64\n" +
		"func Diff(as, bs []int32, out []int64) {\n\ti := kernel.DispatchID().X\n\tif i >= uint32(len(as)) {\n\t\treturn\n\t}\n" +
		"\ta, b := as[i], bs[i]\n" + decls.String() + use + body.String() + "}\n" + helpers.String()
	oracleSrc := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tas := " + fmt.Sprintf("%#v", as) + "\n\tbs := " + fmt.Sprintf("%#v", bs) +
		"\n\tout := make([]int64, len(as)*" + strconv.Itoa(m) + ")\n\tfor k := range as {\n\t\ti := k\n\t\ta, b := as[i], bs[i]\n" +
		strings.ReplaceAll(decls.String()+use+body.String(), "\n\t", "\n\t\t") + "\t}\n\tfor _, v := range out {\n\t\tfmt.Println(v)\n\t}\n}\n" + helpers.String()

	ks, errs := gokernel.Check("diff.go", []byte(kernelSrc))
	require.Empty(t, errs, "source:\n%s", kernelSrc)
	require.Len(t, ks, 1)

	dir := t.TempDir()
	main := filepath.Join(dir, "main.go")
	require.NoError(t, os.WriteFile(main, []byte(oracleSrc), 0o644))
	cmd := exec.Command(goTool, "run", main)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GO111MODULE=off", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	require.NoError(t, err, "oracle: %s\n%s", stderr.String(), oracleSrc)
	var want []int64
	for _, line := range strings.Fields(string(stdout)) {
		v, err := strconv.ParseInt(line, 10, 64)
		require.NoError(t, err)
		want = append(want, v)
	}
	require.Len(t, want, n*m)

	g := compileOn(t, d, ks[0])
	ob := upload(g, make([]int64, n*m))
	g.submit(g.k.Dispatch([3]uint32{n}, upload(g, as), upload(g, bs), ob))
	got := download(g, ob)
	bad := 0
	for j, e := range exprs {
		for i := range n {
			if got[i*m+j] != want[i*m+j] {
				if bad < 10 {
					t.Errorf("expression %d, a=%d b=%d: device %d, Go %d\n\t%s", j, as[i], bs[i], got[i*m+j], want[i*m+j], e)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d results differ", bad, n*m)
	}
	longest := exprs[0]
	for _, e := range exprs {
		if len(e) > len(longest) {
			longest = e
		}
	}
	t.Logf("%d results agree; the longest expression: %s", n*m, longest)
}
