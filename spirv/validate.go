package spirv

import "fmt"

func (b *Builder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBuild, fmt.Sprintf(format, args...))
}

// Validate checks the module's structure as far as the builder knows it: the
// first recorded error, entry points naming functions of this module, every
// function having blocks, every block ending in exactly one terminator,
// branch targets and phi parents being blocks of the same function, and ids
// below the bound. It is no substitute for spirv-val (package spvtools) but
// names the culprit in builder terms.
func (b *Builder) Validate() error {
	if b.err != nil {
		return b.err
	}
	for _, f := range b.forward {
		return b.errorf("forward pointer %d (%v) was never defined (DefineForwardPointer)", f.id, f.sc)
	}
	for _, ep := range b.entryPoints {
		if b.fnByID[ep.fn] == nil {
			return b.errorf("entry point %q: %d is not a function of this module", ep.name, ep.fn)
		}
		for _, id := range ep.iface {
			if _, ok := b.globalSC[id]; !ok {
				return b.errorf("entry point %q: interface id %d is not a global variable", ep.name, id)
			}
		}
	}
	for _, f := range b.functions {
		if len(f.created) == 0 {
			return b.errorf("function %d has no blocks", f.id)
		}
		labels := map[ID]bool{}
		for _, blk := range f.created {
			if labels[blk.label] {
				return b.errorf("function %d: label %d used by two blocks", f.id, blk.label)
			}
			labels[blk.label] = true
		}
		for _, blk := range f.created {
			if !blk.terminated {
				return b.errorf("function %d: block %d has no terminator", f.id, blk.label)
			}
			for _, p := range blk.phis {
				for k := 1; k < len(p.incoming); k += 2 {
					if !labels[ID(p.incoming[k])] {
						return b.errorf("phi %d: parent %d is not a block of function %d", p.id, p.incoming[k], f.id)
					}
				}
			}
			if err := b.checkTargets(f, blk, labels); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkTargets checks the label operands of the block's merge and branch instructions.
func (b *Builder) checkTargets(f *Function, blk *Block, labels map[ID]bool) error {
	w := blk.words
	for i := 0; i < len(w); {
		n := int(w[i] >> 16)
		if n == 0 || i+n > len(w) {
			return b.errorf("block %d: bad instruction word count", blk.label)
		}
		op := Op(w[i])
		var targets []uint32
		switch op {
		case OpBranch:
			targets = w[i+1 : i+2]
		case OpBranchConditional:
			targets = w[i+2 : i+4]
		case OpSelectionMerge:
			targets = w[i+1 : i+2]
		case OpLoopMerge:
			targets = w[i+1 : i+3]
		case OpSwitch:
			targets = []uint32{w[i+2]}
			if width := b.ScalarWidth(b.TypeOf(ID(w[i+1]))); width > 0 {
				step := 1 + int(width+31)/32
				for k := i + 3 + step - 1; k < i+n; k += step {
					targets = append(targets, w[k])
				}
			}
		}
		for _, t := range targets {
			if !labels[ID(t)] {
				return b.errorf("block %d: %v targets %d, not a block of function %d", blk.label, op, t, f.id)
			}
		}
		i += n
	}
	return nil
}
