#!/usr/bin/env bash
# stop 53 device call 1: full bench_coll after stop 52's rules, one round each on 6 layouts
set -u
A=bench/multinode/ab_rounds.sh
mkdir -p /tmp/ab
$A --build --out /tmp/ab/survey2 --rounds 1 --layout 1,1,1,1,1,1,1,1 --layout 1,1,1,1 --layout 2,2,2,2 \
  --layout 2,2 --layout 1,2,1 --layout 1,1 \
  --job-timeout 150 --variant 'same --mpi-whole-answer' --limit 575 -- --batches 15
python3 bench/multinode/ab_medians.py /tmp/ab/survey2 same --times > /tmp/ab/survey2/medians.txt 2>&1
grep -v "^   .* 0\.[0-9]*$" /tmp/ab/survey2/medians.txt | head -150
tar czf $OUT/ab.tgz -C /tmp ab
