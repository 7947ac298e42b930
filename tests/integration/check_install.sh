#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds a user's program against it with
# find_package(ishmem) and with pkg-config, and runs both with the installed ishmrun on 4 PEs (a C++
# program, and an OpenSHMEM program in C built as `cc prog.c $(pkg-config --cflags --libs ishmem)`
# and with the installed oshcc, run with oshrun);
# the installed ishmem-info runs and prints valid JSON.
# usage: check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/ishmem.h include/ishmemx.h include/shmem.h bin/ishmrun bin/ishmem-info bin/oshcc bin/oshc++ bin/oshrun lib/pkgconfig/ishmem.pc lib/cmake/ishmem/ishmemConfig.cmake; do
  [ -e "$prefix/$f" ] || { echo "missing $f in the install"; exit 1; }
done
ls "$prefix"/lib/libishmem.so* >/dev/null
"$prefix/bin/ishmem-info" --json | /usr/bin/python3 -c "import json, sys; json.load(sys.stdin)"
cmake -S "$src/tests/integration/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
"$prefix/bin/ishmrun" -n 4 "$tmp/consumer/consumer_cmake"
"$prefix/bin/ishmrun" -n 4 "$tmp/consumer/consumer_c" | grep -q "openshmem: OK on 4 PEs"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
g++ -std=c++20 "$src/tests/integration/consumer/consumer.cpp" $(pkg-config --cflags --libs ishmem) -o "$tmp/consumer_pc"
"$prefix/bin/ishmrun" -n 4 "$tmp/consumer_pc"
cc "$src/tests/c/openshmem_test.c" $(pkg-config --cflags --libs ishmem) -o "$tmp/openshmem_pc"
"$prefix/bin/ishmrun" -n 4 "$tmp/openshmem_pc" | grep -q "openshmem: OK on 4 PEs"
"$prefix/bin/oshcc" "$src/tests/c/openshmem_test.c" -o "$tmp/openshmem_oshcc"
"$prefix/bin/oshrun" -n 4 "$tmp/openshmem_oshcc" | grep -q "openshmem: OK on 4 PEs"
"$prefix/bin/oshc++" "$src/tests/integration/consumer/consumer.cpp" -o "$tmp/consumer_oshcxx"
"$prefix/bin/oshrun" -n 2 "$tmp/consumer_oshcxx"
echo "install, find_package, pkg-config and oshcc/oshc++/oshrun: ok"
