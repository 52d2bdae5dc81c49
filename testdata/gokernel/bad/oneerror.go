package bad

import "github.com/lucent-gpu/lucent/kernel"

// One error per cause: a type with no device layout is reported where it is
// first met (here the buffer parameter), and nothing that uses it later (a
// helper's result, a pointer parameter, an array of it, a pointer local, a
// range over it) reports again or names the stand-in the compiler used.

type Record struct {
	Kind uint32
	Name string
}

func mkRecord(k uint32) Record { return Record{Kind: k} }

func kindOf(r Record) uint32 { return r.Kind }

func pairOf() (Record, uint32) { return Record{}, 1 }

func bumpKind(r *Record) { r.Kind++ }

//lucent:kernel block=64
func OneError(out []float32, recs []Record) {
	i := kernel.DispatchID().X
	a := mkRecord(i).Kind
	out[i] = float32(a)
	b, c := pairOf()
	out[i] += float32(b.Kind + c)
	var arr [3]Record
	arr[1].Kind = 2
	out[i] += float32(arr[1].Kind)
	var r Record
	bumpKind(&r)
	out[i] += float32(kindOf(r))
	p := &r
	out[i] += float32(p.Kind)
	for _, x := range arr {
		out[i] += float32(x.Kind)
	}
	out[i] += float32(recs[0].Kind)
}

// Quiet is rejected too (its cause was reported above), without a message
// of its own.
//
//lucent:kernel block=64
func Quiet(out []float32) {
	out[0] = float32(kindOf(mkRecord(1)))
}
