package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUpToDate fails when kernel/vector_gen.go differs from what vecgen writes.
func TestUpToDate(t *testing.T) {
	want, err := generate()
	require.NoError(t, err)
	got, err := os.ReadFile("../../vector_gen.go")
	require.NoError(t, err)
	require.True(t, string(want) == string(got), "kernel/vector_gen.go is stale: run go generate ./kernel")
}
