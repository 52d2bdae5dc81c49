package ir

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// irVocabulary is what the serial form names by number: statement and
// expression tags, built-in ops, operators, type kinds and built-in
// variables, as a short digest of their names in order.
func irVocabulary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "stmt tags %d; expr tags %d;", irRayQuery, irShared)
	for op := Op(0); op < opCount; op++ {
		fmt.Fprintf(&b, " %s", ops[op].Name)
	}
	for _, names := range [][]string{unaryNames[:], binaryNames[:], kindNames[:], builtinVarNames[:]} {
		fmt.Fprintf(&b, "; %s", strings.Join(names, " "))
	}
	return fmt.Sprintf("%x", sha256.Sum256([]byte(b.String())))[:16]
}

// irVocabularies pins the vocabulary each IRVersion writes, so that a new
// statement, op or kind cannot reach the serial form without a new version
// (an older build then says the kernel is newer instead of failing on an
// unknown tag). Version 4 added acceleration structures and ray queries.
var irVocabularies = map[uint64]string{
	4: "6ac532a2072502c6",
}

func TestIRVersionPinsTheVocabulary(t *testing.T) {
	require.Equal(t, irVocabularies[IRVersion], irVocabulary(),
		"the serial form names statements, expressions, ops, kinds or built-ins IRVersion %d did not: bump IRVersion, say what the new version adds, and record the new digest here", IRVersion)
}
