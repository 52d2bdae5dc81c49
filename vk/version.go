package vk

// MakeAPIVersion packs a version as VK_MAKE_API_VERSION does.
func MakeAPIVersion(variant, major, minor, patch uint32) uint32 {
	return variant<<29 | major<<22 | minor<<12 | patch
}

// APIVersionVariant returns the variant of a packed version.
func APIVersionVariant(v uint32) uint32 { return v >> 29 }

// APIVersionMajor returns the major number of a packed version.
func APIVersionMajor(v uint32) uint32 { return v >> 22 & 0x7F }

// APIVersionMinor returns the minor number of a packed version.
func APIVersionMinor(v uint32) uint32 { return v >> 12 & 0x3FF }

// APIVersionPatch returns the patch number of a packed version.
func APIVersionPatch(v uint32) uint32 { return v & 0xFFF }
