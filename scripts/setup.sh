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

go mod download
