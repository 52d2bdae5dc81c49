//go:build !(darwin || linux || freebsd || netbsd || windows)

package spvtools

import (
	"errors"
	"runtime"
)

func dlopen(string) (uintptr, error) {
	return 0, errors.New("loading shared libraries is not supported on " + runtime.GOOS)
}

func dlsym(uintptr, string) (uintptr, error) { return 0, errors.New("unsupported") }
