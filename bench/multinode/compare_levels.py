#!/usr/bin/env python3
"""Two-level over one-level collectives across nodes: ishmem's time of every bench_coll point in
TWO_LEVEL.csv (ISHMEM_HIERARCHICAL=1) over its time in ONE_LEVEL.csv (=0), the same job shape.

    compare_levels.py TWO_LEVEL.csv ONE_LEVEL.csv

Prints one line per point (below 1: the two-level form is faster) and the geometric mean."""
import csv
import math
import sys


def times(path):
    with open(path, newline="") as f:
        return {(r["op"], int(r["bytes"])): float(r["ishmem_us"]) for r in csv.DictReader(f)}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    two, one = times(sys.argv[1]), times(sys.argv[2])
    ratios = []
    print(f"{'op':24} {'bytes':>10} {'two-level us':>13} {'one-level us':>13} {'ratio':>7}")
    for key in sorted(two, key=lambda k: (k[0], k[1])):
        if key not in one or one[key] <= 0:
            continue
        r = two[key] / one[key]
        ratios.append(r)
        print(f"{key[0]:24} {key[1]:>10} {two[key]:>13.2f} {one[key]:>13.2f} {r:>7.3f}")
    if ratios:
        print(f"geometric mean of {len(ratios)} points: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}")


if __name__ == "__main__":
    main()
