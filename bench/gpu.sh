#!/usr/bin/env bash
# gpu.sh: one prepared run on a machine with one NVIDIA GPU that holds only
# this working tree (no network): it finds the NVIDIA Vulkan driver and the
# Vulkan loader, then runs `lucent info`, the device suites, saxpy over 256M
# floats, the submit+wait round trip against the fastest raw-C use of the
# driver (bench/vkbench.c's variants, BenchmarkVsFastestC), rays per second
# (BenchmarkRayQueries) and start-up, cold against warm (bench/startup), each
# under its own
# timeout (8 minutes in all at most),
# and writes the figures to OUTDIR/table.md (the logs beside it).
#
#   bench/gpu.sh OUTDIR
#
# On a GPU machine without Go: bench/gpu-prepare.sh here first, then carry
# .gpu/ with the tree and run `bench/gpu.sh OUTDIR` there.
#
# Environment:
#   GPU_SH_ALLOW_ANY=1   run on whatever Vulkan driver the loader picks (no
#                        NVIDIA check), e.g. lavapipe, to try the script
#   SAXPY_N              floats per saxpy buffer (default 268435456 = 256M)
#   SAXPY_ITERS          timed saxpy dispatches (default 20)
#   PEAK_GBS             the bandwidth saxpy is compared with (default 4800,
#                        an H200's HBM3e)
#   SUITES               the packages of the device suites (default ./device/...)
#   ROUNDS               round-trip rounds against C (default 21)
#
#   GPU_SH_PREBUILT=DIR  use the binaries bench/gpu-prepare.sh wrote into DIR
#                        instead of building (the default where there is no
#                        Go toolchain and .gpu/ holds them)
#
# Without GPU_SH_PREBUILT, the script needs the Go toolchain and the module's
# dependencies offline (a vendor/ directory, or a module cache that holds
# them). A GPU machine with neither (the device machines lent here have no
# Go) gets the prebuilt binaries instead: run bench/gpu-prepare.sh first and
# carry .gpu/ with the tree. It exits non-zero,
# saying why, when one of those, the driver or the loader is missing; a step
# that fails or times out is marked so in the table and the run goes on
# (the exit status is then 1).
set -uo pipefail

die() { echo "gpu.sh: $*" >&2; exit 2; }

