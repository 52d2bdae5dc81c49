package spvtools

import (
	"fmt"

	"github.com/lucent-gpu/lucent/spirv"
)

// spv_target_env values of libspirv.h.
const (
	envUniversal10 = 0
	envUniversal11 = 2
	envUniversal12 = 10
	envUniversal13 = 17
	envVulkan11    = 18
	envUniversal14 = 20
	envUniversal15 = 22
	envVulkan12    = 23
	envUniversal16 = 24
	envVulkan13    = 25
)

func targetEnv(env spirv.TargetEnv) (int32, error) {
	switch env {
	case spirv.EnvVulkan1_1:
		return envVulkan11, nil
	case spirv.EnvVulkan1_2:
		return envVulkan12, nil
	case spirv.EnvVulkan1_3:
		return envVulkan13, nil
	case spirv.EnvUniversal1_0:
		return envUniversal10, nil
	case spirv.EnvUniversal1_1:
		return envUniversal11, nil
	case spirv.EnvUniversal1_2:
		return envUniversal12, nil
	case spirv.EnvUniversal1_3:
		return envUniversal13, nil
	case spirv.EnvUniversal1_4:
		return envUniversal14, nil
	case spirv.EnvUniversal1_5:
		return envUniversal15, nil
	case spirv.EnvUniversal1_6:
		return envUniversal16, nil
	}
	return 0, fmt.Errorf("spvtools: unknown target environment %v", env)
}
