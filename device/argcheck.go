package device

// ArgResource is what the handle of a dispatch argument names, as the
// caller checking the argument knows it: the typed API from its values, the
// validation wrapper from its records, a backend from its objects. Only the
// description of the argument's kind is read.
type ArgResource struct {
	Buffer  BufferDesc  // an ArgBuffer's buffer
	Texture TextureDesc // an ArgTexture's or ArgSampledTexture's texture
}

// CheckArgCount checks the number of a dispatch's arguments against the
// signature of the shader, which shader names in the message.
func CheckArgCount(shader string, sig *Signature, n int) error {
	if n != len(sig.Args) {
		return invalidf("%s takes %d argument(s), got %d (its signature: %s)", shader, len(sig.Args), n, sig)
	}
	return nil
}

// CheckArg checks one dispatch argument against what the signature wants,
// given the resource it names: the one checker of arguments, so that a
// fault gives the same message whichever layer finds it (callers put the
// argument's Label and their own prefix before it). It checks the kind, a
// uniform's size, a buffer's range, element size and alignment, and a
// texture's level, format, dimension and sampler. What only a backend knows
// (format support, alignment and range limits) is the backend's to check.
// Errors wrap ErrInvalidArgument.
func CheckArg(want Argument, a Arg, r ArgResource) error {
	if a.Kind != want.Kind {
		return invalidf("kernel expects %s, got %s", article(want.Kind), article(a.Kind))
	}
	switch a.Kind {
	case ArgUniform:
		if uint32(len(a.Uniform)) != want.Size {
			return invalidf("kernel expects a %d-byte uniform, got %d bytes", want.Size, len(a.Uniform))
		}
	case ArgBuffer:
		b := r.Buffer
		size := a.Size
		if size == WholeSize && a.Offset <= b.Size {
			size = b.Size - a.Offset
		}
		if a.Offset > b.Size || size > b.Size-a.Offset {
			return invalidf("bytes [%d, %d+%d) out of range of %d-byte buffer %d", a.Offset, a.Offset, size, b.Size, a.Handle)
		}
		if want.ElemSize != 0 {
			if b.ElemSize != 0 && b.ElemSize != want.ElemSize {
				return invalidf("kernel expects %d-byte elements, buffer %d has %d-byte elements", want.ElemSize, a.Handle, b.ElemSize)
			}
			if a.Offset%uint64(want.ElemSize) != 0 || size%uint64(want.ElemSize) != 0 {
				return invalidf("byte range [%d, %d+%d) is not a whole number of %d-byte elements", a.Offset, a.Offset, size, want.ElemSize)
			}
		}
	case ArgTexture, ArgSampledTexture:
		t := r.Texture
		if a.Level >= t.Levels {
			return invalidf("mip level %d of %d-level texture %d", a.Level, t.Levels, a.Handle)
		}
		if want.Format != FormatInvalid && want.Format != t.Format {
			return invalidf("kernel expects format %v, texture %d is %v", want.Format, a.Handle, t.Format)
		}
		if want.Dim != 0 && want.Dim != t.Dim {
			return invalidf("kernel expects a %dD texture, texture %d is %dD", want.Dim, a.Handle, t.Dim)
		}
		if a.Kind == ArgSampledTexture && !a.Sampler.Valid() {
			return invalidf("sampler %v", a.Sampler)
		}
	case ArgBindlessArray, ArgAccel:
	default:
		return invalidf("argument kind %v is not supported", a.Kind)
	}
	return nil
}

// article is k's name after "a" or "an".
func article(k ArgKind) string {
	if k == ArgAccel {
		return "an accel"
	}
	return "a " + k.String()
}