[ $# -eq 1 ] || die "usage: bench/gpu.sh OUTDIR"
mkdir -p "$1" || die "cannot create $1"
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/.." || die "cannot enter the working tree"
tree=$(pwd)

# --- The toolchain and the dependencies, or the prebuilt binaries ----------
pre=${GPU_SH_PREBUILT:-}
if [ -z "$pre" ] && ! command -v go >/dev/null 2>&1 && [ -f .gpu/bin.tgz ]; then
	pre=.gpu
fi
if [ -n "$pre" ]; then
	[ -f "$pre/bin.tgz" ] || die "GPU_SH_PREBUILT=$pre holds no bin.tgz: run bench/gpu-prepare.sh $pre"
	pb=$(mktemp -d /tmp/gpu-sh-bin.XXXXXX)
	tar xzf "$pre/bin.tgz" -C "$pb" --strip-components=1 || die "cannot unpack $pre/bin.tgz"
	export PATH="$pb:$PATH" LUCENT_SPIRV_TOOLS=$pb/libSPIRV-Tools-shared.so LUCENT_VKBENCH_LIB=$pb/libvkbench.so
	built="prebuilt ($pre, tree $(cat "$pre/TREE" 2>/dev/null || echo '?'))"
	here=$(git describe --always --dirty 2>/dev/null || true)
	if [ -n "$here" ] && [ "$here" != "$(cat "$pre/TREE" 2>/dev/null)" ]; then
		echo "gpu.sh: warning: $pre was prepared at $(cat "$pre/TREE" 2>/dev/null), the tree is at $here" >&2
		built="$built, STALE: the tree is at $here"
	fi
else
	command -v go >/dev/null 2>&1 ||
		die "no Go toolchain (go is not on PATH) and no prebuilt binaries (.gpu/bin.tgz): run bench/gpu-prepare.sh on a machine with Go and carry .gpu/, or install Go $(sed -n 's/^go //p' go.mod)"
	export GOTOOLCHAIN=local GOPROXY=off GOFLAGS="${GOFLAGS:-}"
	if [ -f vendor/modules.txt ]; then
		GOFLAGS="$GOFLAGS -mod=vendor"
	fi
	go list -deps -test ./device/... ./cmd/lucent >/dev/null 2>"$out/deps.txt" ||
		die "the module's dependencies are not available offline ($(head -c 300 "$out/deps.txt")); run 'go mod vendor' on a machine with a network and copy vendor/ with the tree, or use bench/gpu-prepare.sh"
	built="$(go version)"
fi

# --- The driver ------------------------------------------------------------
if [ "${GPU_SH_ALLOW_ANY:-}" != 1 ]; then
	icd=""
	for dir in /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/share/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d; do
		for f in "$dir"/nvidia*.json; do
			[ -f "$f" ] && { icd=$f; break 2; }
		done
	done
	[ -n "$icd" ] || die "no NVIDIA Vulkan driver: no nvidia*.json under /usr/share/vulkan/icd.d, /etc/vulkan/icd.d, /usr/local/share/vulkan/icd.d or /usr/local/nvidia/share/vulkan/icd.d (GPU_SH_ALLOW_ANY=1 runs on any driver)"
	export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
	driver="NVIDIA ($icd)"
else
	driver="any (GPU_SH_ALLOW_ANY=1${VK_DRIVER_FILES:+, VK_DRIVER_FILES=$VK_DRIVER_FILES})"
fi

# --- The loader --------------------------------------------------------------
loader=$(ldconfig -p 2>/dev/null | awk '/libvulkan\.so\.1 / {print $NF; exit}')
if [ -z "$loader" ] && [ -n "$pre" ] && ls "$pre"/deb/libvulkan1_*.deb >/dev/null 2>&1; then
	echo "== no Vulkan loader: unpacking $(basename "$pre"/deb/libvulkan1_*.deb) into /"
	for f in "$pre"/deb/*.deb; do dpkg -x "$f" /; done
	ldconfig
	loader=$(ldconfig -p 2>/dev/null | awk '/libvulkan\.so\.1 / {print $NF; exit}')
fi
if [ -z "$loader" ]; then
	for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib /lib/x86_64-linux-gnu; do
		[ -e "$d/libvulkan.so.1" ] && { loader=$d/libvulkan.so.1; break; }
	done
	[ -n "$loader" ] || die "no Vulkan loader (libvulkan.so.1) on this machine: the NVIDIA driver provides the ICD, the loader comes from the libvulkan1 package"
	export LUCENT_VULKAN_LIBRARY=$loader LIBRARY_PATH="$(dirname "$loader")${LIBRARY_PATH:+:$LIBRARY_PATH}"
fi

status=0
declare -a rows
row() { rows+=("| $1 | $2 | $3 |"); }
# step NAME SECONDS LOG CMD...: runs CMD under timeout, logs, returns its status.
step() {
	local name=$1 secs=$2 log=$3
	shift 3
	echo "== $name (at most ${secs}s)"
	local t0=$SECONDS
	timeout --kill-after=10 "$secs" "$@" >"$out/$log" 2>&1
	local rc=$?
	echo "   rc $rc in $((SECONDS - t0))s, log $log"
	return $rc
}
verdict() { # rc → words
	case $1 in
	0) echo "ok" ;;
	124 | 137) echo "TIMED OUT" ;;
	*) echo "FAILED (rc $1)" ;;
	esac
}

# --- 1. lucent info -----------------------------------------------------------
if [ -n "$pre" ]; then
	step "lucent info" 40 info.txt lucent info
else
	step "lucent info" 40 info.txt go run ./cmd/lucent info
fi
rc=$?
[ $rc -eq 0 ] || status=1
dev=$(sed -n 's/^device 0: //p' "$out/info.txt" | head -1)
binding=$(sed -n 's/^  binding *//p' "$out/info.txt" | head -1)
row "lucent info" "$(verdict $rc)" "device 0: ${dev:-?}; binding: ${binding:-?}"

# --- 2. the device suites -------------------------------------------------
# SUITES is split into packages on purpose.
if [ -n "$pre" ]; then
	# One prebuilt test binary a package, run in its directory; the lines
	# say ok or FAIL with the package, as go test's do.
	step "device suites" 150 suites.txt env LUCENT_REQUIRE_VULKAN=1 bash -c '
		rc=0
		for t in '"$pb"'/*.test; do
			p=$(basename "$t" .test | tr _ /)
			if (cd "$p" && "$t" -test.count=1 -test.timeout 140s -test.v); then echo "ok $p"; else echo "FAIL $p"; rc=1; fi
		done
		exit $rc'
else
	step "device suites" 150 suites.txt env LUCENT_REQUIRE_VULKAN=1 go test -count=1 -timeout 170s ${SUITES:-./device/...}
fi
rc=$?
[ $rc -eq 0 ] || status=1
pkgs=$(awk '$1 == "ok" {ok++} $1 == "FAIL" && NF >= 2 {bad = bad " " $2} $1 == "---" && $2 == "FAIL:" {tests++} $1 == "---" && $2 == "SKIP:" {skips++}
	END {printf "%d packages ok%s%s%s", ok, (bad ? "; failed:" bad : ""), (tests ? "; " tests " failing tests (suites.txt)" : ""), (skips ? "; " skips " skipped (suites.txt says why)" : "")}' "$out/suites.txt")
row "device suites (LUCENT_REQUIRE_VULKAN=1)" "$(verdict $rc)" "$pkgs"

# --- 3. saxpy over 256M floats ------------------------------------------------
if [ -n "$pre" ]; then
	bin=$pb/device_vulkan.test
	rc=0
else
	bin=$out/vulkan.test
	step "build the benchmarks" 60 build.txt go test -c -o "$bin" ./device/vulkan
	rc=$?
fi
if [ $rc -ne 0 ]; then
	status=1
	row "benchmarks" "$(verdict $rc)" "go test -c failed: see build.txt"
else
	n=${SAXPY_N:-268435456}
	(cd device/vulkan && step "saxpy over $n floats" 60 saxpy.txt env LUCENT_BENCH_SAXPY_N="$n" "$bin" \
		-test.run '^$' -test.bench '^BenchmarkSaxpySize$' -test.benchtime "${SAXPY_ITERS:-20}x")
	rc=$?
	[ $rc -eq 0 ] || status=1
	gbs=$(awk '/^BenchmarkSaxpySize/ {for (i = 1; i < NF; i++) if ($(i + 1) == "GB/s") print $i}' "$out/saxpy.txt")
	nsop=$(awk '/^BenchmarkSaxpySize/ {print $3}' "$out/saxpy.txt")
	if [ -n "$gbs" ]; then
		pct=$(awk -v g="$gbs" -v p="${PEAK_GBS:-4800}" 'BEGIN {printf "%.1f", 100 * g / p}')
		row "saxpy, $n floats (12 B/element)" "$(verdict $rc)" "$gbs GB/s = $pct% of ${PEAK_GBS:-4800} GB/s; $nsop ns a dispatch"
	else
		row "saxpy, $n floats" "$(verdict $rc)" "no figure: see saxpy.txt"
	fi

	# --- 4. the round trip against the raw-C twin ---------------------------
	if [ -n "$pre" ]; then
		: # the prebuilt reference (LUCENT_VKBENCH_LIB)
	elif ! command -v cc >/dev/null 2>&1; then
		row "round trip vs raw C" "skipped" "no C compiler (cc) on this machine"
		echo "== round trip vs raw C: skipped, no C compiler (cc)"
	elif ! echo '#include <vulkan/vulkan.h>' | cc -E -x c - >/dev/null 2>&1; then
		row "round trip vs raw C" "skipped" "cc finds no Vulkan headers (vulkan/vulkan.h)"
		echo "== round trip vs raw C: skipped, no Vulkan headers"
	fi
	if [ -n "$pre" ] || { command -v cc >/dev/null 2>&1 && echo '#include <vulkan/vulkan.h>' | cc -E -x c - >/dev/null 2>&1; }; then
		# Against the fastest raw-C use of the driver (vkbench.c's round-trip
		# variants: re-recorded or recorded once, fence or timeline, blocking or
		# spinning, and the twin itself), interleaved in one process.
		(cd device/vulkan && step "round trip vs raw C" 60 roundtrip.txt env LUCENT_REQUIRE_VULKAN=1 "$bin" \
			-test.run '^$' -test.bench '^BenchmarkVsFastestC$/^RoundTrip$' -test.benchtime "${ROUNDS:-21}x")
		rc=$?
		[ $rc -eq 0 ] || status=1
		fig=$(awk '/^BenchmarkVsFastestC\/RoundTrip/ {
			for (i = 3; i < NF; i += 2) {
				v[$(i + 1)] = $(i)
				if ($(i + 1) ~ /^ns\/op:/) { c = $(i + 1); sub(/^ns\/op:/, "", c); cand[$(i)] = c }
			}
			printf "lucent %s ns, fastest C (%s) %s ns: %s× C (95%% CI %s–%s); %s× the twin (the calls lucent makes); CPU %s× C", v["ns/op"], cand[v["C-ns/op"]], v["C-ns/op"], v["x-C"], v["x-C-lo"], v["x-C-hi"], v["x-twin"], v["cpu-x-C"] }' "$out/roundtrip.txt")
		row "submit + wait round trip vs the fastest raw C" "$(verdict $rc)" "${fig:-no figure: see roundtrip.txt}"
	fi

	# --- 5. the binding table's check ----------------------------------------
	(cd device/vulkan && step "binding choice" 30 binding.txt "$bin" \
		-test.run '^$' -test.bench '^BenchmarkBindingChoice$' -test.benchtime 10x)
	rc=$?
	[ $rc -eq 0 ] || status=1
	fig=$(awk '/^BenchmarkBindingChoice\// {
		n = $1; sub(/^BenchmarkBindingChoice\//, "", n); sub(/-[0-9]+$/, "", n)
		for (i = 3; i < NF; i += 2) v[$(i + 1)] = $(i)
		printf "%s%s: push %s, sets %s ns a dispatch, chosen/other %s", sep, n, v["ns/dispatch_push"], v["ns/dispatch_sets"], v["chosen/other"]; sep = "; " }' "$out/binding.txt")
	row "binding choice (chain of 2,000 dispatches)" "$(verdict $rc)" "${fig:-no figure: see binding.txt}"

	# --- 6. rays per second --------------------------------------------------
	# The path the device takes (software where it has no ray queries, as the
	# H200), a 1.0M-triangle heightfield, 512x512 primary then shadow rays;
	# then its software builds (host SAH, host linear, device LBVH) in the log.
	(cd device/vulkan && step "ray queries" 90 rays.txt env LUCENT_REQUIRE_VULKAN=1 "$bin" \
		-test.run '^$' -test.bench '^Benchmark(RayQueries|SoftMeshBuild)$' -test.benchtime 3x -test.v)
	rc=$?
	[ $rc -eq 0 ] || status=1
	path=$(sed -n 's/.*ray_bench_test.go:[0-9]*: \([a-z]*\) path: \([0-9]*\) triangles, build \([^,]*\),.*/\1, \2 triangles, build \3/p' "$out/rays.txt" | head -1)
	fig=$(awk '/^BenchmarkRayQueries\// {n = $1; sub(/^BenchmarkRayQueries\//, "", n); sub(/-[0-9]+$/, "", n)
		for (i = 3; i < NF; i++) if ($(i + 1) == "Mrays/s") {printf "%s%s %s M rays/s", sep, n, $i; sep = ", "}}' "$out/rays.txt")
	row "rays, 512x512 primary and shadow (BenchmarkRayQueries)" "$(verdict $rc)" "${path:-?}; ${fig:-no figure: see rays.txt}"
fi

# --- 7. start-up with lucent's caches cold and warm, the driver's own off -----
# 100 kernels in a new process each time (bench/startup); the driver's disk
# caches are off (NVIDIA's __GL_SHADER_DISK_CACHE, Mesa's
# MESA_SHADER_CACHE_DISABLE), so what warm saves is lucent's.
if [ -n "$pre" ]; then
	sbench=(env LUCENT_STARTUP_CHILD="$pb/startup" "$pb/startup.bench")
else
	go test -c -o "$out/startup.bench" ./bench/startup >"$out/startup-build.txt" 2>&1
	sbench=("$out/startup.bench")
fi
(cd bench/startup && step "start-up" 60 startup.txt env LUCENT_REQUIRE_VULKAN=1 __GL_SHADER_DISK_CACHE=0 MESA_SHADER_CACHE_DISABLE=true \
	"${sbench[@]}" -test.run '^$' -test.bench '^BenchmarkStartup$/^kernels=100$' -test.benchtime 3x)
rc=$?
[ $rc -eq 0 ] || status=1
fig=$(awk '/^BenchmarkStartup\/kernels=100/ {for (i = 3; i < NF; i++) v[$(i + 1)] = $i
	printf "cold %s ms, warm %s ms: warm/cold %s (compile phase %s); aot/cold %s", v["cold-ms"], v["warm-ms"], v["warm/cold"], v["warm-compile/cold"], v["aot/cold"]}' "$out/startup.txt")
row "start-up, 100 kernels, driver caches off (target warm/cold <= 0.3)" "$(verdict $rc)" "${fig:-no figure: see startup.txt}"
[ -n "$pre" ] || rm -f "$bin"

{
	echo "# bench/gpu.sh, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "Driver: $driver. Loader: ${loader}. Binaries: $built. Tree: $(git -C "$tree" rev-parse --short HEAD 2>/dev/null || echo '?')."
	echo
	echo "| step | result | figures |"
	echo "|---|---|---|"
	printf '%s\n' "${rows[@]}"
} >"$out/table.md"
cat "$out/table.md"
exit $status
