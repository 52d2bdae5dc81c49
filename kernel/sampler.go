package kernel

import (
	"fmt"
	"math"
)

// Filter is how a sampler blends texels; the values are those of the device
// package's Filter.
type Filter uint8

const (
	// FilterPoint takes the nearest texel.
	FilterPoint Filter = iota
	// FilterLinearPoint blends four texels bilinearly on level 0 (the mip
	// filter, point, has no effect: textures have one level).
	FilterLinearPoint
	// FilterLinear blends four texels bilinearly on level 0.
	FilterLinear
	// FilterAnisotropic samples as FilterLinear on level 0.
	FilterAnisotropic
)

// Address is what a sampler reads outside [0, 1); the values are those of
// the device package's Address.
type Address uint8

const (
	// AddressEdge clamps texel coordinates to the edge.
	AddressEdge Address = iota
	// AddressRepeat wraps texel coordinates around.
	AddressRepeat
	// AddressMirror repeats the texture mirrored every other time.
	AddressMirror
	// AddressZero reads the border outside: transparent black, with alpha 1
	// for textures without an alpha channel.
	AddressZero
)

// Sampler says how Sample filters and addresses a texture. It mirrors the
// device package's Sampler field for field, so a host passes the same
// values to kernel.SetBindlessTexture2D and device.BindlessArray.EmplaceTexture.
type Sampler struct {
	Filter  Filter
	Address Address
}

// Bilinear is the sampler of Texture2D.Sample: bilinear, clamped to the edge.
var Bilinear = Sampler{Filter: FilterLinear, Address: AddressEdge}

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

// address maps texel coordinate i of an n-texel axis into [0, n) as mode a
// says, and reports whether the tap lies inside as far as AddressZero is
// concerned.
func address(a Address, i, n int64) (int64, bool) {
	switch a {
	case AddressRepeat:
		return (i%n + n) % n, true
	case AddressMirror:
		m := (i%(2*n) + 2*n) % (2 * n)
		if m >= n {
			m = 2*n - 1 - m
		}
		return m, true
	}
	return min(max(i, 0), n-1), a != AddressZero || i >= 0 && i < n
}

// texelIndex is the integer texel coordinate of floor(p): for coordinates
// past the int32 range (and NaN) it gives what a device's float-to-int
// conversion typically gives, the most negative int32, so every address mode
// stays on the texture.
func texelIndex(p float32) int64 {
	f := math.Floor(float64(p))
	if !(f >= math.MinInt32 && f <= math.MaxInt32) {
		return math.MinInt32
	}
	return int64(f)
}

// sample2D filters texture t (of width w, height h, texels read by fetch at
// in-range coordinates) at normalised uv as s says: texel centres at +0.5,
// nearest for FilterPoint, else bilinear on level 0, the border transparent
// black with alpha 1 when the texture has no alpha channel.
func sample2D(w, h uint32, fetch func(x, y uint32) Float4, border Float4, s Sampler, uv Float2) Float4 {
	px, py := uv.X*float32(w), uv.Y*float32(h)
	point := s.Filter == FilterPoint
	if !point {
		px, py = px-0.5, py-0.5
	}
	fx, fy := float32(math.Floor(float64(px))), float32(math.Floor(float64(py)))
	i0, j0 := texelIndex(px), texelIndex(py)
	tap := func(i, j int64) Float4 {
		x, okx := address(s.Address, i, int64(w))
		y, oky := address(s.Address, j, int64(h))
		if !okx || !oky {
			return border
		}
		return fetch(uint32(x), uint32(y))
	}
	if point {
		return tap(i0, j0)
	}
	ax, ay := px-fx, py-fy
	mix := func(a, b Float4, t float32) Float4 {
		return Float4{a.X*(1-t) + b.X*t, a.Y*(1-t) + b.Y*t, a.Z*(1-t) + b.Z*t, a.W*(1-t) + b.W*t}
	}
	top := mix(tap(i0, j0), tap(i0+1, j0), ax)
	bottom := mix(tap(i0, j0+1), tap(i0+1, j0+1), ax)
	return mix(top, bottom, ay)
}
