//go:build armbe || arm64be || m68k || mips || mips64 || mips64p32 || ppc || ppc64 || s390 || s390x || shbe || sparc || sparc64

package cpu

// lo32 is a register's low word as a float32 (lo32_le.go), the second in
// memory on a big-endian machine.
type lo32 struct {
	_ uint32
	f float32
}
