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
