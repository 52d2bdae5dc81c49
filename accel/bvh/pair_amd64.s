#include "textflag.h"

// func walkSSE(w *walker, ni int) int
//
// walkGo for a ray whose reciprocals are all finite (no slab distance is
// NaN), the two children of a node tested at once: each child's min and
// max corner is one 4-wide load (lane 3, LeftFirst or Count, is cleared),
// the near and far distances of the three slabs are selected by the ray's
// sign mask, and the entry (with tmin in lane 3) and exit (+Inf in lane 3)
// are reduced for both children together. The arithmetic is box's, lane for
// lane; only the sign of a zero entry distance may differ, which no
// comparison sees.
//
// Registers: SI the ray's constants, R8 the nodes, R10 their count, R11 the
// stack, CX its depth, DX the node, X14 the cull distance in every lane.
// Prefetch what child off of the pair at AX leads to: an interior child's
// children (64 bytes, on up to two cache lines), a leaf's first triangles.
#define PREFETCH(off) \
	MOVL off+12(AX), R9; \
	MOVL off+28(AX), R14; \
	LEAQ (R9)(R9*8), DX; \
	SHLQ $5, R9; \
	ADDQ R8, R9; \
	LEAQ (R13)(DX*4), DX; \
	TESTL R14, R14; \
	CMOVQNE DX, R9; \
	PREFETCHT0 (R9); \
	PREFETCHT0 64(R9)

TEXT ·walkSSE(SB), NOSPLIT, $0-24
	MOVQ w+0(FP), R12
	MOVQ ni+8(FP), DX
	MOVQ 0(R12), SI
	MOVQ 8(R12), R8
	MOVQ 16(R12), R10
	MOVQ 24(R12), R11
	MOVQ 32(R12), CX
	MOVSS 40(R12), X14
	SHUFPS $0, X14, X14
	MOVUPS 0(SI), X8   // origin
	MOVUPS 16(SI), X9  // reciprocal direction
	MOVUPS 32(SI), X10 // all ones in the lanes whose reciprocal is negative
	MOVUPS 48(SI), X11 // all ones in lanes 0-2
	MOVUPS 64(SI), X12 // tmin in lane 3
	MOVUPS 80(SI), X13 // +Inf in lane 3
	TESTQ DX, DX
	JS pop

visit:
	CMPQ DX, R10
	JAE corrupt
	MOVQ DX, AX
	SHLQ $5, AX
	ADDQ R8, AX
	MOVL 28(AX), BX // Count
	TESTL BX, BX
	JNE leaf
	MOVL 12(AX), DI // LeftFirst: the first child
	LEAQ 1(DI), BX
	CMPQ BX, R10
	JAE corrupt
	MOVQ DI, AX
	SHLQ $5, AX
	ADDQ R8, AX
	MOVUPS 0(AX), X0  // child 0: min, LeftFirst
	MOVUPS 16(AX), X1 // child 0: max, Count
	MOVUPS 32(AX), X2 // child 1: min, LeftFirst
	MOVUPS 48(AX), X3 // child 1: max, Count
	MOVQ 48(R12), R13
	PREFETCH(0)
	PREFETCH(32)
	ANDPS X11, X0
	ANDPS X11, X1
	ANDPS X11, X2
	ANDPS X11, X3
	SUBPS X8, X0
	SUBPS X8, X1
	SUBPS X8, X2
	SUBPS X8, X3
	MULPS X9, X0
	MULPS X9, X1
	MULPS X9, X2
	MULPS X9, X3

	// Swap near and far where the reciprocal is negative.
	MOVAPS X0, X4
	XORPS X1, X4
	ANDPS X10, X4
	XORPS X4, X0
	XORPS X4, X1
	MOVAPS X2, X5
	XORPS X3, X5
	ANDPS X10, X5
	XORPS X5, X2
	XORPS X5, X3

	// Lane 3 (zero now): tmin for the entry, +Inf for the exit.
	ORPS X12, X0
	ORPS X12, X2
	ORPS X13, X1
	ORPS X13, X3

	// Entries: lanes 0 and 1 of X0 become max over the lanes of X0, X2.
	MOVAPS X0, X4
	UNPCKLPS X2, X4 // a0 b0 a1 b1
	UNPCKHPS X2, X0 // a2 b2 a3 b3
	MAXPS X4, X0
	MOVHLPS X0, X4
	MAXPS X4, X0

	// Exits: the same with min, of X1 and X3.
	MOVAPS X1, X5
	UNPCKLPS X3, X5
	UNPCKHPS X3, X1
	MINPS X5, X1
	MOVHLPS X1, X5
	MINPS X5, X1

	// tf += |tf|·2γ₃ (NaN from −Inf), then tf = tf < cull ? tf : cull,
	// which also takes the cull distance for a NaN tf.
	MOVUPS 96(SI), X5  // the sign-clearing mask
	ANDPS X1, X5
	MOVUPS 112(SI), X6 // 2γ₃
	MULPS X6, X5
	ADDPS X5, X1
	MINPS X14, X1

	MOVAPS X0, X2
	CMPPS X1, X2, $2 // tn <= tf
	MOVMSKPS X2, AX
	ANDL $3, AX
	CMPL AX, $1
	JEQ first
	CMPL AX, $2
	JEQ second
	CMPL AX, $3
	JNE pop

	// Both: push the farther (the second on a tie), visit the nearer.
	CMPQ CX, $64
	JAE corrupt
	MOVAPS X0, X3
	SHUFPS $0x55, X3, X3 // the second's entry
	UCOMISS X3, X0       // the first's entry above the second's?
	JHI nearsecond
	MOVL BX, (R11)(CX*8)
	MOVSS X3, 4(R11)(CX*8)
	INCQ CX
	MOVQ DI, DX
	JMP visit

nearsecond:
	MOVL DI, (R11)(CX*8)
	MOVSS X0, 4(R11)(CX*8)
	INCQ CX
	MOVQ BX, DX
	JMP visit

first:
	MOVQ DI, DX
	JMP visit

second:
	MOVQ BX, DX
	JMP visit

pop:
	TESTQ CX, CX
	JEQ done
	DECQ CX
	MOVSS 4(R11)(CX*8), X1
	UCOMISS X1, X14 // cull ≥ t (false for a NaN cull distance)
	JCS pop
	MOVL (R11)(CX*8), DX
	JMP visit

leaf:
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
