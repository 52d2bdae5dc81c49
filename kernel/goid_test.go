package kernel

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGoroutineIdentity checks both identities: stable within a goroutine,
// distinct between goroutines alive at the same time.
func TestGoroutineIdentity(t *testing.T) {
	for name, id := range map[string]func() uintptr{"fast": goroutineID, "stack": func() uintptr { return uintptr(goid()) }} {
		t.Run(name, func(t *testing.T) {
			const n = 64
			ids := make([]uintptr, n)
			var start, done sync.WaitGroup
			start.Add(n)
			done.Add(n)
			release := make(chan struct{})
			for i := range n {
				go func() {
					defer done.Done()
					a := id()
					start.Done()
					<-release // all alive at once
					require.Equal(t, a, id(), "identity changed within a goroutine")
					ids[i] = a
				}()
			}
			start.Wait()
			close(release)
			done.Wait()
			seen := map[uintptr]bool{}
			for _, v := range ids {
				require.NotZero(t, v)
				require.False(t, seen[v], "two live goroutines share identity %#x", v)
				seen[v] = true
			}
		})
	}
}

// BenchmarkGoroutineID compares the two ways of identifying a goroutine.
func BenchmarkGoroutineID(b *testing.B) {
	var sink uintptr
	b.Run("descriptor", func(b *testing.B) {
		for b.Loop() {
			sink += goroutineID()
		}
	})
	b.Run("stack-trace", func(b *testing.B) {
		for b.Loop() {
			sink += uintptr(goid())
		}
	})
	_ = sink
}
