#!/usr/bin/env bash
# Installs what building, testing and documenting ishmem needs on Debian 12 (skips what is there).
set -euo pipefail
packages=(g++ cmake make pkg-config git libgtest-dev libbenchmark-dev libopenmpi-dev openmpi-bin
          python3 python3-jinja2 python3-yaml python3-jsonschema python3-pytest python3-sphinx
          clang-format)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
