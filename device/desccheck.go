package device

// Check reports what is wrong with a texture description, wrapping
// ErrInvalidArgument: the one check of a TextureDesc, made by the typed API,
// the validation wrapper and the backend alike, so a fault gives one message.
// What only a device knows (its size limits, which formats it supports) is
// the backend's to check.
func (d TextureDesc) Check() error {
	switch {
	case d.Dim != 2 && d.Dim != 3:
		return invalidf("texture of dimension %d (want 2 or 3)", d.Dim)
	case !d.Format.Valid():
		return invalidf("texture format %v", d.Format)
	case d.Width == 0 || d.Height == 0 || d.Depth == 0:
		return invalidf("texture of zero extent %dx%dx%d", d.Width, d.Height, d.Depth)
	case d.Dim == 2 && d.Depth != 1:
		return invalidf("a 2D texture with depth %d", d.Depth)
	}
	if full := maxLevels(d.Width, d.Height, d.Depth); d.Levels == 0 || d.Levels > full {
		return invalidf("texture of %d mip levels for %dx%dx%d (at most %d)", d.Levels, d.Width, d.Height, d.Depth, full)
	}
	return nil
}
