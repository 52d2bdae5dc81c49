module example.com/lucentinterp

go 1.26.0

require (
	github.com/lucent-gpu/lucent v0.0.0
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

replace github.com/lucent-gpu/lucent => ../..
