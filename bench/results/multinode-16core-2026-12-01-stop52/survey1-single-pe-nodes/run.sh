#!/usr/bin/env bash
# stop 52 device call 1: survey of layouts never run in full: 4 x 1, 3 x 2, 8 x 1 (main as is)
set -u
A=bench/multinode/ab_rounds.sh
mkdir -p /tmp/ab
$A --build --out /tmp/ab/survey --rounds 2 --layout 1,1,1,1 --layout 2,2,2 --layout 1,1,1,1,1,1,1,1 \
  --job-timeout 150 --variant 'same --mpi-whole-answer' --limit 420 -- --batches 15
python3 bench/multinode/ab_medians.py /tmp/ab/survey same --times > /tmp/ab/survey/medians.txt 2>&1
grep -v "^   .* 0\.[0-9]*$" /tmp/ab/survey/medians.txt | head -120
tar czf $OUT/ab.tgz -C /tmp ab
