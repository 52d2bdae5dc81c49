#!/bin/sh
# Runs lucent beside gogpu/wgpu (bench/peers) on the machine's two lavapipes:
# the system's (Mesa 22.3 on Debian bookworm) and Mesa 25's unpacked by
# make setup. ROUNDS sets the interleaved rounds (default 11); extra
# arguments go to the program (e.g. -ops chain,roundtrip).
set -e
cd "$(dirname "$0")"
bin=$(mktemp -d)/peers
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -tags nofakecgo -o "$bin" .
echo "== system lavapipe"
"$bin" -rounds "${ROUNDS:-11}" "$@"
next=${LAVAPIPE_NEXT:-/opt/lucent/lavapipe-next/lvp_icd.json}
if [ -f "$next" ]; then
  echo "== $(cat "$(dirname "$next")/VERSION" 2>/dev/null || echo next) lavapipe ($next)"
  VK_DRIVER_FILES="$next" "$bin" -rounds "${ROUNDS:-11}" "$@"
fi
