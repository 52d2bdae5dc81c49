package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/lucent-gpu/lucent/frontend/gokernel"
)

// kernelHashPrefix starts the line of a launcher file that records the hash
// of one kernel's IR: "// lucentc kernel Saxpy ir-sha256 <hex>".
const kernelHashPrefix = "// lucentc kernel "

// irHash is the hash a launcher records of the kernel IR it embeds (the
// first 16 bytes of its SHA-256, in hex).
func irHash(ir []byte) string {
	h := sha256.Sum256(ir)
	return hex.EncodeToString(h[:16])
}

// launcherFile is the file -go writes kernel u's launcher into.
func launcherFile(cfg *config, u *unit) (string, error) {
	if cfg.goFile && cfg.goOut != "" {
		dir := cfg.goOut
		if cfg.dir != "" && !filepath.IsAbs(dir) {
			dir = filepath.Join(cfg.dir, dir)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", fmt.Errorf("lucentc: -goout: %w", err)
		}
		return filepath.Join(abs, goFileName), nil
	}
	if len(u.pkg.GoFiles) == 0 {
		return "", nil
	}
	return filepath.Join(filepath.Dir(u.pkg.GoFiles[0]), goFileName), nil
}

// launcherHeader is what a launcher file's header records: the flags it was
// generated with and the hash of each kernel's IR.
type launcherHeader struct {
	flags  string
	hashes map[string]string
	order  []string
}

func readLauncherHeader(src []byte) launcherHeader {
	h := launcherHeader{hashes: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "//") {
			break // the header ends at the first line that is not a comment
		}
		if rest, ok := strings.CutPrefix(line, kernelHashPrefix); ok {
			if name, hash, ok := strings.Cut(rest, " ir-sha256 "); ok {
				h.hashes[name] = hash
				h.order = append(h.order, name)
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "// lucentc -go"); ok && h.flags == "" {
			h.flags = "-go" + rest
		}
	}
	return h
}

// orphanLaunchers names the launcher file of each package the patterns
// matched that no longer has a kernel: go generate fails there ("no
// //lucent:kernel functions") or, under ./..., never looks, so the file
// would keep launchers of functions that are no longer kernels. A -goout
// file is not looked for: it is found through the kernels that go into it.
func orphanLaunchers(cfg *config, pkgs map[string]*packages.Package, kernels []*gokernel.Kernel) []error {
	if cfg.goFile && cfg.goOut != "" {
		return nil
	}
	has := map[string]bool{}
	for _, k := range kernels {
		has[k.Package] = true
	}
	paths := make([]string, 0, len(pkgs))
	for path := range pkgs {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	var errs []error
	for _, path := range paths {
		p := pkgs[path]
		files := append(append([]string{}, p.GoFiles...), p.IgnoredFiles...)
		if has[path] || len(files) == 0 {
			continue
		}
		name := filepath.Join(filepath.Dir(files[0]), goFileName)
		src, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		h := readLauncherHeader(src)
		if len(h.order) == 0 {
			continue // not lucentc's, or one with no kernel hashes
		}
		also := ""
		if _, err := os.Stat(filepath.Join(filepath.Dir(name), goTestFileName)); err == nil {
			also = " and " + goTestFileName
		}
		errs = append(errs, fmt.Errorf("%s: launchers of %s, which %s no longer declares as kernels: delete the file%s",
			relFile(name), strings.Join(h.order, ", "), path, also))
	}
	return errs
}

// checkLaunchers is -check's look at the launcher files: for each one it
// finds (with -go, the files -go writes; without, a lucent_kernels.go beside
// the kernels), it names each kernel whose IR differs from the one the
// launcher was generated from, each kernel without a launcher, and each
// launcher whose kernel is gone, with the command that regenerates the file.
func checkLaunchers(cfg *config, units []*unit) []error {
	byFile := map[string][]*unit{}
	var files []string
	for _, u := range units {
		f, err := launcherFile(cfg, u)
		if err != nil {
			return []error{err}
		}
		if f == "" {
			continue
		}
		if _, ok := byFile[f]; !ok {
			files = append(files, f)
		}
		byFile[f] = append(byFile[f], u)
	}
	sort.Strings(files)
	var errs []error
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			if !cfg.goFile && os.IsNotExist(err) {
				continue // no launchers for this package
			}
			if !os.IsNotExist(err) {
				errs = append(errs, fmt.Errorf("lucentc: -check: %w", err))
			}
			continue // -go's comparison reports the missing file
		}
		h := readLauncherHeader(src)
		us := byFile[f]
		flags := h.flags
		if flags == "" {
			flags = flagLine(cfg, us[0])
		}
		pkgs := map[string]bool{}
		var pkgList []string
		for _, u := range us {
			if !pkgs[u.pkg.PkgPath] {
				pkgs[u.pkg.PkgPath] = true
				pkgList = append(pkgList, u.pkg.PkgPath)
			}
		}
		rerun := "rerun lucentc " + flags + " " + strings.Join(pkgList, " ")
		name := relFile(f)
		if len(h.order) == 0 {
			errs = append(errs, fmt.Errorf("%s: records no kernel hashes (written by an older lucentc, or by hand): %s", name, rerun))
			continue
		}
		seen := map[string]bool{}
		for _, u := range us {
			seen[u.k.Name] = true
			old, ok := h.hashes[u.k.Name]
			switch {
			case !ok:
				errs = append(errs, newKernelError(u.k, fmt.Errorf("has no launcher in %s: %s", name, rerun)))
			case old != irHash(u.ir):
				errs = append(errs, newKernelError(u.k, fmt.Errorf("changed since its launcher in %s was generated: %s", name, rerun)))
			}
		}
		for _, k := range h.order {
			if !seen[k] {
				errs = append(errs, fmt.Errorf("%s: kernel %s: has a launcher but is no longer a kernel: %s", name, k, rerun))
			}
		}
	}
	return errs
}

// orphanSPV is -check's look at the -o directory: it names each
// <pkg>.<Kernel>.spv there whose package is one the patterns matched but
// which is not one of the kernels compiled (units), so a kernel renamed or
// removed leaves no module behind that a program would still load. Files of
// other packages' names are left alone: a directory may collect the output
// of several runs.
func orphanSPV(cfg *config, pkgs map[string]*packages.Package, units []*unit) []error {
	if !cfg.check || cfg.outDir == "" {
		return nil
	}
	dir := cfg.outDir
	if cfg.dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(cfg.dir, dir)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.spv"))
	if err != nil {
		return []error{fmt.Errorf("lucentc: -check: -o %s: %w", dir, err)}
	}
	written := map[string]bool{}
	for _, u := range units {
		written[u.file] = true
	}
	paths := map[string][]string{} // package name -> the matched packages' paths
	for path, p := range pkgs {
		paths[p.Name] = append(paths[p.Name], path)
	}
	var errs []error
	for _, name := range names { // sorted by Glob
		base := filepath.Base(name)
		pkg, kernel, ok := strings.Cut(strings.TrimSuffix(base, ".spv"), ".")
		if !ok || written[base] || len(paths[pkg]) == 0 {
			continue
		}
		sort.Strings(paths[pkg])
		errs = append(errs, fmt.Errorf("%s: %s declares no kernel %s: delete the file", relFile(name), strings.Join(paths[pkg], ", "), kernel))
	}
	return errs
}
