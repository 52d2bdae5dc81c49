// Command vkgen generates the Go Vulkan bindings of package vk from the
// Khronos registry (vk.xml).
//
// It writes, into -out (the vk package directory):
//
//	constants_gen.go    API, version and extension constants
//	types_gen.go        handles, enums and bitmasks (with String), named base types
//	structs_gen.go      structs and unions with the exact C layout
//	commands_gen.go     the command tables and a wrapper per command
//	layout_gen_test.go  unsafe.Sizeof/Alignof/Offsetof of every struct
//	testdata/layout_gen.c  the C program printing the same figures
//
// The output depends only on the registry: running it twice gives identical
// bytes. Types from headers the registry does not describe (the video codec
// "StdVideo" types) are only usable behind pointers; structs and commands
// that need them by value are left out.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	registry := flag.String("registry", "/usr/share/vulkan/registry/vk.xml", "path of vk.xml")
	out := flag.String("out", ".", "output directory (the vk package)")
	verbose := flag.Bool("v", false, "list the required structs and commands left out")
	flag.Parse()
	if err := run(*registry, *out, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "vkgen:", err)
		os.Exit(1)
	}
}

func run(registry, out string, verbose bool) error {
	r, raw, err := readRegistry(registry)
	if err != nil {
		return err
	}
	m, err := buildModel(r, raw)
	if err != nil {
		return err
	}
	if verbose {
		defer m.reportSkipped()
	}
	files := map[string]func() (*file, error){
		"constants_gen.go":   m.emitConstants,
		"types_gen.go":       m.emitTypes,
		"structs_gen.go":     m.emitStructs,
		"commands_gen.go":    m.emitCommands,
		"layout_gen_test.go": m.emitLayoutGo,
	}
	for _, name := range []string{"constants_gen.go", "types_gen.go", "structs_gen.go", "commands_gen.go", "layout_gen_test.go"} {
		f, err := files[name]()
		if err != nil {
			return err
		}
		src, err := gofmt(name, f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, name), src, 0o644); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(out, "testdata"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "testdata", "layout_gen.c"), m.emitLayoutC(), 0o644)
}

// reportSkipped lists what the registry requires but Go cannot express.
func (m *model) reportSkipped() {
	for _, name := range m.typeOrder {
		ti := m.types[name]
		if m.reqTypes[name] && (ti.Kind == kStruct || ti.Kind == kUnion) && !m.valueOK(name) {
			fmt.Fprintln(os.Stderr, "vkgen: left out struct", name)
		}
	}
	for _, c := range m.skipped {
		fmt.Fprintln(os.Stderr, "vkgen: left out command", c)
	}
}
