//go:build !(armbe || arm64be || m68k || mips || mips64 || mips64p32 || ppc || ppc64 || s390 || s390x || shbe || sparc || sparc64)

package cpu

// lo32 is a register's low word as a float32: a row viewed through lo32s
// is read with one load a lane into a float register, where f32 of the
// row's uint64 is a load and a move (a float32 register's high word is
// zero, so writes still go through uf32). The low word is the first in
// memory here, the second on big-endian machines (lo32_be.go).
type lo32 struct {
	f float32
	_ uint32
}
