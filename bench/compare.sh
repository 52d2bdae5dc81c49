#!/usr/bin/env bash
# compare.sh runs device/vulkan's benchmarks and their raw-Vulkan twin
# (vkbench.c) side by side, alternating for ROUNDS rounds, and prints the
# best figure of each and the ratio lucent / raw C (time: lower is better;
# throughput: higher is better).
#
#   bench/compare.sh            # from the repository root
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -Wall -o "$tmp/vkbench" bench/vkbench.c -lvulkan
for f in empty saxpy; do
  glslangValidator -V --target-env vulkan1.3 -o "$tmp/$f.spv" "testdata/device/$f.comp" >/dev/null
done
go test -c -o "$tmp/vulkan.test" ./device/vulkan
for r in $(seq "$ROUNDS"); do
  "$tmp/vkbench" "$tmp" >>"$tmp/c.txt"
  (cd device/vulkan && "$tmp/vulkan.test" -test.run '^$' -test.bench '^Benchmark(DispatchChain|RoundTrip|RoundTripRawVk|Upload|Download|Saxpy)$' -test.benchtime 1s) >>"$tmp/go.txt"
done
awk '
  FNR == 1 { file++ }
  file == 1 && NF >= 3 {           # C: name ns ns/op [value unit]
    n = $1; t = $2; if (!(n in ct) || t < ct[n]) ct[n] = t
    if (NF >= 5 && $5 == "ns/dispatch") { if (!(n in cx) || $4 < cx[n]) cx[n] = $4 }
    if (NF >= 5 && $5 == "MB/s") { if (!(n in cx) || $4 > cx[n]) cx[n] = $4 }
  }
  file == 2 && $1 ~ /^Benchmark/ {  # Go: BenchmarkName-N iters ns ns/op [value unit]
    n = $1; sub(/^Benchmark/, "", n); sub(/-[0-9]+$/, "", n); t = $3
    if (!(n in gt) || t < gt[n]) gt[n] = t
    if ($6 == "ns/dispatch") { if (!(n in gx) || $5 < gx[n]) gx[n] = $5 }
    if ($6 == "MB/s") { if (!(n in gx) || $5 > gx[n]) gx[n] = $5 }
  }
  END {
    printf "%-14s %14s %14s %8s   %s\n", "benchmark", "lucent ns/op", "raw C ns/op", "ratio", "(lucent/C time; C/lucent would be the throughput ratio)"
    split("DispatchChain RoundTrip Upload Download Saxpy", order, " ")
    for (i = 1; i <= 5; i++) { n = order[i]
      printf "%-14s %14.0f %14.0f %8.3f", n, gt[n], ct[n], gt[n] / ct[n]
      if (n in gx) printf "   lucent %.1f vs C %.1f %s", gx[n], cx[n], (n == "DispatchChain" ? "ns/dispatch" : "MB/s")
      printf "\n"
    }
    # The same round trip made from Go straight through package vk: the cost
    # of calling Vulkan from Go at all, without the runtime.
    printf "%-14s %14.0f %14.0f %8.3f   (Go through vk directly)\n", "RoundTripRawVk", gt["RoundTripRawVk"], ct["RoundTrip"], gt["RoundTripRawVk"] / ct["RoundTrip"]
  }' "$tmp/c.txt" "$tmp/go.txt"
