//go:build amd64 && !windows

#include "textflag.h"

// callTrampoline is entered from runtime.asmcgocall on the system stack with
// the System V ABI: DI points at a callFrame {fn, n, a[16]}. Arguments 1-6 go
// in DI, SI, DX, CX, R8, R9, the rest on the stack; the C function's return
// value is left in AX for asmcgocall to hand back.
TEXT callTrampoline<>(SB), NOSPLIT|NOFRAME, $0-0
	PUSHQ BP
	MOVQ  SP, BP
	MOVQ  DI, R11
	MOVQ  8(R11), CX
	SUBQ  $6, CX
	JLE   regs
	MOVQ  CX, AX
	SHLQ  $3, AX
	ADDQ  $15, AX
	ANDQ  $~15, AX
	SUBQ  AX, SP
	XORQ  DX, DX

copy:
	MOVQ 64(R11)(DX*8), AX
	MOVQ AX, (SP)(DX*8)
	INCQ DX
	CMPQ DX, CX
	JLT  copy

regs:
	MOVQ 16(R11), DI
	MOVQ 24(R11), SI
	MOVQ 32(R11), DX
	MOVQ 40(R11), CX
	MOVQ 48(R11), R8
	MOVQ 56(R11), R9
	MOVQ 0(R11), R10
	XORL AX, AX
	CALL R10
	MOVQ BP, SP
	POPQ BP
	RET

DATA ·callTrampolineABI0(SB)/8, $callTrampoline<>(SB)
GLOBL ·callTrampolineABI0(SB), NOPTR|RODATA, $8

// batchTrampoline is entered like callTrampoline with DI pointing at a
// batchHeader {frames, n}; it calls each callFrame (144 bytes) in order.
// BX and R12-R14 are callee-saved in the System V ABI, so they survive the
// calls and are restored before returning. The low byte of a frame's n is its
// argument count; a frame with frameChecked (0x100) set returns a VkResult,
// and a negative one stops the batch: the result is stored sign-extended in
// the frame's n (the frames are in the heap) and the number of frames left,
// that one included, is returned in AX. A batch that ran to the end
// returns 0.
TEXT batchTrampoline<>(SB), NOSPLIT|NOFRAME, $0-0
	PUSHQ BP
	MOVQ  SP, BP
	PUSHQ BX
	PUSHQ R12
	PUSHQ R13
	PUSHQ R14
	MOVQ  0(DI), R12
	MOVQ  8(DI), R13
	MOVQ  SP, R14

next:
	TESTQ R13, R13
	JZ    done
	MOVQ  R12, R11
	MOVQ  8(R11), CX
	ANDQ  $0xff, CX
	SUBQ  $6, CX
	JLE   bregs
	MOVQ  CX, AX
	SHLQ  $3, AX
	ADDQ  $15, AX
	ANDQ  $~15, AX
	SUBQ  AX, SP
	XORQ  DX, DX

bcopy:
	MOVQ 64(R11)(DX*8), AX
	MOVQ AX, (SP)(DX*8)
	INCQ DX
	CMPQ DX, CX
	JLT  bcopy

bregs:
	MOVQ 16(R11), DI
	MOVQ 24(R11), SI
	MOVQ 32(R11), DX
	MOVQ 40(R11), CX
	MOVQ 48(R11), R8
	MOVQ 56(R11), R9
	MOVQ 0(R11), R10
	XORL AX, AX
	CALL R10
	MOVQ R14, SP
	MOVQ 8(R12), CX
	TESTQ $0x100, CX
	JZ   step
	TESTL AX, AX
	JGE  step
	MOVLQSX AX, AX
	MOVQ AX, 8(R12)
	MOVQ R13, AX
	JMP  out

step:
	ADDQ $144, R12
	DECQ R13
	JMP  next

done:
	XORL AX, AX

out:
	POPQ R14
	POPQ R13
	POPQ R12
	POPQ BX
	POPQ BP
	RET

DATA ·batchTrampolineABI0(SB)/8, $batchTrampoline<>(SB)
GLOBL ·batchTrampolineABI0(SB), NOPTR|RODATA, $8
