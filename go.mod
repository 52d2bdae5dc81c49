module github.com/lucent-gpu/lucent

go 1.25.0

require (
	github.com/ebitengine/purego v0.11.3 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)
