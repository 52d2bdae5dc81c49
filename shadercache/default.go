package shadercache

import (
	"fmt"
	"log/slog"
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
//
// A directory named by LUCENT_SHADER_CACHE that cannot be made is an error:
// the user asked for it. The per-user directory is only the default, and a
// program must run where there is none (no $HOME, as for a service; a
// read-only home in a container): there Default logs a warning naming the
// directory and the reason, through the logger of [WithLogger], and returns
// [Disabled] — every compile then runs, and nothing is written.
func Default(opts ...Option) (BinaryIO, error) {
	path := os.Getenv(EnvVar)
	switch path {
	case "off":
		return Disabled, nil
	case "":
		d, err := DefaultDir()
		if err == nil {
			var s *Dir
			if s, err = NewDir(d, opts...); err == nil {
				return s, nil
			}
		}
		newConfig(0, opts).logger.Warn("shadercache: no per-user cache directory, caching is off (set "+EnvVar+" to a directory to cache)",
			slog.String("dir", d), slog.String("error", err.Error()))
		return Disabled, nil
	}
	d, err := NewDir(path, opts...)
	if err != nil {
		return nil, fmt.Errorf("shadercache: %s=%s: %w", EnvVar, path, err)
	}
	return d, nil
}
