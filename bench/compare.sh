#!/usr/bin/env bash
# compare.sh runs device/vulkan's benchmarks against raw-C Vulkan (vkbench.c,
# loaded as a shared library into the benchmark's own process) side by side
# and prints the benchmark lines, then a table.
#
#   bench/compare.sh            # lucent against the twin (the calls lucent makes): BenchmarkVsC
#   FASTEST=1 bench/compare.sh  # lucent against the fastest raw-C use of the driver
#                               # (the twin and vkbench.c's fastest-use variants): BenchmarkVsFastestC
#
# ROUNDS=41 by default (21 with FASTEST=1); BENCH narrows the sub-benchmarks
# (a -bench pattern after the benchmark's name, e.g. BENCH='/^(DispatchChain|RoundTrip)$').
# Both interleave ROUNDS rounds of C and Go blocks of operations and report
# the median of the per-round ratios lucent/C and their quartiles. With
# FASTEST=1 the reference is the C candidate with the lowest median time, named
# in the table, and x-twin is the ratio to the twin in the same rounds; cpu-x-C
# is the process's CPU time per operation against the C candidate using the
# least (the work done, which the machine's load inflates far less than time);
# x-percall (round trip) is the ratio to the fastest C entered from Go once per
# round trip, as a Go API's caller is.
#
# Time ratios: below 1, lucent is faster. For Upload, Download and Saxpy the
# throughput ratio lucent/C is 1/ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${FASTEST:-}" = 1 ]; then
	name=BenchmarkVsFastestC
	ROUNDS=${ROUNDS:-21}
else
	name=BenchmarkVsC
	ROUNDS=${ROUNDS:-41}
fi
out=$(go test -run '^$' -bench "^$name\$${BENCH:-}" -benchtime "${ROUNDS}x" -timeout 30m ./device/vulkan)
printf '%s\n\n' "$out"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%s\n' "$out" | awk -v name="$name" '
  $1 ~ "^" name "/" {
    n = $1; sub("^" name "/", "", n); sub(/-[0-9]+$/, "", n)
    for (i = 3; i < NF; i += 2) {
      v[n, $(i + 1)] = $i
      if ($(i + 1) ~ /^ns\/op:/) { c = $(i + 1); sub(/^ns\/op:/, "", c); cand[n, $i] = c }
    }
    names[++k] = n
  }
  END {
    fastest = (name == "BenchmarkVsFastestC")
    if (fastest)
      printf "%-14s %13s %13s %-16s %7s %17s %17s %7s %8s %8s %9s\n", "benchmark", "lucent ns/op", "ref C ns/op", "reference", "x-C", "quartiles", "95% CI of x-C", "x-twin", "cpu-x-C", "x-percall", "thru-x-C"
    else
      printf "%-15s %14s %14s %8s %17s %17s %10s\n", "benchmark", "lucent ns/op", "raw C ns/op", "x-C", "quartiles", "95% CI of x-C", "thru-x-C"
    for (j = 1; j <= k; j++) { n = names[j]
      if (fastest)
        printf "%-14s %13.0f %13.0f %-16s %7.3f   [%6.3f, %6.3f]   [%6.3f, %6.3f] %7.3f %8.3f", n, v[n, "ns/op"], v[n, "C-ns/op"], cand[n, v[n, "C-ns/op"]], v[n, "x-C"], v[n, "x-C-q1"], v[n, "x-C-q3"], v[n, "x-C-lo"], v[n, "x-C-hi"], v[n, "x-twin"], v[n, "cpu-x-C"]
      if (fastest) printf " %8s", ((n, "x-C-per-call") in v) ? sprintf("%.3f", v[n, "x-C-per-call"]) : "-"
      if (!fastest)
        printf "%-15s %14.0f %14.0f %8.3f   [%6.3f, %6.3f]   [%6.3f, %6.3f]", n, v[n, "ns/op"], v[n, "C-ns/op"], v[n, "x-C"], v[n, "x-C-q1"], v[n, "x-C-q3"], v[n, "x-C-lo"], v[n, "x-C-hi"]
      if ((n, "thru-x-C") in v) printf " %9.3f", v[n, "thru-x-C"]
      printf "\n"
    }
  }'
