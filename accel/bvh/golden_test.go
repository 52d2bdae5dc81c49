package bvh

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// treeHash is the SHA-256 of a hierarchy's nodes and primitive order, in
// the node layout's bytes.
func treeHash(nodes []Node, order []uint32) string {
	h := sha256.New()
	var b [4]byte
	w := func(u uint32) {
		binary.LittleEndian.PutUint32(b[:], u)
		h.Write(b[:])
	}
	for _, nd := range nodes {
		for _, f := range nd.Min {
			w(math.Float32bits(f))
		}
		w(nd.LeftFirst)
		for _, f := range nd.Max {
			w(math.Float32bits(f))
		}
		w(nd.Count)
	}
	for _, p := range order {
		w(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// The builders' hierarchies are pinned: a change to how they are made (the
// allocation, the parallel split, the binning) must give the same tree bit
// for bit, on every GOMAXPROCS, or change these hashes deliberately.
func TestBuildHashesPinned(t *testing.T) {
	tris := terrain(200) // 80,000 triangles: past the parallel thresholds
	boxes := make([]AABB, len(tris))
	for i := range tris {
		boxes[i] = tris[i].bounds()
	}
	want := map[string]string{
		"tris/sah":   "a97f25c2a8f60da2a3479a2dc9d7216b7802320148a3a78fd7e9c429643dda3f",
		"tris/fast":  "4b63573358957d9ef52c00284ef54e1cd46df8cbdcfdae85d598097f166fbd3e",
		"boxes/sah":  "a97f25c2a8f60da2a3479a2dc9d7216b7802320148a3a78fd7e9c429643dda3f",
		"boxes/fast": "3b80e792dc772278c89e02a13d4922a1e455b5fd4696b6983ba58a98b70a2144",
	}
	for _, p := range []int{1, 2, 3} {
		old := runtime.GOMAXPROCS(p)
		got := map[string]string{}
		for _, fast := range []bool{false, true} {
			name := "sah"
			if fast {
				name = "fast"
			}
			m, err := BuildTriangles(tris, Options{FastBuild: fast})
			require.NoError(t, err)
			got["tris/"+name] = treeHash(m.Nodes, m.Prims)
			m, err = BuildAABBs(boxes, Options{FastBuild: fast})
			require.NoError(t, err)
			got["boxes/"+name] = treeHash(m.Nodes, m.Prims)
		}
		runtime.GOMAXPROCS(old)
		require.Equal(t, want, got, "GOMAXPROCS=%d", p)
	}
}
