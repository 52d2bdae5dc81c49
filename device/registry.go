package device

import (
	"fmt"
	"sort"
	"sync"
)

var registry struct {
	sync.RWMutex
	m map[string]Factory
}

// Backends returns the registered backend names, sorted.
func Backends() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func lookup(name string) (Factory, error) {
	registry.RLock()
	defer registry.RUnlock()
	f, ok := registry.m[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q (registered: %v; import the backend package, e.g. _ \"github.com/lucent-gpu/lucent/device/vulkan\")",
			ErrNoBackend, name, backendsLocked())
	}
	return f, nil
}

func backendsLocked() []string {
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DefaultAdapter returns the index (into adapters) of the default choice: the
// first discrete GPU, else integrated, virtual, other, and a CPU
// implementation last. It returns -1 for an empty list.
func DefaultAdapter(adapters []Adapter) int {
	best := -1
	for i, a := range adapters {
		if best < 0 || a.Type.rank() < adapters[best].Type.rank() {
			best = i
		}
	}
	return best
}
