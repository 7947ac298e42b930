#!/usr/bin/env bash
# Checks that the hand-written C, C++ and CUDA sources follow .clang-format (runtime/, launcher/,
# tests/, examples/, bench/; generated/ is not checked). Prints each file that differs and exits 1
# when any does; changes nothing. To fix a file: clang-format -i FILE.
#
#   scripts/check-format.sh [--list]      --list: only the names of the files that differ
set -uo pipefail
cd "$(dirname "$0")/.."
list=0
[ "${1:-}" = --list ] && list=1
command -v clang-format >/dev/null || { echo "check-format: clang-format is missing (scripts/setup.sh installs it)" >&2; exit 2; }
mapfile -t files < <(git ls-files -- runtime launcher tests examples bench |
                     grep -E '\.(c|h|cc|cpp|hpp|cu|cuh)$')
bad=0
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    bad=$((bad + 1))
    if [ $list = 1 ]; then echo "$f"; else clang-format --dry-run "$f" 2>&1 | head -20; fi
  fi
done
echo "check-format: $bad of ${#files[@]} files differ from .clang-format" >&2
[ $bad = 0 ]
