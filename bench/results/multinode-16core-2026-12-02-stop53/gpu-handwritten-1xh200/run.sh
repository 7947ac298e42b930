#!/usr/bin/env bash
# stop 53 device call 3: the hand-written GPU suite, optimized, on 1 x H200 (main as of stop 53)
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L
TEST_GPU_BUDGET=420 scripts/test-gpu.sh --handwritten > $OUT/gpu-suite.txt 2>&1
rc=$?
tail -60 $OUT/gpu-suite.txt
echo "test-gpu rc $rc"
cd $OUT && tar czf gpu.tgz gpu-suite.txt test-gpu.log 2>/dev/null; rm -f test-gpu.log
