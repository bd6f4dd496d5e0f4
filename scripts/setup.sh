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
  libseccomp-dev
  # Python solutions and the definitions' PyTorch references run in the worker's embedded
  # CPython, which needs the shared libpython (Debian 12's Python is 3.11); the venv
  # module makes the environment torch goes into (install_torch below).
  python3 python3-venv python3-pip libpython3.11
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

# PyTorch for the tests of Python solutions and PyTorch references on the CPU backend,
# in a venv of its own ($KHARNESS_PYTHON_ENV, default ~/.local/share/kharness/python,
# where the tests look for it). PyPI's Linux torch is the CUDA build: with --no-deps it
# does not import (libtorch_cuda links cuBLAS, cuDNN, NCCL, cuFile, ... from the nvidia-*
# wheels), so it is installed whole, about 3 GB, once per machine. Never fatal: without
# torch those tests skip and say why. KHARNESS_NO_TORCH=1 leaves it out.
install_torch() {
  local env=${KHARNESS_PYTHON_ENV:-$HOME/.local/share/kharness/python}
  if [ "${KHARNESS_NO_TORCH:-0}" = "1" ]; then
    echo "setup: torch left out (KHARNESS_NO_TORCH=1); tests of Python solutions will skip"
    return 0
  fi
  if [ -x "$env/bin/python3" ] && "$env/bin/python3" -c 'import torch' >/dev/null 2>&1; then
    echo "setup: torch $("$env/bin/python3" -c 'import torch; print(torch.__version__)' 2>/dev/null) in $env"
    return 0
  fi
  echo "setup: installing torch from PyPI into $env (about 3 GB with its CUDA libraries)"
  if python3 -m venv "$env" && "$env/bin/python3" -m pip install --progress-bar off -q torch numpy; then
    echo "setup: torch installed in $env"
  else
    echo "setup: note: could not install torch into $env; tests of Python solutions will skip"
  fi
}

# From PyPI: apache-tvm-ffi's headers and library (solutions with "binding": "tvm-ffi"), and
# flashinfer-bench's data model (the test that loads exports with its own loader).
fetch_pypi() {
  bash "$(dirname "$0")/setup_tvm_ffi.sh"
  bash "$(dirname "$0")/setup_flashinfer_bench.sh"
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  fetch_cuobjdump
  install_torch
  fetch_pypi
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
install_torch
fetch_pypi
