package cpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/frontend/ir"
)

// texture is a 2D or 3D texture: each mip level's texels tightly packed,
// x fastest, then y, then z.
type texture struct {
	desc      device.TextureDesc
	levels    [][]byte
	destroyed atomic.Bool // bindless slots holding it refuse dispatches
}

func (d *Device) CreateTexture(desc device.TextureDesc) (device.Handle, error) {
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.exit()
	if !desc.Format.Valid() {
		return 0, fmt.Errorf("cpu: CreateTexture: %w: format %v", device.ErrInvalidArgument, desc.Format)
	}
	if desc.Dim != 2 && desc.Dim != 3 || desc.Width == 0 || desc.Height == 0 || desc.Depth == 0 || desc.Levels == 0 || desc.Dim == 2 && desc.Depth != 1 {
		return 0, fmt.Errorf("cpu: CreateTexture: %w: %dD %dx%dx%d with %d level(s)", device.ErrInvalidArgument, desc.Dim, desc.Width, desc.Height, desc.Depth, desc.Levels)
	}
	lim := uint32(maxTexture2D)
	if desc.Dim == 3 {
		lim = maxTexture3D
	}
	if desc.Width > lim || desc.Height > lim || desc.Depth > lim || desc.Levels > 32 {
		return 0, fmt.Errorf("cpu: CreateTexture: %w: %dx%dx%d (%d levels) is beyond the backend's %d per side", device.ErrUnsupported, desc.Width, desc.Height, desc.Depth, desc.Levels, lim)
	}
	var size uint64
	for l := range desc.Levels {
		e := desc.LevelExtent(l)
		size += uint64(e[0]) * uint64(e[1]) * uint64(e[2]) * uint64(desc.Format.PixelSize())
	}
	if err := fitsHost(size); err != nil {
		return 0, fmt.Errorf("cpu: CreateTexture %v %dx%dx%d: %w", desc.Format, desc.Width, desc.Height, desc.Depth, err)
	}
	t := &texture{desc: desc}
	for l := range desc.Levels {
		e := desc.LevelExtent(l)
		t.levels = append(t.levels, make([]byte, uint64(e[0])*uint64(e[1])*uint64(e[2])*uint64(desc.Format.PixelSize())))
	}
	return d.add(t), nil
}

func (d *Device) DestroyTexture(h device.Handle) error {
	t, err := remove[*texture](d, h, "texture")
	if err == nil {
		t.destroyed.Store(true)
	}
	return err
}

// texelOffset refuses a buffer↔texture copy whose buffer offset is not a
// multiple of the texel size and of 4, as the Vulkan backend does
// (vkCmdCopyBufferToImage's bufferOffset): a program making one runs on
// neither backend.
func texelOffset(t *texture, off uint64) error {
	if px := uint64(t.desc.Format.PixelSize()); off%px != 0 || off%4 != 0 {
		return fmt.Errorf("%w: buffer offset %d of a %v copy is not a multiple of the texel size %d and of 4", device.ErrInvalidArgument, off, t.desc.Format, px)
	}
	return nil
}

// region resolves a region of texture h: the level's bytes, its extent, the
// region's origin and size.
func (d *Device) region(h device.Handle, rg device.Region) (*texture, [3]uint32, [3]uint32, error) {
	t, err := lookup[*texture](d, h, "texture")
	if err != nil {
		return nil, [3]uint32{}, [3]uint32{}, err
	}
	if rg.Level >= t.desc.Levels {
		return nil, [3]uint32{}, [3]uint32{}, fmt.Errorf("%w: level %d of the %d-level texture %d", device.ErrInvalidArgument, rg.Level, t.desc.Levels, h)
	}
	ext := t.desc.LevelExtent(rg.Level)
	size := rg.Size
	if size == [3]uint32{} {
		if rg.Origin != [3]uint32{} {
			return nil, [3]uint32{}, [3]uint32{}, fmt.Errorf("%w: a whole-level region with origin %v", device.ErrInvalidArgument, rg.Origin)
		}
		size = ext
	}
	for i := range 3 {
		if size[i] == 0 || rg.Origin[i] > ext[i] || size[i] > ext[i]-rg.Origin[i] {
			return nil, [3]uint32{}, [3]uint32{}, fmt.Errorf("%w: region at %v of size %v out of level %d (%v) of texture %d", device.ErrInvalidArgument, rg.Origin, size, rg.Level, ext, h)
		}
	}
	return t, rg.Origin, size, nil
}

