# lucent — see README.md.
GO ?= go
export LUCENT_REQUIRE_VULKAN ?= 1

# Packages whose concurrency is exercised under the race detector.
RACE_PKGS ?= ./vk/... ./device/... ./kernel/... ./shadercache/... ./swapchain/...

# The second test device scripts/setup.sh unpacks on Debian bookworm (Mesa's
# newer lavapipe, with the native paths 22.3 lacks), and the suites run on it.
LAVAPIPE_NEXT ?= /opt/lucent/lavapipe-next/lvp_icd.json
NEXT_PKGS ?= ./device/... ./accel/... ./frontend/... ./kernel/... ./swapchain/... ./cmd/...
NEXT_REQUIRED := $(shell grep -q '^VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null && echo 1)

.PHONY: setup test test-short demo info generate bench vet

setup:
	@./scripts/setup.sh

test: setup
	@out=$$("$$($(GO) env GOROOT)/bin/gofmt" -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet -composites=false ./...
	CGO_ENABLED=0 $(GO) build ./vk/... ./spirv/... ./frontend/... ./kernel/... ./device/... ./accel/... ./shadercache/... ./swapchain/... ./cmd/...
	$(GO) test -count=1 -timeout 30m ./...
	@# An execution count, not a duration: a duration -fuzztime can fail with "context deadline
	@# exceeded" on a loaded machine (go.dev/issue/75804, fixed in Go 1.27); 50,000 runs are ~10 s here.
	$(GO) test -run '^$$' -fuzz FuzzNewShader -fuzztime 50000x -fuzzminimizetime 0s ./device/vulkan
	$(GO) test -count=1 -race -timeout 30m $(RACE_PKGS)
	@# accel/bvh's SAH passes are SSE assembly on amd64; the portable Go loops run on GOARCH=386.
	GOARCH=386 $(GO) test -count=1 ./accel/bvh
	@echo "== the kernel suites again on the cpu backend"
	LUCENT_TEST_BACKEND=cpu $(GO) test -count=1 -race -timeout 30m ./device/
	@if [ -f "$(LAVAPIPE_NEXT)" ]; then \
	  echo "== the device suites again on $$(cat $(dir $(LAVAPIPE_NEXT))VERSION) lavapipe (native descriptor indexing)"; \
	  VK_DRIVER_FILES=$(LAVAPIPE_NEXT) LUCENT_EXPECT_SAMPLING=native $(GO) test -count=1 -timeout 30m $(NEXT_PKGS); \
	elif [ "$(NEXT_REQUIRED)" = 1 ]; then echo "setup left no second lavapipe at $(LAVAPIPE_NEXT)" >&2; exit 1; fi

# Runs the tests without installing anything (skips what the machine lacks).
test-short:
	LUCENT_REQUIRE_VULKAN=0 $(GO) test -short ./...

demo: setup
	$(GO) run ./cmd/lucent demo

info: setup
	$(GO) run ./cmd/lucent info

generate:
	$(GO) generate ./...

# Side-by-side benchmarks: the runtime against raw C Vulkan (in one process,
# interleaved; ROUNDS=41 rounds), the bindings' call cost against C, codegen against glslang, start-up with and without caches.
bench: setup
	bench/compare.sh
	$(GO) test -run '^$$' -bench . -benchtime 200000x ./vk
	$(GO) test -run '^$$' -bench . -benchtime 10x ./bench/codegen
	$(GO) test -run '^$$' -bench Startup -benchtime 3x ./bench/startup

vet:
	$(GO) vet -composites=false ./...
