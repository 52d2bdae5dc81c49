package bad

import (
	"fmt"
	"strconv"

	"github.com/lucent-gpu/lucent/kernel"
)

//lucent:kernel block=64
func Strings(y []float32, name string) {
	i := kernel.DispatchID().X
	s := "value"
	fmt.Println(s, name)
	y[i] = float32(len(strconv.Itoa(int(i))))
	print(i)
}
