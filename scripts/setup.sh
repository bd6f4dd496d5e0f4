#!/usr/bin/env bash
# Installs kharness's build and test dependencies from Debian 12 packages.
# Safe to run any number of times: apt-get skips what is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build git pkg-config ca-certificates
  nlohmann-json3-dev libcli11-dev libfmt-dev libdlpack-dev libsqlite3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
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
