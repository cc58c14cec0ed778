#!/usr/bin/env bash
# Installs what cellfs needs from Debian's packages (as root) and builds it
# into ./build. Used by scripts/demo.sh and scripts/test.sh; safe to rerun.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential meson ninja-build pkg-config
  libfuse3-dev fuse3 liblz4-dev libsnappy-dev libxxhash-dev
  libreadline-dev libjansson-dev
  libleveldb-dev librocksdb-dev
  libgrpc-dev protobuf-c-compiler libprotobuf-c-dev
  bats rsync tar findutils procps python3
  clang libclang-rt-14-dev
  fio stress-ng dbench fsmark bonnie++
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: run as root (apt-get needs it), or install: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -f build/build.ninja ]; then
  rm -rf build
  meson setup build >build-setup.log 2>&1 || { cat build-setup.log >&2; exit 1; }
  rm -f build-setup.log
fi
ninja -C build >/dev/null || { ninja -C build >&2; exit 1; }
echo "setup: built into $(pwd)/build"
