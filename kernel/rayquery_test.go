package kernel_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/kernel"
)

// candidates is a Tracer whose queries hand out n procedural candidates at
// t = 1, 2, …, committing per the visit's answers.
type candidates struct{ n int }

func (c candidates) TraceClosest(kernel.Ray) kernel.Hit { return kernel.Hit{} }
func (c candidates) TraceAny(kernel.Ray) bool           { return false }
func (c candidates) Query(r kernel.Ray, visit func(kernel.Candidate) (float32, bool, bool)) kernel.QueryResult {
	var res kernel.QueryResult
	for i := range c.n {
		t, commit, stop := visit(kernel.Candidate{Prim: uint32(i), Kind: kernel.HitProcedural, T: float32(i + 1)})
		if commit && (res.Hit.Kind == 0 || t < res.Hit.T) {
			res.Hit = kernel.Hit{Prim: uint32(i), T: t, Kind: kernel.HitProcedural}
		}
		if stop {
			break
		}
	}
	return res
}

// The CPU runner hands the loop each candidate and the tracer each
// decision: the nearest of several commits, termination, a Result taken
// after leaving the loop early.
func TestRunQuery(t *testing.T) {
	acc := kernel.NewAccel(candidates{n: 5})
	var seen []uint32
	var res, early kernel.QueryResult
	require.NoError(t, kernel.Run(context.Background(), kernel.Grid1(1, 1), func() {
		q := acc.Query(kernel.Ray{})
		for q.Next() {
			c := q.Candidate()
			seen = append(seen, c.Prim)
			q.CommitProcedural(10 - c.T)
			q.CommitProcedural(20 - c.T) // farther: the nearer commit counts
			q.CommitTriangle()           // a procedural candidate: nothing
			if c.Prim == 3 {
				q.Terminate()
			}
		}
		res = q.Result()
		p := acc.Query(kernel.Ray{})
		p.Next()
		p.CommitProcedural(0.5)
		early = p.Result()
	}))
	require.Equal(t, []uint32{0, 1, 2, 3}, seen)
	require.Equal(t, kernel.Hit{Prim: 3, T: 6, Kind: kernel.HitProcedural}, res.Hit)
	require.Equal(t, kernel.Hit{T: 0.5, Kind: kernel.HitProcedural}, early.Hit)
}

// A thread that panics inside a candidate loop leaves its traversal
// suspended; the traversal ends once the query is unreachable, so no
// goroutine is left behind.
func TestRunQueryPanicLeavesNothing(t *testing.T) {
	acc := kernel.NewAccel(candidates{n: 3})
	before := runtime.NumGoroutine()
	err := kernel.Run(context.Background(), kernel.Grid1(64, 256), func() {
		q := acc.Query(kernel.Ray{})
		for q.Next() {
			var s []int
			_ = s[q.Candidate().Prim+5] // out of range
		}
	})
	require.ErrorIs(t, err, kernel.ErrKernelPanic)
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	require.LessOrEqual(t, runtime.NumGoroutine(), before+2, "goroutines left behind by panicking candidate loops")
}
