package codegen

import (
	"github.com/lucent-gpu/lucent/frontend/ir"
	"github.com/lucent-gpu/lucent/spirv"
)

func (g *gen) raySoft(op ir.Op, r rayOperands) spirv.ID {
	g.fail("software ray traversal")
	return 0
}
