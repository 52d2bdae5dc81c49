package device

import "fmt"

// Filter is how a sampled texture is filtered.
type Filter uint8

const (
	FilterPoint       Filter = iota // nearest texel, nearest mip
	FilterLinearPoint               // bilinear within a level, nearest mip
	FilterLinear                    // trilinear: bilinear within levels, linear between mips
	FilterAnisotropic               // anisotropic where the device has it, else trilinear
)

// Address is what a sampler reads outside [0, 1).
type Address uint8

const (
	AddressEdge   Address = iota // clamp to the edge texel
	AddressRepeat                // wrap around
	AddressMirror                // mirrored repeat
	AddressZero                  // transparent black (clamp to border)
)

// Sampler is a filter and an address mode; 4 × 4 = 16 samplers exist, so a
// backend may create them all once and index them with Index.
type Sampler struct {
	Filter  Filter
	Address Address
}

// Index returns a dense number 0..15 for the sampler.
func (s Sampler) Index() int { return int(s.Filter&3)*4 + int(s.Address&3) }

// Valid reports whether both fields are defined values.
func (s Sampler) Valid() bool { return s.Filter <= FilterAnisotropic && s.Address <= AddressZero }

func (s Sampler) String() string {
	f := [...]string{"point", "linear-point", "linear", "anisotropic"}
	a := [...]string{"edge", "repeat", "mirror", "zero"}
	if !s.Valid() {
		return fmt.Sprintf("Sampler(%d,%d)", s.Filter, s.Address)
	}
	return f[s.Filter] + "/" + a[s.Address]
}
