package shadercache

import (
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
	"time"
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

// BenchmarkSideBySide times the store and the plain os call on alternate
// iterations of one loop, so that load from other processes on a shared
// machine falls on both alike, and reports each one's ns/op and their
// ratio. "read" is a hit on a capped Dir against os.ReadFile; "write" a new
// entry against os.WriteFile of a new file; "rewrite" replaces one entry
// against os.WriteFile truncating one file.
func BenchmarkSideBySide(b *testing.B) {
	for _, size := range benchSizes {
		data := payload("bench", size)
		b.Run(fmt.Sprintf("read/%dKiB", size>>10), func(b *testing.B) {
			d, _ := NewDir(b.TempDir(), WithLogger(quiet))
			raw := filepath.Join(b.TempDir(), "raw")
			if d.WriteInternal("kernel", data) != nil || os.WriteFile(raw, data, 0o644) != nil {
				b.Fatal("setup")
			}
			sideBySide(b, func(int) error {
				_, ok, err := d.ReadInternal("kernel")
				if !ok {
					return fmt.Errorf("miss")
				}
				return err
			}, func(int) error {
				_, err := os.ReadFile(raw)
				return err
			})
		})
		b.Run(fmt.Sprintf("write/%dKiB", size>>10), func(b *testing.B) {
			d, _ := NewDir(b.TempDir(), WithLogger(quiet), WithMaxSize(1<<40))
			raw := b.TempDir()
			sideBySide(b, func(i int) error {
				return d.WriteShaderCache(keyFor(fmt.Sprint(i)), data)
			}, func(i int) error {
				return os.WriteFile(filepath.Join(raw, fmt.Sprint(i)), data, 0o644)
			})
		})
		b.Run(fmt.Sprintf("rewrite/%dKiB", size>>10), func(b *testing.B) {
			d, _ := NewDir(b.TempDir(), WithLogger(quiet))
			raw := filepath.Join(b.TempDir(), "raw")
			sideBySide(b, func(int) error {
				return d.WriteInternal("kernel", data)
			}, func(int) error {
				return os.WriteFile(raw, data, 0o644)
			})
		})
	}
}

func sideBySide(b *testing.B, store, plain func(i int) error) {
	var tStore, tPlain time.Duration
	timed := func(f func(int) error, i int, total *time.Duration) {
		t0 := time.Now()
		if err := f(i); err != nil {
			b.Fatal(err)
		}
		*total += time.Since(t0)
	}
	i := 0
	for b.Loop() {
		i++
		// Alternate which goes first, so neither gains from the other's
		// warm caches.
		if i%2 == 0 {
			timed(store, i, &tStore)
			timed(plain, i, &tPlain)
		} else {
			timed(plain, i, &tPlain)
			timed(store, i, &tStore)
		}
	}
	b.ReportMetric(float64(tStore.Nanoseconds())/float64(i), "store-ns/op")
	b.ReportMetric(float64(tPlain.Nanoseconds())/float64(i), "os-ns/op")
	b.ReportMetric(float64(tStore)/float64(tPlain), "store/os")
}

// BenchmarkRecordRead reads a typical 64 KiB SPIR-V record and decodes it,
// as Compile does on a hit, timing the read and the decode (the record's
// checksum and header checks) separately in each iteration: the decode's
// share is what record checksums add to a hit. "dir" is a Dir (which checks
// its own entry too), "memory" stands for a user's store that checks nothing.
func BenchmarkRecordRead(b *testing.B) {
	const size = 64 << 10
	key := keyFor("bench")
	rec := AppendRecord(nil, RecordShader, key.String(), payload("bench", size))
	dir, _ := NewDir(b.TempDir(), WithLogger(quiet))
	for _, st := range []struct {
		name string
		s    BinaryIO
	}{{"dir", dir}, {"memory", NewMemory(WithLogger(quiet))}} {
		if err := st.s.WriteShaderCache(key, rec); err != nil {
			b.Fatal(err)
		}
		b.Run(st.name+"/64KiB", func(b *testing.B) {
			b.SetBytes(size)
			var tRead, tDecode time.Duration
			n := 0
			for b.Loop() {
				n++
				t0 := time.Now()
				got, ok, err := st.s.ReadShaderCache(key)
				t1 := time.Now()
				if err != nil || !ok {
					b.Fatal("miss", err)
				}
				if _, err := DecodeRecord(got, RecordShader, key.String()); err != nil {
					b.Fatal(err)
				}
				tRead += t1.Sub(t0)
				tDecode += time.Since(t1)
			}
			b.ReportMetric(float64(tRead.Nanoseconds())/float64(n), "read-ns/op")
			b.ReportMetric(float64(tDecode.Nanoseconds())/float64(n), "decode-ns/op")
			b.ReportMetric(float64(tDecode)/float64(tRead), "decode/read")
		})
	}
}
