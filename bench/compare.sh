#!/usr/bin/env bash
# compare.sh runs device/vulkan's benchmarks against their raw-C Vulkan twin
# (vkbench.c, loaded as a shared library into the benchmark's own process)
# side by side: BenchmarkVsC interleaves ROUNDS rounds of C and Go blocks of
# operations and reports the median of the per-round ratios lucent/C and
# their quartiles. It prints the benchmark lines, then a table.
#
#   bench/compare.sh            # from anywhere; ROUNDS=41 by default
#
# Time ratios: below 1, lucent is faster. For Upload, Download and Saxpy the
# throughput ratio lucent/C is 1/ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-41}
out=$(go test -run '^$' -bench '^BenchmarkVsC$' -benchtime "${ROUNDS}x" -timeout 30m ./device/vulkan)
printf '%s\n\n' "$out"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "$out" | awk '
  $1 ~ /^BenchmarkVsC\// {
    n = $1; sub(/^BenchmarkVsC\//, "", n); sub(/-[0-9]+$/, "", n)
    for (i = 3; i < NF; i += 2) v[n, $(i + 1)] = $i
    names[++k] = n
  }
  END {
    printf "%-15s %14s %14s %8s %17s %17s %10s\n", "benchmark", "lucent ns/op", "raw C ns/op", "x-C", "quartiles", "95% CI of x-C", "thru-x-C"
    for (j = 1; j <= k; j++) { n = names[j]
      printf "%-15s %14.0f %14.0f %8.3f   [%6.3f, %6.3f]   [%6.3f, %6.3f]", n, v[n, "ns/op"], v[n, "C-ns/op"], v[n, "x-C"], v[n, "x-C-q1"], v[n, "x-C-q3"], v[n, "x-C-lo"], v[n, "x-C-hi"]
      if ((n, "thru-x-C") in v) printf " %10.3f", v[n, "thru-x-C"]
      printf "\n"
    }
  }'
