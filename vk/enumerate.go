package vk

// InstanceLayers returns the names of the installed instance layers.
func InstanceLayers() ([]string, error) {
	props, err := enumerate(func(n *uint32, p *LayerProperties) Result {
		return EnumerateInstanceLayerProperties(n, p)
	})
	names := make([]string, len(props))
	for i := range props {
		names[i] = ByteString(props[i].LayerName[:])
	}
	return names, err
}

// InstanceExtensions returns the instance extensions the loader and drivers
// provide, or those of layer when it is not "".
func InstanceExtensions(layer string) ([]string, error) {
	var pl *byte
	if layer != "" {
		pl = CString(layer)
	}
	props, err := enumerate(func(n *uint32, p *ExtensionProperties) Result {
		return EnumerateInstanceExtensionProperties(pl, n, p)
	})
	return extensionNames(props), err
}

// DeviceExtensions returns the extensions physical device phys provides.
func (t *InstanceFuncs) DeviceExtensions(phys PhysicalDevice) ([]string, error) {
	props, err := enumerate(func(n *uint32, p *ExtensionProperties) Result {
		return t.EnumerateDeviceExtensionProperties(phys, nil, n, p)
	})
	return extensionNames(props), err
}

func extensionNames(props []ExtensionProperties) []string {
	names := make([]string, len(props))
	for i := range props {
		names[i] = ByteString(props[i].ExtensionName[:])
	}
	return names
}

// enumerate runs Vulkan's two-call idiom (count, then fill), retrying while
// the answer is INCOMPLETE because the list grew in between.
func enumerate[T any](call func(*uint32, *T) Result) ([]T, error) {
	for {
		var n uint32
		if err := call(&n, nil).Err(); err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, nil
		}
		out := make([]T, n)
		r := call(&n, &out[0])
		if r == INCOMPLETE {
			continue
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
		return out[:n], nil
	}
}
