package shadercache

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// baseKey builds the key of a typical kernel compile.
func baseKey() *KeyBuilder {
	return NewKey().
		Add("kernel", []byte{0xde, 0xad, 0xbe, 0xef}).
		AddUint("codegen", 3).
		AddString("opt", "fast-math").
		AddBool("debug-info", false).
		AddSet("caps", "int64", "float16", "subgroup-arith").
		AddInt("subgroup-size", 8)
}

func TestKeyDeterministic(t *testing.T) {
	require.Equal(t, baseKey().Sum(), baseKey().Sum())
	k := baseKey().Sum()
	require.Len(t, k.String(), 64)
	back, err := ParseKey(k.String())
	require.NoError(t, err)
	require.Equal(t, k, back)
}

func TestKeySensitivity(t *testing.T) {
	base := baseKey().Sum()
	variants := map[string]*KeyBuilder{
		"kernel hash": NewKey().Add("kernel", []byte{0xde, 0xad, 0xbe, 0xee}).AddUint("codegen", 3).AddString("opt", "fast-math").
			AddBool("debug-info", false).AddSet("caps", "int64", "float16", "subgroup-arith").AddInt("subgroup-size", 8),
		"codegen version": NewKey().Add("kernel", []byte{0xde, 0xad, 0xbe, 0xef}).AddUint("codegen", 4).AddString("opt", "fast-math").
			AddBool("debug-info", false).AddSet("caps", "int64", "float16", "subgroup-arith").AddInt("subgroup-size", 8),
		"option": NewKey().Add("kernel", []byte{0xde, 0xad, 0xbe, 0xef}).AddUint("codegen", 3).AddString("opt", "precise").
			AddBool("debug-info", false).AddSet("caps", "int64", "float16", "subgroup-arith").AddInt("subgroup-size", 8),
		"flag": NewKey().Add("kernel", []byte{0xde, 0xad, 0xbe, 0xef}).AddUint("codegen", 3).AddString("opt", "fast-math").
			AddBool("debug-info", true).AddSet("caps", "int64", "float16", "subgroup-arith").AddInt("subgroup-size", 8),
		"capability dropped": NewKey().Add("kernel", []byte{0xde, 0xad, 0xbe, 0xef}).AddUint("codegen", 3).AddString("opt", "fast-math").
			AddBool("debug-info", false).AddSet("caps", "int64", "float16").AddInt("subgroup-size", 8),
		"capability added": NewKey().Add("kernel", []byte{0xde, 0xad, 0xbe, 0xef}).AddUint("codegen", 3).AddString("opt", "fast-math").
			AddBool("debug-info", false).AddSet("caps", "int64", "float16", "subgroup-arith", "bda").AddInt("subgroup-size", 8),
		"device limit": NewKey().Add("kernel", []byte{0xde, 0xad, 0xbe, 0xef}).AddUint("codegen", 3).AddString("opt", "fast-math").
			AddBool("debug-info", false).AddSet("caps", "int64", "float16", "subgroup-arith").AddInt("subgroup-size", 32),
		"part renamed": NewKey().Add("kernel", []byte{0xde, 0xad, 0xbe, 0xef}).AddUint("codegen", 3).AddString("options", "fast-math").
			AddBool("debug-info", false).AddSet("caps", "int64", "float16", "subgroup-arith").AddInt("subgroup-size", 8),
		"part missing": NewKey().Add("kernel", []byte{0xde, 0xad, 0xbe, 0xef}).AddUint("codegen", 3).
			AddBool("debug-info", false).AddSet("caps", "int64", "float16", "subgroup-arith").AddInt("subgroup-size", 8),
		"extra part": baseKey().AddString("opt", "unroll"),
	}
	seen := map[Key]string{base: "base"}
	for name, b := range variants {
		t.Run(name, func(t *testing.T) {
			k := b.Sum()
			require.NotEqual(t, base, k)
		})
		k := b.Sum()
		require.NotContains(t, seen, k, "%s collides with %s", name, seen[k])
		seen[k] = name
	}
}

func TestKeyOrderRules(t *testing.T) {
	t.Run("different names commute", func(t *testing.T) {
		a := NewKey().Add("kernel", []byte{1}).AddUint("codegen", 2).AddString("opt", "x").Sum()
		b := NewKey().AddString("opt", "x").AddUint("codegen", 2).Add("kernel", []byte{1}).Sum()
		require.Equal(t, a, b)
	})
	t.Run("values under one name keep their order", func(t *testing.T) {
		a := NewKey().AddString("pass", "inline").AddString("pass", "dce").Sum()
		b := NewKey().AddString("pass", "dce").AddString("pass", "inline").Sum()
		require.NotEqual(t, a, b)
	})
	t.Run("sets ignore order and repeats", func(t *testing.T) {
		a := NewKey().AddSet("caps", "a", "b", "c").Sum()
		b := NewKey().AddSet("caps", "c", "a", "b", "a").Sum()
		require.Equal(t, a, b)
	})
	t.Run("a set is not its elements' list", func(t *testing.T) {
		a := NewKey().AddSet("caps", "a", "b").Sum()
		b := NewKey().AddString("caps", "a").AddString("caps", "b").Sum()
		require.NotEqual(t, a, b)
	})
}

func TestKeyEncodingIsUnambiguous(t *testing.T) {
	pairs := []struct {
		name string
		a, b *KeyBuilder
	}{
		{"uint vs bytes", NewKey().AddUint("n", 1), NewKey().Add("n", []byte{1, 0, 0, 0, 0, 0, 0, 0})},
		{"string vs bytes", NewKey().AddString("n", "ab"), NewKey().Add("n", []byte("ab"))},
		{"uint vs int", NewKey().AddUint("n", 5), NewKey().AddInt("n", 5)},
		{"bool vs bytes", NewKey().AddBool("n", true), NewKey().Add("n", []byte{1})},
		{"boundary moves between name and value", NewKey().AddString("ab", "c"), NewKey().AddString("a", "bc")},
		{"boundary moves between values", NewKey().AddString("n", "ab").AddString("n", "c"), NewKey().AddString("n", "a").AddString("n", "bc")},
		{"boundary moves inside a set", NewKey().AddSet("n", "ab", "c"), NewKey().AddSet("n", "a", "bc")},
		{"empty value vs no value", NewKey().AddString("n", ""), NewKey()},
		{"empty set vs no set", NewKey().AddSet("n"), NewKey()},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			require.NotEqual(t, p.a.Sum(), p.b.Sum())
		})
	}
}

func TestKeyBuilderStaysUsable(t *testing.T) {
	b := NewKey().AddString("a", "1")
	first := b.Sum()
	require.Equal(t, first, b.Sum(), "Sum must not change the builder")
	require.NotEqual(t, first, b.AddString("b", "2").Sum())
	var zero KeyBuilder
	require.Equal(t, NewKey().Sum(), zero.Sum())
}

func TestParseKeyRejects(t *testing.T) {
	for _, s := range []string{"", "abc", "zz" + baseKey().Sum().String()[2:], baseKey().Sum().String() + "00"} {
		_, err := ParseKey(s)
		require.Error(t, err, "%q", s)
	}
}
