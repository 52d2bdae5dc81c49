//go:build !cgo

package glfwwindow_test

const cgoEnabled = false
