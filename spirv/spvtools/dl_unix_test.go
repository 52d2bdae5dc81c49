//go:build darwin || linux || freebsd || netbsd

package spvtools

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDlopenSaysWhy: a library that does not load is an error with the
// loader's reason, however the goroutines move between threads (dlerror is
// per thread: "tried /path ()" was the message a moved goroutine got).
func TestDlopenSaysWhy(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				if _, err := dlopen("/nonexistent/libnothing.so"); err == nil || err.Error() == "" {
					select {
					case errs <- err:
					default:
					}
					return
				}
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.Fail(t, "dlopen of a missing library", "error %v, want the loader's reason", err)
	}
}
