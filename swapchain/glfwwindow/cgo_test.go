//go:build cgo

package glfwwindow_test

const cgoEnabled = true
