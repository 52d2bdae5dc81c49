package shadercache

import (
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

var benchSizes = []int{4 << 10, 16 << 10, 64 << 10}

// BenchmarkRead reads one typical entry again and again: from a Dir with a
// size cap (each hit also stamps the file for eviction), a Dir without one,
// a Memory, and — the baseline — a plain os.ReadFile of a file that size.
func BenchmarkRead(b *testing.B) {
	for _, size := range benchSizes {
		data := payload("bench", size)
		capped, _ := NewDir(b.TempDir(), WithLogger(quiet))
		uncapped, _ := NewDir(b.TempDir(), WithLogger(quiet), WithMaxSize(0))
		stores := []struct {
			name string
			s    BinaryIO
		}{{"dir", capped}, {"dir-nocap", uncapped}, {"memory", NewMemory(WithLogger(quiet))}}
		for _, st := range stores {
			if err := st.s.WriteInternal("kernel", data); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/%dKiB", st.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					got, ok, err := st.s.ReadInternal("kernel")
					if err != nil || !ok || len(got) != size {
						b.Fatal("miss", err)
					}
				}
			})
		}
		raw := filepath.Join(b.TempDir(), "raw")
		if err := os.WriteFile(raw, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("os.ReadFile/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				got, err := os.ReadFile(raw)
				if err != nil || len(got) != size {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWrite writes one typical entry again and again, against a plain
// os.WriteFile of the same bytes (which is neither atomic nor checked).
func BenchmarkWrite(b *testing.B) {
	for _, size := range benchSizes {
		data := payload("bench", size)
		capped, _ := NewDir(b.TempDir(), WithLogger(quiet))
		uncapped, _ := NewDir(b.TempDir(), WithLogger(quiet), WithMaxSize(0))
		stores := []struct {
			name string
			s    BinaryIO
		}{{"dir", capped}, {"dir-nocap", uncapped}, {"memory", NewMemory(WithLogger(quiet))}}
		for _, st := range stores {
			b.Run(fmt.Sprintf("%s/%dKiB", st.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					if err := st.s.WriteInternal("kernel", data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		raw := filepath.Join(b.TempDir(), "raw")
		b.Run(fmt.Sprintf("os.WriteFile/%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if err := os.WriteFile(raw, data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkChecksum compares the entry checksum, CRC-32C, with SHA-256.
func BenchmarkChecksum(b *testing.B) {
	data := payload("bench", 64<<10)
	b.Run("crc32c/64KiB", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			crc32.Checksum(data, castagnoli)
		}
	})
	b.Run("sha256/64KiB", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			sha256.Sum256(data)
		}
	})
}

func BenchmarkKeySum(b *testing.B) {
	hash := sha256.Sum256([]byte("kernel"))
	for b.Loop() {
		NewKey().
			Add("kernel", hash[:]).
			AddUint("codegen", 3).
			AddString("opt", "fast-math").
			AddSet("caps", "int64", "float16", "subgroup-arith", "bda").
			AddInt("subgroup-size", 8).
			Sum()
	}
}

// BenchmarkWriteNew writes a new entry each time — the common case for a
// cache, where a rewrite of the same key is rare — against os.WriteFile of
// new files.
func BenchmarkWriteNew(b *testing.B) {
	const size = 16 << 10
	data := payload("bench", size)
	d, _ := NewDir(b.TempDir(), WithLogger(quiet), WithMaxSize(1<<40))
	b.Run("dir/16KiB", func(b *testing.B) {
		b.SetBytes(size)
		i := 0
		for b.Loop() {
			i++
			if err := d.WriteShaderCache(keyFor(fmt.Sprint(i)), data); err != nil {
				b.Fatal(err)
			}
		}
	})
	raw := b.TempDir()
	b.Run("os.WriteFile/16KiB", func(b *testing.B) {
		b.SetBytes(size)
		i := 0
		for b.Loop() {
			i++
			if err := os.WriteFile(filepath.Join(raw, fmt.Sprint(i)), data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	})
}
