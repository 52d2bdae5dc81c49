#!/usr/bin/env bash
# gpu-prepare.sh: on this machine (Go, a C compiler, Vulkan headers, apt),
# writes into DIR what bench/gpu.sh needs on a GPU machine that has none of
# them and no network: the test binaries of the packages it runs and the
# lucent command (static, CGO_ENABLED=0, stripped), the raw-C reference
# (bench/vkbench.c as a shared library), the start-up benchmark and its child,
# SPIRV-Tools' shared library,
# glslangValidator, and the Vulkan loader's Debian package for a machine
# without one. gpu.sh uses DIR when it finds no Go toolchain, or when
# GPU_SH_PREBUILT names it.
#
#   bench/gpu-prepare.sh [DIR]      (default .gpu, which git is told to ignore)
#
# DIR travels with the working tree (the device tool's carry); it stays under
# ~40 MiB so that the tree and it fit the 64 MiB a call may carry.
set -euo pipefail

cd "$(dirname "$0")/.."
dir=${1:-.gpu}
grep -qx "/$dir/" .git/info/exclude 2>/dev/null || echo "/$dir/" >>.git/info/exclude
rm -rf "$dir"
mkdir -p "$dir/bin"

# The packages gpu.sh runs, one test binary each, named by package path.
for p in device device/vulkan accel; do
	CGO_ENABLED=0 go test -c -ldflags='-s -w' -o "$dir/bin/$(echo "$p" | tr / _).test" "./$p"
done
CGO_ENABLED=0 go build -ldflags='-s -w' -o "$dir/bin/lucent" ./cmd/lucent
# The start-up benchmark and the child program it times (bench/startup).
CGO_ENABLED=0 go test -c -ldflags='-s -w' -o "$dir/bin/startup.bench" ./bench/startup
CGO_ENABLED=0 go build -ldflags='-s -w' -o "$dir/bin/startup" ./bench/startup
cc -O2 -Wall -shared -fPIC -o "$dir/bin/libvkbench.so" bench/vkbench.c -l:libvulkan.so.1

spvtools=""
for f in /usr/local/lib/libSPIRV-Tools-shared.so /usr/lib/x86_64-linux-gnu/libSPIRV-Tools-shared.so; do
	[ -f "$f" ] && { spvtools=$f; break; }
done
[ -n "$spvtools" ] || { echo "gpu-prepare: no libSPIRV-Tools-shared.so: run make setup first" >&2; exit 2; }
cp "$spvtools" "$dir/bin/"
cp "$(command -v glslangValidator)" "$dir/bin/"
(cd "$dir" && tar czf bin.tgz bin && rm -rf bin)

# The loader, for a machine whose image lacks it (dpkg -x it into / there).
mkdir -p "$dir/deb"
(cd "$dir/deb" && { apt-get -q download libvulkan1 >/dev/null 2>&1 ||
	{ apt-get -q update >/dev/null && apt-get -q download libvulkan1 >/dev/null; }; })
git describe --always --dirty >"$dir/TREE"
du -sh "$dir"
