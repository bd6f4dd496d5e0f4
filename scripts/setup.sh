#!/usr/bin/env bash
# Installs kharness's build and test dependencies from Debian 12 packages.
# Safe to run any number of times: apt-get skips what is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build git pkg-config ca-certificates
  nlohmann-json3-dev libcli11-dev libfmt-dev libdlpack-dev libsqlite3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcpp-httplib-dev
  libcurl4-openssl-dev
  # The Slurm executor's tests start a one-node cluster on loopback (docs/scale-out.md):
  # slurmctld, slurmd and the client commands, with munge for their authentication.
  slurm-wlm munge
)
# Headless Chromium for the dashboard's browser test (tests/report/browser_test.cpp):
# about 82 MB to download and 350 MB installed with its ~25 libraries, so it can be
# left out with KHARNESS_NO_BROWSER=1; the test then skips and says why.
if [ "${KHARNESS_NO_BROWSER:-0}" != "1" ]; then
  packages+=(chromium)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Static analysis of CUDA binaries reads SASS with cuobjdump, which some toolkit
# installs lack; NVIDIA publishes it (and the nvdisasm it calls) on PyPI. Only where
# nvcc is present, and never fatal: kharness says so when cuobjdump is missing.
fetch_cuobjdump() {
  local tools="$HOME/.local/share/kharness/cuda-tools/bin"
  command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || return 0
  command -v cuobjdump >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/cuobjdump ] || [ -x "$tools/cuobjdump" ] && return 0
  command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1 || {
    echo "setup: note: no cuobjdump and no pip to fetch it; SASS scans will be skipped"
    return 0
  }
  local tmp
  tmp=$(mktemp -d)
  if python3 -m pip download -q --no-deps -d "$tmp" nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm; then
    mkdir -p "$tools"
    for w in "$tmp"/*.whl; do python3 -m zipfile -e "$w" "$tmp/x"; done
    cp "$tmp"/x/nvidia/cu*/bin/cuobjdump "$tmp"/x/nvidia/cu*/bin/nvdisasm "$tools/" && chmod +x "$tools"/*
    echo "setup: cuobjdump and nvdisasm in $tools"
  else
    echo "setup: note: could not fetch cuobjdump from PyPI; SASS scans will be skipped"
  fi
  rm -rf "$tmp"
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  fetch_cuobjdump
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup: missing packages (${missing[*]}) and neither root nor sudo: run this as root" >&2
    exit 1
  fi
  as_root=(sudo)
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fetch_cuobjdump
