//go:build !linux

package xtest

import "syscall"

func serverAttr() *syscall.SysProcAttr { return nil }
