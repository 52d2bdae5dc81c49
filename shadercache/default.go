package shadercache

import (
	"fmt"
	"os"
	"path/filepath"
)

// EnvVar is the environment variable [Default] consults: "off" disables
// caching, any other non-empty value is the directory to use.
const EnvVar = "LUCENT_SHADER_CACHE"

// DefaultDir returns the per-user cache directory: "lucent" under
// [os.UserCacheDir] (~/.cache/lucent on Linux).
func DefaultDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("shadercache: no user cache directory: %w", err)
	}
	return filepath.Join(base, "lucent"), nil
}

// Default returns the store a program uses when it does not choose one:
// [Disabled] if LUCENT_SHADER_CACHE=off, a [Dir] at $LUCENT_SHADER_CACHE if
// it is set to anything else, and a [Dir] at [DefaultDir] otherwise.
func Default(opts ...Option) (BinaryIO, error) {
	path := os.Getenv(EnvVar)
	switch path {
	case "off":
		return Disabled, nil
	case "":
		var err error
		if path, err = DefaultDir(); err != nil {
			return nil, err
		}
	}
	d, err := NewDir(path, opts...)
	if err != nil {
		return nil, err
	}
	return d, nil
}
