#include "textflag.h"

// func binSSE(refs *ref, n int, b0, b1 *sseBins, p *sseParams)
//
// Each ref's centroid, bin index on the three axes at once, and the box
// update of its bin on each axis as one 4-wide min and one max; even refs
// go to b0, odd ones to b1. Lane 3 (a ref's id, read as a float: often a
// denormal, which the arithmetic would take slow paths on) is cleared.
TEXT ·binSSE(SB), NOSPLIT, $0-40
	MOVQ refs+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ b0+16(FP), DI
	MOVQ b1+24(FP), R8
	MOVQ p+32(FP), DX
	MOVUPS 0(DX), X8   // scale
	MOVUPS 16(DX), X9  // centroid box minimum
	MOVUPS 32(DX), X10 // the last bin, as a float
	MOVUPS 48(DX), X11 // 0.5
	MOVUPS 64(DX), X13 // all ones in lanes 0-2, zero in lane 3
	XORPS X12, X12

#define BIN1(off, bins) \
	MOVUPS off(SI), X0; \
	MOVUPS off+16(SI), X1; \
	ANDPS X13, X0; \
	ANDPS X13, X1; \
	MOVAPS X0, X2; \
	MULPS X11, X2; \
	MOVAPS X1, X3; \
	MULPS X11, X3; \
	ADDPS X3, X2; \
	SUBPS X9, X2; \
	MULPS X8, X2; \
	MAXPS X12, X2; \
	MINPS X10, X2; \
	CVTTPS2PL X2, X2; \
	MOVQ X2, AX; \
	PSHUFD $2, X2, X3; \
	MOVQ X3, BX; \
	MOVL AX, R9; \
	SHRQ $32, AX; \
	MOVL BX, BX; \
	INCL 6144(bins)(R9*4); \
	SHLQ $5, R9; \
	MOVUPS 0(bins)(R9*1), X4; \
	MINPS X0, X4; \
	MOVUPS X4, 0(bins)(R9*1); \
	MOVUPS 16(bins)(R9*1), X5; \
	MAXPS X1, X5; \
	MOVUPS X5, 16(bins)(R9*1); \
	INCL 6400(bins)(AX*4); \
	SHLQ $5, AX; \
	MOVUPS 2048(bins)(AX*1), X4; \
	MINPS X0, X4; \
	MOVUPS X4, 2048(bins)(AX*1); \
	MOVUPS 2064(bins)(AX*1), X5; \
	MAXPS X1, X5; \
	MOVUPS X5, 2064(bins)(AX*1); \
	INCL 6656(bins)(BX*4); \
	SHLQ $5, BX; \
	MOVUPS 4096(bins)(BX*1), X4; \
	MINPS X0, X4; \
	MOVUPS X4, 4096(bins)(BX*1); \
	MOVUPS 4112(bins)(BX*1), X5; \
	MAXPS X1, X5; \
	MOVUPS X5, 4112(bins)(BX*1)

pair:
	CMPQ CX, $2
	JLT  tail
	BIN1(0, DI)
	BIN1(32, R8)
	ADDQ $64, SI
	SUBQ $2, CX
	JMP  pair

tail:
	TESTQ CX, CX
	JEQ   done
	BIN1(0, DI)

done:
	RET

// func partSSE(refs *ref, n int, axisBit int, p *partParams) int
//
// partitionGo's loop: i from the front, j from the back; a ref at i that
// goes right is swapped with the one at j and j steps back, else i steps
// on. Returns i.
TEXT ·partSSE(SB), NOSPLIT, $0-40
	MOVQ refs+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ axisBit+16(FP), R10
	MOVQ p+24(FP), DX
	MOVQ SI, R11       // the first ref
	MOVQ CX, DI
	DECQ DI
	SHLQ $5, DI
	ADDQ SI, DI        // the last ref
	MOVUPS 0(DX), X8   // scale
	MOVUPS 16(DX), X9  // centroid box minimum
	MOVUPS 32(DX), X10 // cut+1
	MOVUPS 48(DX), X13 // lane mask
	MOVUPS 64(DX), X11 // left centroid box
	MOVUPS 80(DX), X12
	MOVUPS 96(DX), X14 // right centroid box
	MOVUPS 112(DX), X15
	MOVL $0x3f000000, AX
	MOVQ AX, X7
	PSHUFD $0, X7, X7  // 0.5

ploop:
	CMPQ SI, DI
	JHI  pdone
	MOVUPS 0(SI), X0
	MOVUPS 16(SI), X1
	MOVAPS X0, X2
	ANDPS X13, X2
	MULPS X7, X2
	MOVAPS X1, X3
	ANDPS X13, X3
	MULPS X7, X3
	ADDPS X3, X2       // centroid, lane 3 zero
	MOVAPS X2, X3
	SUBPS X9, X3
	MULPS X8, X3
	SUBPS X10, X3      // negative: left
	MOVMSKPS X3, AX
	TESTQ R10, AX
	JEQ  pright
	MINPS X2, X11
	MAXPS X2, X12
	ADDQ $32, SI
	JMP  ploop