// copyRegion copies between a level's texels and packed bytes.
func copyRegion(t *texture, level uint32, origin, size [3]uint32, packed []byte, toTexture bool) {
	px := uint64(t.desc.Format.PixelSize())
	ext := t.desc.LevelExtent(level)
	lv := t.levels[level]
	row := uint64(size[0]) * px
	o := uint64(0)
	for z := range uint64(size[2]) {
		for y := range uint64(size[1]) {
			at := (((uint64(origin[2])+z)*uint64(ext[1])+uint64(origin[1])+y)*uint64(ext[0]) + uint64(origin[0])) * px
			if toTexture {
				copy(lv[at:at+row], packed[o:o+row])
			} else {
				copy(packed[o:o+row], lv[at:at+row])
			}
			o += row
		}
	}
}

func regionBytes(t *texture, size [3]uint32) uint64 {
	return uint64(size[0]) * uint64(size[1]) * uint64(size[2]) * uint64(t.desc.Format.PixelSize())
}

func (d *Device) prepareTexture(c device.Command) (func() error, error) {
	switch c := c.(type) {
	case *device.TextureUpload:
		t, org, size, err := d.region(c.Texture, c.Region)
		if err != nil {
			return nil, err
		}
		if n := regionBytes(t, size); uint64(len(c.Data)) != n {
			return nil, fmt.Errorf("%w: %d bytes of data for a %d-byte region of texture %d", device.ErrInvalidArgument, len(c.Data), n, c.Texture)
		}
		data := append([]byte(nil), c.Data...)
		return func() error { copyRegion(t, c.Region.Level, org, size, data, true); return nil }, nil
	case *device.TextureDownload:
		t, org, size, err := d.region(c.Texture, c.Region)
		if err != nil {
			return nil, err
		}
		if n := regionBytes(t, size); uint64(len(c.Data)) != n {
			return nil, fmt.Errorf("%w: %d bytes of data for a %d-byte region of texture %d", device.ErrInvalidArgument, len(c.Data), n, c.Texture)
		}
		out, level := c.Data, c.Region.Level
		return func() error { copyRegion(t, level, org, size, out, false); return nil }, nil
	case *device.BufferToTexture:
		t, org, size, err := d.region(c.Texture, c.Region)
		if err != nil {
			return nil, err
		}
		if err := texelOffset(t, c.Offset); err != nil {
			return nil, err
		}
		src, err := span(d, c.Buffer, c.Offset, regionBytes(t, size), "buffer")
		if err != nil {
			return nil, err
		}
		level := c.Region.Level
		return func() error { copyRegion(t, level, org, size, src, true); return nil }, nil
	case *device.TextureToBuffer:
		t, org, size, err := d.region(c.Texture, c.Region)
		if err != nil {
			return nil, err
		}
		if err := texelOffset(t, c.Offset); err != nil {
			return nil, err
		}
		dst, err := span(d, c.Buffer, c.Offset, regionBytes(t, size), "buffer")
		if err != nil {
			return nil, err
		}
		level := c.Region.Level
		return func() error { copyRegion(t, level, org, size, dst, false); return nil }, nil
	case *device.TextureCopy:
		src, err := lookup[*texture](d, c.Src, "texture")
		if err != nil {
			return nil, fmt.Errorf("source: %w", err)
		}
		dst, err := lookup[*texture](d, c.Dst, "texture")
		if err != nil {
			return nil, fmt.Errorf("destination: %w", err)
		}
		if c.SrcLevel >= src.desc.Levels || c.DstLevel >= dst.desc.Levels {
			return nil, fmt.Errorf("%w: levels %d and %d of %d- and %d-level textures", device.ErrInvalidArgument, c.SrcLevel, c.DstLevel, src.desc.Levels, dst.desc.Levels)
		}
		if src.desc.Format != dst.desc.Format || src.desc.LevelExtent(c.SrcLevel) != dst.desc.LevelExtent(c.DstLevel) {
			return nil, fmt.Errorf("%w: copy of a %v %v level into a %v %v level", device.ErrInvalidArgument,
				src.desc.Format, src.desc.LevelExtent(c.SrcLevel), dst.desc.Format, dst.desc.LevelExtent(c.DstLevel))
		}
		s, t := src.levels[c.SrcLevel], dst.levels[c.DstLevel]
		return func() error { copy(t, s); return nil }, nil
	}
	return nil, fmt.Errorf("%w: command %T", device.ErrUnsupported, c)
}

