package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lucent-gpu/lucent/device"
)

// A launcher's signature literal keeps the kernel's print sites: without
// them the runtime would not bind the module's print ring.
func TestSignatureLiteralPrints(t *testing.T) {
	sig := device.Signature{BlockSize: [3]uint32{64, 1, 1}, Prints: []device.PrintSite{{Format: "%d %v\n",
		Args: []device.PrintArg{{Scalar: device.ScalarInt, ScalarBits: 32, Components: 1}, {Scalar: device.ScalarFloat, ScalarBits: 32, Components: 3}}}}}
	lit := signatureLiteral(sig, "device")
	require.Contains(t, lit, `Prints: []device.PrintSite{`)
	require.Contains(t, lit, `{Format: "%d %v\n", Args: []device.PrintArg{{Scalar: device.ScalarInt, ScalarBits: 32, Components: 1}, {Scalar: device.ScalarFloat, ScalarBits: 32, Components: 3}}},`)
	require.NotContains(t, signatureLiteral(device.Signature{}, "device"), "Prints")
}
