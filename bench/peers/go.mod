module github.com/lucent-gpu/lucent/bench/peers

go 1.26.0

require (
	github.com/gogpu/gputypes v0.5.2
	github.com/gogpu/wgpu v0.31.5
	github.com/lucent-gpu/lucent v0.0.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/ebitengine/purego v0.11.3 // indirect
	github.com/go-webgpu/goffi v0.6.3 // indirect
	github.com/go-webgpu/webgpu v0.5.5 // indirect
	github.com/gogpu/gpucontext v0.28.0 // indirect
	github.com/gogpu/naga v0.18.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

replace github.com/lucent-gpu/lucent => ../..