// texView is a storage texture argument: one level.
type texView struct {
	data   []byte
	ext    [3]uint32
	format device.Format
	label  string
	tex    *texture // the texture and level viewed (the race detector's shadow)
	level  uint32
}

// readTexel reads texel i as 4 leaves of the kernel's texel type (f32, u32
// or i32 bits): missing channels read (0, 0, 0, 1).
func (v *texView) readTexel(i uint64, d []uint64) {
	f := v.format
	n, bits := f.Channels(), f.Bits()
	px := uint64(f.PixelSize())
	b := v.data[i*px : (i+1)*px]
	one := uint64(1)
	if f.Kind() == device.Float || f.Kind() == device.Unorm || f.Kind() == device.Snorm {
		one = uf32(1)
	}
	d[0], d[1], d[2], d[3] = 0, 0, 0, one
	for c := range n {
		var raw uint64
		switch bits {
		case 8:
			raw = uint64(b[c])
		case 16:
			raw = uint64(binary.LittleEndian.Uint16(b[2*c:]))
		default:
			raw = uint64(binary.LittleEndian.Uint32(b[4*c:]))
		}
		switch f.Kind() {
		case device.Unorm:
			d[c] = uf32(float32(float64(raw) / float64(uint64(1)<<bits-1)))
		case device.Snorm:
			s := int64(raw<<(64-bits)) >> (64 - bits)
			d[c] = uf32(float32(max(float64(s)/float64(int64(1)<<(bits-1)-1), -1)))
		case device.Float:
			if bits == 16 {
				d[c] = uf32(ir.HalfToFloat32(uint16(raw)))
			} else {
				d[c] = raw
			}
		case device.Sint:
			d[c] = uint64(uint32(int32(int64(raw<<(64-bits)) >> (64 - bits))))
		default:
			d[c] = raw
		}
	}
}

// writeTexel stores 4 leaves into texel i, converting to the format
// (normalised channels clamped and rounded to nearest, integers truncated to
// the channel's width, halves rounded to nearest even).
func (v *texView) writeTexel(i uint64, d []uint64) {
	f := v.format
	n, bits := f.Channels(), f.Bits()
	px := uint64(f.PixelSize())
	b := v.data[i*px : (i+1)*px]
	for c := range n {
		var raw uint64
		switch f.Kind() {
		case device.Unorm:
			x := math.Min(math.Max(float64(f32(d[c])), 0), 1)
			if f32(d[c]) != f32(d[c]) {
				x = 0
			}
			raw = uint64(math.RoundToEven(x * float64(uint64(1)<<bits-1)))
		case device.Snorm:
			x := math.Min(math.Max(float64(f32(d[c])), -1), 1)
			if f32(d[c]) != f32(d[c]) {
				x = 0
			}
			raw = uint64(int64(math.RoundToEven(x * float64(int64(1)<<(bits-1)-1))))
		case device.Float:
			raw = d[c]
			if bits == 16 {
				raw = uint64(ir.Float32ToHalf(f32(d[c])))
			}
		default:
			raw = d[c]
		}
		switch bits {
		case 8:
			b[c] = byte(raw)
		case 16:
			binary.LittleEndian.PutUint16(b[2*c:], uint16(raw))
		default:
			binary.LittleEndian.PutUint32(b[4*c:], uint32(raw))
		}
	}
}

