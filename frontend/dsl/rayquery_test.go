package dsl_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/frontend/dsl"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// A candidate op that escapes its loop's body (a Query kept past Accel.Query)
// is refused by Validate, naming the op; inside the body it is accepted.
func TestQueryOpsOutsideTheLoop(t *testing.T) {
	build := func(escape bool) error {
		_, err := dsl.Kernel1D(64, func(k *dsl.K, scene dsl.Accel, out dsl.Buf[dsl.QueryResult]) {
			var kept dsl.Query
			o := dsl.V3(dsl.F(0), dsl.F(0), dsl.F(0))
			res := scene.Query(o, dsl.F(0), dsl.V3(dsl.F(0), dsl.F(0), dsl.F(1)), dsl.F(10), dsl.U(0xff), func(q dsl.Query) {
				kept = q
				q.CommitProcedural(dsl.F(1))
			})
			if escape {
				kept.Terminate()
			}
			out.Write(dsl.U(0), res)
		}, "scene", "out")
		return err
	}
	require.NoError(t, build(false))
	err := build(true)
	require.ErrorIs(t, err, ir.ErrInvalid)
	require.ErrorContains(t, err, "ray_terminate outside a ray query's candidate loop")
}