pright:
	MINPS X2, X14
	MAXPS X2, X15
	MOVUPS 0(DI), X4
	MOVUPS 16(DI), X5
	MOVUPS X4, 0(SI)
	MOVUPS X5, 16(SI)
	MOVUPS X0, 0(DI)
	MOVUPS X1, 16(DI)
	SUBQ $32, DI
	JMP  ploop

pdone:
	MOVUPS X11, 64(DX)
	MOVUPS X12, 80(DX)
	MOVUPS X14, 96(DX)
	MOVUPS X15, 112(DX)
	SUBQ R11, SI
	SHRQ $5, SI
	MOVQ SI, ret+32(FP)
	RET

// HALFAREA sets X7 to AABB.halfArea of the box X0 (min) - X1 (max),
// the same float64 operations in the same order (the box is never
// inverted here); X2-X6 are clobbered.
#define HALFAREA \
	CVTPS2PD X0, X2; \
	CVTPS2PD X1, X3; \
	SUBPD X2, X3; \
	MOVHLPS X0, X4; \
	CVTSS2SD X4, X4; \
	MOVHLPS X1, X5; \
	CVTSS2SD X5, X5; \
	SUBSD X4, X5; \
	MOVAPD X3, X6; \
	UNPCKHPD X6, X6; \
	MOVAPD X3, X7; \
	MULSD X6, X7; \
	MOVAPD X6, X2; \
	MULSD X5, X2; \
	ADDSD X2, X7; \
	MOVAPD X5, X2; \
	MULSD X3, X2; \
	ADDSD X2, X7

// func sweepSSE(bs *[64]bin, ns *[64]uint32, nb int, sw *sweepScratch, out *sweepOut)
//
// sweepGo's two passes: right to left, the sums of the bins right of each
// cut; left to right, each cut's cost, the first cheapest kept.
TEXT ·sweepSSE(SB), NOSPLIT, $0-40
	MOVQ bs+0(FP), SI
	MOVQ ns+8(FP), BX
	MOVQ nb+16(FP), CX
	MOVQ sw+24(FP), DI
	MOVQ out+32(FP), DX
	MOVL $0x7f7fffff, AX
	MOVQ AX, X14
	PSHUFD $0, X14, X14 // MaxFloat32
	MOVL $0xff7fffff, AX
	MOVQ AX, X15
	PSHUFD $0, X15, X15 // -MaxFloat32

	MOVAPS X14, X0
	MOVAPS X15, X1
	XORQ R8, R8
	XORPS X7, X7
	MOVQ CX, R9
	DECQ R9

rloop:
	CMPQ R9, $0
	JLE  rdone
	MOVL (BX)(R9*4), AX
	TESTL AX, AX
	JEQ  rstore
	MOVQ R9, R10
	SHLQ $5, R10
	MOVUPS (SI)(R10*1), X2
	MINPS X2, X0
	MOVUPS 16(SI)(R10*1), X3
	MAXPS X3, X1
	ADDQ AX, R8
	HALFAREA

rstore:
	MOVSD X7, (DI)(R9*8)
	MOVQ R8, 512(DI)(R9*8)
	MOVQ R9, R10
	SHLQ $5, R10
	MOVUPS X0, 1024(DI)(R10*1)
	MOVUPS X1, 1040(DI)(R10*1)
	DECQ R9
	JMP  rloop

rdone:
	MOVAPS X14, X0
	MOVAPS X15, X1
	XORQ R8, R8
	XORQ R9, R9
	MOVQ CX, R11
	DECQ R11
	MOVSD 0(DX), X8
	MOVQ 8(DX), R12

lloop:
	CMPQ R9, R11
	JGE  ldone
	MOVL (BX)(R9*4), AX
	TESTL AX, AX
	JEQ  lnext
	MOVQ R9, R10
	SHLQ $5, R10
	MOVUPS (SI)(R10*1), X2
	MINPS X2, X0
	MOVUPS 16(SI)(R10*1), X3
	MAXPS X3, X1
	ADDQ AX, R8
	MOVQ 520(DI)(R9*8), R13
	TESTQ R13, R13
	JEQ  lnext
	HALFAREA
	CVTSQ2SD R8, X2
	MULSD X2, X7
	MOVSD 8(DI)(R9*8), X3
	CVTSQ2SD R13, X4
	MULSD X4, X3
	ADDSD X3, X7
	UCOMISD X8, X7
	JCC  lnext
	MOVSD X7, X8
	MOVQ R9, R12
	MOVAPS X0, X9
	MOVAPS X1, X10

lnext:
	INCQ R9
	JMP  lloop

ldone:
	MOVSD X8, 0(DX)
	MOVQ R12, 8(DX)
	MOVUPS X9, 16(DX)
	MOVUPS X10, 32(DX)
	RET