// sample filters the level at normalised coordinates uv (f32 bits) as the
// Vulkan backend's codegen does on storage textures: bilinear (trilinear in
// 3D) from the 4 (8) texels around uv*size-0.5, clamped to the edge, blended
// along x, then y, then z with mix(a, b, t) = a*(1-t) + b*t in float32.
// Each texel fetched goes to rt (the race detector's).
func (v *texView) sample(dim int, uv []uint64, d []uint64, rt raceTouch) {
	var c0, c1 [3]uint64
	var frac [3]float32
	for i := range dim {
		size := float32(v.ext[i])
		pos := f32(uv[i])*size - 0.5
		fl := float32(math.Floor(float64(pos)))
		frac[i] = pos - fl
		i0 := int64(math.MinInt32)
		if fl >= math.MinInt32 && fl <= math.MaxInt32 {
			i0 = int64(fl)
		}
		hi := int64(v.ext[i]) - 1
		c0[i], c1[i] = uint64(min(max(i0, 0), hi)), uint64(min(max(i0+1, 0), hi))
	}
	var corners [8][4]uint64
	n := 1 << dim
	for c := range n {
		var p [3]uint64
		for i := range dim {
			p[i] = c0[i]
			if c>>i&1 == 1 {
				p[i] = c1[i]
			}
		}
		i := (p[2]*uint64(v.ext[1])+p[1])*uint64(v.ext[0]) + p[0]
		rt.texel(i)
		v.readTexel(i, corners[c][:])
	}
	for i := range dim {
		w := frac[i]
		for j := range n >> (i + 1) {
			a, b := &corners[2*j], &corners[2*j+1]
			var m [4]uint64
			for ch := range 4 {
				m[ch] = uf32(f32(a[ch])*(1-w) + f32(b[ch])*w)
			}
			corners[j] = m
		}
	}
	copy(d[:4], corners[0][:])
}

// textureOp compiles texture_read, texture_write, texture_size and
// texture_sample on a storage texture argument (checked: a coordinate
// outside the level faults).
func (c *compiler) textureOp(e *ir.Call) ex {
	r, ok := e.Args[0].(*ir.Ref)
	if !ok || r.Var.Kind != ir.VarArg {
		refuse(unsupported("%s on a texture that is not a kernel argument", e.Op))
	}
	k := c.params[r.Var]
	dim := r.Var.Type.Len()
	if e.Op == ir.OpTextureSize {
		return ex{n: dim, v: func(t *th, d []uint64) {
			v := t.run.texs[k]
			for i := range dim {
				d[i] = uint64(v.ext[i])
			}
		}}
	}
	co, ce := c.agg(c.expr(e.Args[1]))
	var rsite uint32 // the race detector's
	if c.race {
		rsite = c.newResourceSite(r.Var, e.Op == ir.OpTextureWrite, nil)
	}
	if e.Op == ir.OpTextureSample {
		if rsite != 0 {
			return ex{n: 4, v: func(t *th, d []uint64) {
				ce(t)
				t.run.texs[k].sample(dim, t.r[co:co+dim], d, raceTouch{t: t, site: rsite})
			}}
		}
		return ex{n: 4, v: func(t *th, d []uint64) { ce(t); t.run.texs[k].sample(dim, t.r[co:co+dim], d, raceTouch{}) }}
	}
	var at [3]site // each coordinate's
	for i := range dim {
		at[i] = c.argSite(r.Var)
		at[i].what += ", coordinate " + "xyz"[i:i+1]
	}
	index := func(t *th) (*texView, uint64) {
		ce(t)
		v := t.run.texs[k]
		var p [3]uint64
		for i := range dim {
			p[i] = t.r[co+i]
			if p[i] >= uint64(v.ext[i]) {
				at[i].fault(device.FaultTextureCoord, p[i], uint64(v.ext[i]))
			}
		}
		i := (p[2]*uint64(v.ext[1])+p[1])*uint64(v.ext[0]) + p[0]
		if rsite != 0 {
			raceTouch{t: t, site: rsite}.texel(i)
		}
		return v, i
	}
	if e.Op == ir.OpTextureRead {
		return ex{n: 4, v: func(t *th, d []uint64) { v, i := index(t); v.readTexel(i, d) }}
	}
	vo, ve := c.agg(c.expr(e.Args[2]))
	return ex{v: func(t *th, _ []uint64) {
		ve(t)
		v, i := index(t)
		v.writeTexel(i, t.r[vo:vo+4])
	}}
}
