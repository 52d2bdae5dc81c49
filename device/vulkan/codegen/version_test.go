package codegen_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device/vulkan/codegen"
	"github.com/lucent-gpu/lucent/internal/programs"
	"github.com/lucent-gpu/lucent/spirv"
)

// versionDigestFile records the codegen Version and a digest of the words
// it emits for every kernel of internal/programs under the option sets of
// digestOptions.
var versionDigestFile = filepath.Join("testdata", "version-digest")

// digestOptions are the option sets the digest covers: each switches a
// path of codegen the others leave out.
var digestOptions = []codegen.Options{
	{Env: spirv.EnvVulkan1_2},
	{Env: spirv.EnvVulkan1_2, Names: true},
	{Env: spirv.EnvVulkan1_2, FloatAtomicAdd: true},
	{Env: spirv.EnvVulkan1_2, NativeBindlessTextures: true},
	{Env: spirv.EnvVulkan1_2, NativeRayQuery: true},
	{Env: spirv.EnvVulkan1_2, SoftAccelByAddress: true},
	{Env: spirv.EnvVulkan1_2, Checked: true, SubgroupVote: true},
}

// wordsDigest hashes the words of every kernel of internal/programs under
// every option set, or the error codegen gave.
func wordsDigest(t *testing.T) string {
	all := programs.All()
	names := make([]string, 0, len(all))
	for name := range all {
		names = append(names, name)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, name := range names {
		f, err := all[name]()
		require.NoError(t, err, name)
		for i, fo := range digestOptions {
			fmt.Fprintf(h, "%s/%d:", name, i)
			w, err := codegen.Emit(f, fo)
			if err != nil {
				fmt.Fprintf(h, "error %v;", err)
				continue
			}
			for _, x := range w {
				h.Write(binary.LittleEndian.AppendUint32(nil, x))
			}
			h.Write([]byte{';'})
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestVersionCoversTheWords holds codegen.Version to the words codegen
// emits: the SPIR-V cache keys entries by Version (device/vulkan), so a
// change to the words without a bump would serve a warm cache's old words
// — and the bugs they had — to a development build. When the digest of the
// corpus's words changes, Version must change with it; run go test
// -update to record the pair.
func TestVersionCoversTheWords(t *testing.T) {
	got := fmt.Sprintf("%d %s\n", codegen.Version, wordsDigest(t))
	if *update {
		require.NoError(t, os.WriteFile(versionDigestFile, []byte(got), 0o644))
		return
	}
	b, err := os.ReadFile(versionDigestFile)
	require.NoError(t, err, "run go test -update to create it")
	want := string(b)
	if want == got {
		return
	}
	var wv uint64
	var wd string
	_, err = fmt.Sscanf(want, "%d %s", &wv, &wd)
	require.NoError(t, err, "%s: want \"<Version> <digest>\"", versionDigestFile)
	gd := strings.Fields(got)[1]
	switch {
	case wv == codegen.Version && wd != gd:
		t.Fatalf("codegen emits other words than at Version %d (digest %s, recorded %s): bump codegen.Version, "+
			"or SPIR-V caches serve the old words, then run go test -update", wv, gd, wd)
	default:
		t.Fatalf("%s records Version %d, codegen is at %d: run go test -update", versionDigestFile, wv, codegen.Version)
	}
}
