package device

import (
	"fmt"
	"sync"
)

// maxClosedKernels is how many destroyed shaders' kernel names a device
// remembers, so that a dispatch built before its shader was destroyed is
// refused naming the kernel; past it the oldest are forgotten (the error
// then names the shader's handle alone).
const maxClosedKernels = 256

// ClosedKernels is the kernel names of the shaders a backend destroyed last,
// so that its errors for a dispatch of a destroyed shader name the kernel.
// The zero value is ready; safe for concurrent use.
type ClosedKernels struct {
	mu    sync.Mutex
	names map[Handle]string
	order []Handle
}

// Add remembers that shader h, of kernel name, was destroyed.
func (c *ClosedKernels) Add(h Handle, name string) {
	if name == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names == nil {
		c.names = map[Handle]string{}
	}
	if len(c.order) == maxClosedKernels {
		delete(c.names, c.order[0])
		c.order = append(c.order[:0], c.order[1:]...)
	}
	c.names[h] = name
	c.order = append(c.order, h)
}

// Wrap names the kernel of destroyed shader h in err, a failed lookup of it.
func (c *ClosedKernels) Wrap(h Handle, err error) error {
	c.mu.Lock()
	name, ok := c.names[h]
	c.mu.Unlock()
	if !ok {
		return err
	}
	return fmt.Errorf("kernel %s: %w", name, err)
}
