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

// OfflineCompiler is a backend's ahead-of-time compiler, registered under
// the backend's name (RegisterOfflineCompiler). SaveKernel stores what
// Compile makes as the kernel's artefact for that backend, beside the
// kernel's IR; LoadKernel, on a device of that backend, hands the artefact
// to Load. The artefact's bytes are the backend's own encoding, which should
// carry the version of the code generator that made it, so that Load can
// tell an artefact of another build.
type OfflineCompiler interface {
	// Compile compiles f without a device, for any device of the backend.
	Compile(f *ir.Function, opts KernelOptions) (artefact []byte, err error)
	// Load decodes an artefact Compile made, perhaps in another build, into
	// the shader to create (the backend's module, whether it is trusted);
	// LoadKernel adds the signature and the name. ok false, with no error,
	// says the artefact is from another version of the code generator:
	// LoadKernel compiles the kernel's IR instead. An artefact that does not
	// decode is an error.
	Load(artefact []byte) (desc ShaderDesc, ok bool, err error)
}

var offline struct {
	sync.RWMutex
	m map[string]OfflineCompiler
}

// RegisterOfflineCompiler makes a backend's ahead-of-time compiler available
// under the backend's name, which must be the name it registers its Factory
// under and a valid artefact name (shadercache.Artefact). Backends call it
// from init; like Register it panics when name is taken or c is nil.
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

// offlineCompilers returns the registered offline compilers' backend names,
// sorted.
func offlineCompilers() []string {
	offline.RLock()
	defer offline.RUnlock()
	names := make([]string, 0, len(offline.m))
	for n := range offline.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
