#!/usr/bin/env bash
# setup.sh installs what lucent's build and tests need on a Debian/Ubuntu machine.
# It is idempotent and quiet when everything is already present.
set -euo pipefail

PKGS=(
  mesa-vulkan-drivers libvulkan1 libvulkan-dev vulkan-validationlayers vulkan-tools
  spirv-tools spirv-headers glslang-tools
  libglfw3-dev xvfb x11-apps
  libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev libgl1-mesa-dev
  gcc g++ make
)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# SPIRV-Tools: Debian ships only static archives; link a shared library that purego can dlopen.
if ! ldconfig -p | grep -q 'libSPIRV-Tools-shared.so'; then
  libdir=""
  for d in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib; do
    if [ -f "$d/libSPIRV-Tools.a" ]; then libdir=$d; break; fi
  done
  if [ -z "$libdir" ]; then
    echo "setup: libSPIRV-Tools.a not found (is spirv-tools installed?)" >&2
    exit 1
  fi
  echo "setup: linking libSPIRV-Tools-shared.so from $libdir"
  tmp=$(mktemp -d)
  g++ -shared -o "$tmp/libSPIRV-Tools-shared.so" \
    -Wl,--whole-archive "$libdir/libSPIRV-Tools-opt.a" "$libdir/libSPIRV-Tools.a" -Wl,--no-whole-archive
  $SUDO install -m 0755 "$tmp/libSPIRV-Tools-shared.so" /usr/local/lib/libSPIRV-Tools-shared.so
  $SUDO ldconfig
  rm -rf "$tmp"
fi

# A second test device on Debian bookworm: Mesa's newer lavapipe from
# bookworm-backports, unpacked (never installed) beside the system's 22.3. It
# has what 22.3 lacks (descriptor indexing, dynamic indexing of sampled-image
# arrays, acceleration structures, ray queries), so the runtime's native paths
# run in the tests too. `make test` runs the device suites a second time with
# VK_DRIVER_FILES pointing at it. Elsewhere the system's Mesa is the only one.
NEXT_DIR=${LUCENT_LAVAPIPE_NEXT:-/opt/lucent/lavapipe-next}
if grep -q '^VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null && [ ! -f "$NEXT_DIR/lvp_icd.json" ]; then
  echo "setup: unpacking Mesa's lavapipe from bookworm-backports into $NEXT_DIR"
  tmp=$(mktemp -d)
  cat >"$tmp/backports.sources" <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  mkdir -p "$tmp/state/lists/partial" "$tmp/cache/archives/partial" "$tmp/deb"
  apt_opts=(-o Dir::Etc::sourcelist="$tmp/backports.sources" -o Dir::Etc::sourceparts=/dev/null
    -o Dir::State="$tmp/state" -o Dir::Cache="$tmp/cache" -o Dir::State::status=/var/lib/dpkg/status
    -o APT::Sandbox::User=root)
  apt-get "${apt_opts[@]}" update -qq
  (cd "$tmp/deb" && apt-get "${apt_opts[@]}" download -qq mesa-vulkan-drivers/bookworm-backports)
  dpkg-deb -x "$tmp"/deb/mesa-vulkan-drivers_*.deb "$tmp/root"
  lib=$(find "$tmp/root" -name libvulkan_lvp.so | head -n1)
  ver=$(dpkg-deb -f "$tmp"/deb/mesa-vulkan-drivers_*.deb Version)
  # It must load against this system's libraries (LLVM, libdrm, libc): a
  # backports Mesa built against newer ones needs them unpacked beside it.
  if missing_libs=$(ldd "$lib" | grep 'not found'); then
    echo "setup: Mesa $ver's lavapipe from bookworm-backports needs libraries this system lacks:" >&2
    echo "$missing_libs" >&2
    exit 1
  fi
  $SUDO mkdir -p "$NEXT_DIR"
  $SUDO install -m 0755 "$lib" "$NEXT_DIR/libvulkan_lvp.so"
  printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s/libvulkan_lvp.so", "api_version": "1.3.0"}}\n' "$NEXT_DIR" |
    $SUDO tee "$NEXT_DIR/lvp_icd.json.tmp" >/dev/null
  echo "$ver" | $SUDO tee "$NEXT_DIR/VERSION" >/dev/null
  $SUDO mv "$NEXT_DIR/lvp_icd.json.tmp" "$NEXT_DIR/lvp_icd.json"
  rm -rf "$tmp"
fi

go mod download
