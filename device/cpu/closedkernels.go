package cpu

import (
	"fmt"
	"sync"

	"github.com/lucent-gpu/lucent/device"
)

// maxClosedKernels is how many destroyed shaders' kernel names a device
// remembers, so that a dispatch built before its shader was destroyed is
// refused naming the kernel; past it the oldest are forgotten (the error
// then names the shader's handle alone).
const maxClosedKernels = 256

// closedKernels is the kernel names of the shaders destroyed last.
type closedKernels struct {
	mu    sync.Mutex
	names map[device.Handle]string
	order []device.Handle
}

// add remembers that shader h, of kernel name, was destroyed.
func (c *closedKernels) add(h device.Handle, name string) {
	if name == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names == nil {
		c.names = map[device.Handle]string{}
	}
	if len(c.order) == maxClosedKernels {
		delete(c.names, c.order[0])
		c.order = append(c.order[:0], c.order[1:]...)
	}
	c.names[h] = name
	c.order = append(c.order, h)
}

// wrap names the kernel of destroyed shader h in err, a failed lookup of it.
func (c *closedKernels) wrap(h device.Handle, err error) error {
	c.mu.Lock()
	name, ok := c.names[h]
	c.mu.Unlock()
	if !ok {
		return err
	}
	return fmt.Errorf("kernel %s: %w", name, err)
}
