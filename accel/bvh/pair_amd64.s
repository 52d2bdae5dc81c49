#include "textflag.h"

// func pairSSE(k *pairConsts, ns *[2]Node, tmax float32) (hits uint32, t0, t1 float32)
//
// The slab test of both children of a node at once, for a ray whose
// reciprocals are all finite (no slab distance is NaN): each child's min and
// max corner is one 4-wide load (lane 3, LeftFirst or Count, is cleared),
// the near and far distances of the three slabs are selected by the ray's
// sign mask, and the entry (with tmin in lane 3) and exit (+Inf in lane 3)
// are reduced for both children together. The arithmetic is box's, lane for
// lane; only the sign of a zero entry distance may differ, which no
// comparison sees.
TEXT ·pairSSE(SB), NOSPLIT, $0-36
	MOVQ k+0(FP), SI
	MOVQ ns+8(FP), DI
	MOVUPS 0(SI), X8   // origin
	MOVUPS 16(SI), X9  // reciprocal direction
	MOVUPS 32(SI), X10 // all ones in the lanes whose reciprocal is negative
	MOVUPS 48(SI), X11 // all ones in lanes 0-2
	MOVUPS 0(DI), X0   // child 0: min, LeftFirst
	MOVUPS 16(DI), X1  // child 0: max, Count
	MOVUPS 32(DI), X2  // child 1: min, LeftFirst
	MOVUPS 48(DI), X3  // child 1: max, Count
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
	MOVUPS 64(SI), X6
	ORPS X6, X0
	ORPS X6, X2
	MOVUPS 80(SI), X7
	ORPS X7, X1
	ORPS X7, X3

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

	// tf += |tf|·2γ₃ (NaN from −Inf), then tf = tf < tmax ? tf : tmax,
	// which also takes tmax for a NaN tf.
	MOVUPS 96(SI), X5  // the sign-clearing mask
	ANDPS X1, X5
	MOVUPS 112(SI), X6 // 2γ₃
	MULPS X6, X5
	ADDPS X5, X1
	MOVSS tmax+16(FP), X6
	SHUFPS $0, X6, X6
	MINPS X6, X1

	MOVAPS X0, X2
	CMPPS X1, X2, $2 // tn <= tf
	MOVMSKPS X2, AX
	ANDL $3, AX
	MOVL AX, hits+24(FP)
	MOVSS X0, t0+28(FP)
	SHUFPS $0x55, X0, X0
	MOVSS X0, t1+32(FP)
	RET
