package kernel

// DispatchID returns the calling thread's position in the whole dispatch:
// BlockID()*BlockSize() + ThreadID(), per component.
func DispatchID() Uint3 { return current("DispatchID").dispatch }

// ThreadID returns the calling thread's position within its block (workgroup).
func ThreadID() Uint3 { return current("ThreadID").local }

// BlockID returns the position of the calling thread's block in the grid of blocks.
func BlockID() Uint3 { return current("BlockID").group.id }

// BlockSize returns the number of threads of a block in each dimension, as
// given by the kernel's //lucent:kernel block= directive.
func BlockSize() Uint3 { return current("BlockSize").group.grid.Block }

// DispatchSize returns the number of threads asked for in each dimension. The
// block grid is rounded up to whole blocks; threads past DispatchSize do not
// run the kernel. On a device, in an indirect dispatch (group counts read on
// the device) it is the number of threads launched, DispatchGroups() ×
// BlockSize().
func DispatchSize() Uint3 { return current("DispatchSize").group.grid.Size }

// DispatchGroups returns the number of blocks launched in each dimension:
// DispatchSize() divided by BlockSize(), rounded up (Grid.Blocks), or on a
// device the group count of an indirect dispatch.
func DispatchGroups() Uint3 { return current("DispatchGroups").group.grid.Blocks() }
