module github.com/lucent-gpu/lucent

go 1.26.0

require (
	github.com/ebitengine/purego v0.11.3
	github.com/go-gl/glfw/v3.3/glfw v0.0.0-20260823155953-d41da22a9587
	github.com/stretchr/testify v1.12.1
	golang.org/x/mod v0.42.0
	golang.org/x/tools v0.52.0
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
