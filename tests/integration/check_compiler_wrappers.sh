#!/usr/bin/env bash
# oshcc and oshc++ as build systems use them: pointed at with CC=oshcc / CXX=oshc++ (the way
# `./configure CC=oshcc` and `CC=oshcc cmake` do), the underlying compiler from ISHMEM_CC /
# ISHMEM_CXX, and a setting that leads back to a wrapper refused with a message instead of a loop.
# usage: check_compiler_wrappers.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
export PATH=$prefix/bin:$PATH
cd "$tmp"

# What an autotools configure does with CC: preprocess, compile, link and run a test program, then
# build the objects and link them.
export CC=oshcc CXX=oshc++
printf '#include <shmem.h>\nint main(void) { return SHMEM_MAJOR_VERSION == 1 ? 0 : 1; }\n' > conftest.c
timeout 60 $CC -E conftest.c > conftest.i
timeout 60 $CC -c conftest.c -o conftest.o
timeout 60 $CC conftest.o -o conftest
./conftest
timeout 60 $CC -O2 "$src/tests/c/openshmem_test.c" -o openshmem_test
oshrun -n 2 ./openshmem_test | grep -q "openshmem: OK on 2 PEs"
printf '#include <ishmem.h>\nint main() { return ISHMEM_MAJOR_VERSION == 1 ? 0 : 1; }\n' > conftest.cpp
timeout 60 $CXX conftest.cpp -o conftest_cxx
./conftest_cxx

# CMake with CC=oshcc CXX=oshc++ in the environment: its compiler checks and a build through the
# wrappers alone (no find_package).
mkdir -p cmake_app
cat > cmake_app/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(wrapped C CXX)
add_executable(openshmem_test openshmem_test.c)
add_executable(consumer consumer.cpp)
CMAKE
cp "$src/tests/c/openshmem_test.c" "$src/tests/c/check.h" "$src/tests/integration/consumer/consumer.cpp" cmake_app/
timeout 300 cmake -S cmake_app -B cmake_app/build >/dev/null
timeout 300 cmake --build cmake_app/build >/dev/null
oshrun -n 3 cmake_app/build/openshmem_test | grep -q "openshmem: OK on 3 PEs"
oshrun -n 3 cmake_app/build/consumer

# The underlying compiler comes from ISHMEM_CC / ISHMEM_CXX.
ISHMEM_CC="gcc -std=c11" timeout 60 oshcc conftest.c -o conftest_gcc
./conftest_gcc

# A setting that leads back to a wrapper ends at once with a message (a loop would hit the timeout).
for case in "ISHMEM_CC=oshcc oshcc" "ISHMEM_CC=$prefix/bin/oshcc oshcc" "ISHMEM_CXX=oshc++ oshc++" "ISHMEM_CC=oshc++ oshcc"; do
  set +e
  out=$(env ${case% *} timeout 20 ${case##* } conftest.c -o never 2>&1); rc=$?
  set -e
  if [ $rc -ne 2 ] || ! grep -q "leads back to an ishmem compiler wrapper" <<<"$out"; then
    echo "'$case' gave status $rc: $out"; exit 1
  fi
done
set +e
out=$(ISHMEM_CC=no-such-compiler timeout 20 oshcc conftest.c 2>&1); rc=$?
set -e
[ $rc -eq 127 ] && grep -q "no-such-compiler" <<<"$out" || { echo "a missing compiler gave status $rc: $out"; exit 1; }
echo "oshcc/oshc++ under CC=/CXX=, with ISHMEM_CC/ISHMEM_CXX, and refusing loops: ok"
