#include "textflag.h"

// func walkWideSSE(w *wideWalker, ni int) int
//
// walkWideGo for a ray whose reciprocals are all finite (no slab distance
// is NaN): the four lanes of a wide node in one pass, each axis's min and
// max planes one 4-wide load each, the near and far plane of each axis
// chosen by the ray's signs (wideWalker.planes: box's swap). The arithmetic
// is box's, lane for lane; only the sign of a zero entry distance may
// differ, and entry distances are only compared. The lanes entered are pushed in lane
// order, each sunk below the entries of no greater distance, so the top of
// the stack is the nearest (the lower lane on a tie) and the order is
// walkWideGo's; the walk then pops it.
//
// Registers: SI the ray's constants, R8 the nodes, R10 their count, R11 the
// stack, CX its depth, DX the node, X8-X10 the origin and X11-X13 the
// reciprocal in every lane, X14 the cull distance, X15 tmin.
// SLABS leaves one axis's near distances in X2 and far ones in X1; near
// and far are the offsets in the walker of the planes' offsets.
#define SLABS(near, far, o, inv) \
	MOVQ near(R12), R9; \
	MOVUPS (AX)(R9*1), X2; \
	MOVQ far(R12), R9; \
	MOVUPS (AX)(R9*1), X1; \
	SUBPS o, X2; \
	SUBPS o, X1; \
	MULPS inv, X2; \
	MULPS inv, X1

TEXT ·walkWideSSE(SB), NOSPLIT, $0-24
	MOVQ w+0(FP), R12
	MOVQ ni+8(FP), DX
	MOVQ 0(R12), SI
	MOVQ 8(R12), R8
	MOVQ 16(R12), R10
	MOVQ 24(R12), R11
	MOVQ 32(R12), CX
	MOVSS 40(R12), X14
	SHUFPS $0, X14, X14
	MOVSS 0(SI), X8
	SHUFPS $0, X8, X8
	MOVSS 4(SI), X9
	SHUFPS $0, X9, X9
	MOVSS 8(SI), X10
	SHUFPS $0, X10, X10
	MOVSS 16(SI), X11
	SHUFPS $0, X11, X11
	MOVSS 20(SI), X12
	SHUFPS $0, X12, X12
	MOVSS 24(SI), X13
	SHUFPS $0, X13, X13
	MOVSS 76(SI), X15 // tmin, lane 3 of pairConsts.tmin
	SHUFPS $0, X15, X15
	TESTQ DX, DX
	JS pop

visit:
	CMPQ DX, R10
	JAE corrupt
	MOVQ DX, AX
	SHLQ $7, AX
	ADDQ R8, AX
	// Entry X6 = max(tmin, near x, near y, near z), exit X7 = min(far x,
	// far y, far z).
	SLABS(64, 72, X8, X11)
	MOVAPS X15, X6
	MAXPS X2, X6
	MOVAPS X1, X7
	SLABS(80, 88, X9, X12)
	MAXPS X2, X6
	MINPS X1, X7
	SLABS(96, 104, X10, X13)
	MAXPS X2, X6
	MINPS X1, X7

	// tf += |tf|·2γ₃ (NaN from −Inf), then tf = tf < cull ? tf : cull,
	// which also takes the cull distance for a NaN tf.
	MOVUPS 96(SI), X0
	ANDPS X7, X0
	MOVUPS 112(SI), X1
	MULPS X1, X0
	ADDPS X0, X7
	MINPS X14, X7

	MOVAPS X6, X5
	CMPPS X7, X5, $2 // tn <= tf
	MOVMSKPS X5, BX
	ANDL 116(AX), BX // the lanes in use
	JEQ pop
	MOVUPS X6, 48(R12)
	MOVQ CX, R13 // the node's first push

lanes:
	BSFL BX, R9
	BTRL R9, BX
	CMPQ CX, $100 // wideStackSize
	JAE corrupt
	MOVL 96(AX)(R9*4), DI // an interior lane's wide node
	MOVBLZX 112(AX)(R9*1), R14
	TESTL R14, R14
	JEQ inner
	// A leaf lane: its entry is node·4 + lane with leafBit set.
	LEAQ (R9)(DX*4), DI
	ORL $0x80000000, DI
	JMP entry

inner:
	// An interior lane: prefetch its wide node's two cache lines.
	MOVQ DI, R14
	SHLQ $7, R14
	ADDQ R8, R14
	PREFETCHT0 (R14)
	PREFETCHT0 64(R14)

entry:
	MOVSS 48(R12)(R9*4), X0
	MOVQ CX, R14

sink:
	CMPQ R14, R13
	JEQ put
	MOVSS -4(R11)(R14*8), X1
	UCOMISS X1, X0 // the new entry's distance below the one under it?
	JCS put
	MOVQ -8(R11)(R14*8), R9
	MOVQ R9, (R11)(R14*8)
	DECQ R14
	JMP sink

put:
	MOVL DI, (R11)(R14*8)
	MOVSS X0, 4(R11)(R14*8)
	INCQ CX
	TESTL BX, BX
	JNE lanes

pop:
	TESTQ CX, CX
	JEQ done
	DECQ CX
	MOVSS 4(R11)(CX*8), X1
	UCOMISS X1, X14 // cull ≥ t (false for a NaN cull distance)
	JCS pop
	MOVL (R11)(CX*8), DX
	TESTL DX, DX
	JS leaf
	JMP visit

leaf:
	ANDL $0x7fffffff, DX
	MOVQ CX, 32(R12)
	MOVQ DX, ret+16(FP)
	RET

done:
	MOVQ $0, 32(R12)
	MOVQ $-1, ret+16(FP)
	RET

corrupt:
	MOVQ $-2, ret+16(FP)
	RET
