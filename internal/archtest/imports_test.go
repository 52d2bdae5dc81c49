package archtest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/lucent-gpu/lucent"

// row is one line of the layout table: the packages it names and what they
// may import (nil: anything).
type row struct {
	paths []string
	may   map[string]bool
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// layout reads the table of docs/ARCHITECTURE.md's "Layout" section.
func layout(t *testing.T, root string) []row {
	f, err := os.Open(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	require.NoError(t, err)
	defer f.Close()
	var rows []row
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Layout"
			continue
		case !in || !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| path"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		require.Len(t, cells, 3, "layout row %q", line)
		var r row
		for _, m := range codeSpan.FindAllStringSubmatch(cells[0], -1) {
			r.paths = append(r.paths, strings.TrimSuffix(m[1], "/"))
		}
		if may := strings.TrimSpace(cells[2]); may != "anything" {
			r.may = map[string]bool{}
			for _, m := range codeSpan.FindAllStringSubmatch(may, -1) {
				r.may[m[1]] = true
			}
		}
		rows = append(rows, r)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, rows, "no layout table in docs/ARCHITECTURE.md")
	return rows
}

// governing returns the row whose path is the longest prefix of pkg.
func governing(rows []row, pkg string) (row, bool) {
	best, bestLen, found := row{}, -1, false
	for _, r := range rows {
		for _, p := range r.paths {
			if (pkg == p || strings.HasPrefix(pkg, p+"/")) && len(p) > bestLen {
				best, bestLen, found = r, len(p), true
			}
		}
	}
	return best, found
}

type listed struct {
	ImportPath string
	Imports    []string
}

// TestImportsFollowTheLayout fails where a package is missing from the
// layout table or imports a lucent package its row does not allow (test
// files are not held to it: they may open a backend or use fixtures).
func TestImportsFollowTheLayout(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	rows := layout(t, root)
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "go list")
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var faults []string
	seen := 0
	for dec.More() {
		var p listed
		require.NoError(t, dec.Decode(&p))
		pkg := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if pkg == "" || pkg == "internal/archtest" {
			continue
		}
		seen++
		r, ok := governing(rows, pkg)
		if !ok {
			faults = append(faults, pkg+" is not in the layout table")
			continue
		}
		if r.may == nil {
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if own, _ := governing(rows, dep); samePaths(own, r) {
				continue // a package of the same row (kernel's generator, say)
			}
			if !r.may[dep] {
				faults = append(faults, pkg+" imports "+dep+", which its row does not allow")
			}
		}
	}
	require.Greater(t, seen, 10, "go list found too few packages")
	sort.Strings(faults)
	require.Empty(t, faults, "docs/ARCHITECTURE.md's layout table and the import graph disagree")
}

func samePaths(a, b row) bool {
	return len(a.paths) > 0 && len(b.paths) > 0 && a.paths[0] == b.paths[0]
}

// TestLayoutCatchesAViolation proves the check can fail: a row that allows
// nothing rejects an import.
func TestLayoutCatchesAViolation(t *testing.T) {
	rows := []row{{paths: []string{"device"}, may: map[string]bool{"frontend": true}}, {paths: []string{"spirv"}, may: map[string]bool{}}}
	r, ok := governing(rows, "device")
	require.True(t, ok)
	require.False(t, r.may["spirv"])
	_, ok = governing(rows, "devicex")
	require.False(t, ok, "a prefix match must end at a path separator")
}
