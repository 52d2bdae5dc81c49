package devicetest_test

import (
	"context"
	"fmt"

	"github.com/lucent-gpu/lucent/device"
	"github.com/lucent-gpu/lucent/device/devicetest"
	"github.com/lucent-gpu/lucent/frontend/gokernel"
	kernels "github.com/lucent-gpu/lucent/testdata/gokernel"
)

// A Go-subset kernel run on a device and with kernel.Run, its results
// compared. A package with launchers (lucentc -go) passes its launcher's
// Shader() instead of compiling the kernel here.
func ExampleCompare() {
	ctx := context.Background()
	dev, err := device.Open(ctx, "cpu") // or "vulkan", or "" for the default
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	ks, errs := gokernel.Load("github.com/lucent-gpu/lucent/testdata/gokernel")
	if len(errs) > 0 {
		fmt.Println(errs)
		return
	}
	var saxpy *device.Kernel
	for _, k := range ks {
		if k.Name == "Saxpy" {
			saxpy, err = device.Compile(dev, k.Func)
		}
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer saxpy.Close()

	x := devicetest.NewBuffer([]float32{1, 2, 3, 4})
	y := devicetest.NewBuffer([]float32{10, 20, 30, 40})
	err = devicetest.Compare(ctx, dev, saxpy.Shader, [3]uint32{4, 1, 1}, kernels.Saxpy, 0, float32(2), x, y)
	fmt.Println(err, y.Device())
	// Output: <nil> [12 24 36 48]
}
