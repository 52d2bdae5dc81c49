package device

import (
	"fmt"
	"sort"
	"sync"

	"github.com/lucent-gpu/lucent/frontend/ir"
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

// OfflineCompiler compiles a kernel without a device, for SaveKernel: it
// returns the backend's module (SPIR-V, the format ahead-of-time records
// hold) and the version of the code generator that made it.
type OfflineCompiler func(f *ir.Function, opts KernelOptions) (words []uint32, codegenVersion int, err error)

var offline struct {
	sync.RWMutex
	m map[string]OfflineCompiler
}

// RegisterOfflineCompiler makes a backend's ahead-of-time compiler available
// under the backend's name. Backends call it from init; like Register it
// panics when name is taken or c is nil.
func RegisterOfflineCompiler(name string, c OfflineCompiler) {
	offline.Lock()
	defer offline.Unlock()
	if c == nil {
		panic("device: RegisterOfflineCompiler compiler is nil for " + name)
	}
	if _, dup := offline.m[name]; dup {
		panic("device: RegisterOfflineCompiler called twice for " + name)
	}
	if offline.m == nil {
		offline.m = map[string]OfflineCompiler{}
	}
	offline.m[name] = c
}

func offlineCompiler(name string) OfflineCompiler {
	offline.RLock()
	defer offline.RUnlock()
	return offline.m[name]
}
