package spirv

import (
	"encoding/binary"
	"slices"
)

// GeneratorID is the generator word written in module headers (0: not registered with Khronos).
const GeneratorID = 0

// Words returns the module as SPIR-V words, laid out as section 2.4 of the
// specification requires, or the first error recorded while building.
func (b *Builder) Words() ([]uint32, error) {
	if err := b.Validate(); err != nil {
		return nil, err
	}
	var fnWords []uint32
	for _, f := range b.functions {
		fnWords = f.appendWords(fnWords)
	}
	ifaces, err := b.interfaces()
	if err != nil {
		return nil, err
	}
	if b.err != nil {
		return nil, b.err
	}

	out := make([]uint32, 0, 5+len(b.globals)+len(fnWords)+len(b.annotations)+len(b.names)+64)
	out = append(out, MagicNumber, uint32(b.version), GeneratorID, uint32(b.nextID), 0)
	for _, c := range b.caps {
		out = appendInst(out, OpCapability, uint32(c))
	}
	for _, e := range b.exts {
		out = appendInst(out, OpExtension, stringWords(e)...)
	}
	out = append(out, b.imports...)
	out = appendInst(out, OpMemoryModel, uint32(b.addressing), uint32(b.memoryModel))
	for i, ep := range b.entryPoints {
		ops := append([]uint32{uint32(ep.model), uint32(ep.fn)}, stringWords(ep.name)...)
		out = appendInst(out, OpEntryPoint, append(ops, ids(ifaces[i])...)...)
	}
	out = append(out, b.modes...)
	out = append(out, b.debug...)
	out = append(out, b.names...)
	out = append(out, b.annotations...)
	out = append(out, b.globals...)
	out = append(out, fnWords...)
	return out, nil
}

// Bytes returns the module as little-endian bytes.
func (b *Builder) Bytes() ([]byte, error) {
	w, err := b.Words()
	if err != nil {
		return nil, err
	}
	return WordsToBytes(w), nil
}

// WordsToBytes encodes words little-endian.
func WordsToBytes(words []uint32) []byte {
	out := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out
}

// interfaces returns the interface ids of each entry point: the global
// variables its static call tree uses (SPIR-V ≥ 1.4; before, only Input and
// Output ones), plus those the caller named, without duplicates.
func (b *Builder) interfaces() ([][]ID, error) {
	uses := map[ID]*fnUses{}
	for _, f := range b.functions {
		u, err := b.scanFunction(f)
		if err != nil {
			return nil, err
		}
		uses[f.id] = u
	}
	all := b.version >= MakeVersion(1, 4)
	out := make([][]ID, len(b.entryPoints))
	for i, ep := range b.entryPoints {
		seen := map[ID]bool{}
		var list []ID
		add := func(id ID) {
			if !seen[id] {
				seen[id] = true
				list = append(list, id)
			}
		}
		for _, id := range ep.iface {
			add(id)
		}
		var globals []ID
		visited := map[ID]bool{}
		var walk func(fn ID)
		walk = func(fn ID) {
			if visited[fn] {
				return
			}
			visited[fn] = true
			u := uses[fn]
			if u == nil {
				return
			}
			globals = append(globals, u.globals...)
			for _, c := range u.calls {
				walk(c)
			}
		}
		walk(ep.fn)
		slices.Sort(globals)
		for _, g := range globals {
			sc := b.globalSC[g]
			if all || sc == StorageClassInput || sc == StorageClassOutput {
				add(g)
			}
		}
		out[i] = list
	}
	return out, nil
}

type fnUses struct {
	globals []ID
	calls   []ID
}

// scanFunction finds the global variables f refers to and the functions it calls.
func (b *Builder) scanFunction(f *Function) (*fnUses, error) {
	u := &fnUses{}
	seen := map[ID]bool{}
	var operands []Operand
	var sel ID
	litWords := func() (int, error) { return max(1, int(b.ScalarWidth(b.TypeOf(sel))+31)/32), nil }
	scan := func(words []uint32) error {
		for i := 0; i < len(words); {
			n := int(words[i] >> 16)
			op := Op(words[i])
			if n == 0 || i+n > len(words) {
				return b.errorf("function %d: bad instruction word count", f.id)
			}
			sel = 0
			if op == OpSwitch && n > 1 {
				sel = ID(words[i+1])
			}
			var err error
			operands, err = decodeOperandsInto(operands, op, words[i+1:i+n], litWords)
			if err != nil {
				return b.errorf("function %d: %v", f.id, err)
			}
			for j, o := range operands {
				switch o.Kind {
				case KindIdRef, KindIdResultType, KindIdScope, KindIdMemorySemantics:
				default:
					continue
				}
				id := o.ID()
				if !b.isDefined(id) {
					return b.errorf("function %d: %v uses %%%d, which no instruction defines", f.id, op, id)
				}
				if o.Kind != KindIdRef {
					continue
				}
				if op == OpFunctionCall && j == 2 {
					u.calls = append(u.calls, id)
				}
				if _, ok := b.globalSC[id]; ok && !seen[id] {
					seen[id] = true
					u.globals = append(u.globals, id)
				}
			}
			i += n
		}
		return nil
	}
	for _, blk := range f.created {
		for _, p := range blk.phis {
			for k := 0; k < len(p.incoming); k += 2 {
				id := ID(p.incoming[k])
				if !b.isDefined(id) {
					return nil, b.errorf("function %d: phi %d uses %%%d, which no instruction defines", f.id, p.id, id)
				}
				if _, ok := b.globalSC[id]; ok && !seen[id] {
					seen[id] = true
					u.globals = append(u.globals, id)
				}
			}
		}
		if err := scan(blk.words); err != nil {
			return nil, err
		}
	}
	if err := scan(f.vars); err != nil {
		return nil, err
	}
	return u, nil
}
