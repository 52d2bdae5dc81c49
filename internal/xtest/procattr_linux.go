package xtest

import "syscall"

// serverAttr makes the kernel stop the server when the test binary dies
// without running its cleanups (a timeout, an Xlib exit on a lost display).
func serverAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
