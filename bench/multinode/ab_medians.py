#!/usr/bin/env python3
"""Medians of an A/B of bench_coll runs made in one job, variant against variant.

An A/B swaps builds of the library between interleaved runs of bench_coll on the same machine
(bench/multinode/ab_rounds.sh); each run writes DIR/coll-ROUND-LAYOUT-VARIANT.csv. For each
layout this prints, per variant, how many points are behind MPI (median over the rounds of the
ratio ishmem/MPI above 1.00, 1.05 and 1.10) and the geometric mean of those medians, then every
point where some variant's median is over 1.05 (or whose op contains --show).

    ab_medians.py DIR old,new [--show collectmem] [--times]

--times: every point, each variant's median times (ishmem / MPI, us) beside its median ratio; for
A/Bs whose variants may change MPI's time too (e.g. ishmem's progress thread beside the MPI peer).
"""
import argparse
import collections
import csv
import glob
import math
import os
import re
import statistics


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("variants", help="comma-separated, as in the file names")
    ap.add_argument("--show", default=None, help="also list every point of ops containing this")
    ap.add_argument("--times", action="store_true", help="list every point with the median times of both sides")
    a = ap.parse_args()
    variants = a.variants.split(",")
    name = re.compile(r"coll-(\d+)-(.+)-([^-]+)\.csv$")
    layouts = sorted({name.search(os.path.basename(f)).group(2)
                      for f in glob.glob(os.path.join(a.dir, "coll-*.csv")) if name.search(os.path.basename(f))})
    for layout in layouts:
        ratios = collections.defaultdict(lambda: collections.defaultdict(list))
        times = collections.defaultdict(lambda: collections.defaultdict(list))  # (ishmem_us, mpi_us)
        runs = {}
        for v in variants:
            # (by the parsed name: the glob coll-*-1-1-v.csv also matches layout 1-1-1's files)
            files = sorted(f for f in glob.glob(os.path.join(a.dir, f"coll-*-{layout}-{v}.csv"))
                           if name.search(os.path.basename(f)).group(2) == layout)
            runs[v] = len(files)
            for f in files:
                for row in csv.DictReader(open(f)):
                    ratios[(row["op"], int(row["bytes"]))][v].append(float(row["ratio"]))
                    times[(row["op"], int(row["bytes"]))][v].append((float(row["ishmem_us"]), float(row["mpi_us"])))
        print(f"## {layout} (PEs per node)")
        for v in variants:
            meds = [statistics.median(r[v]) for r in ratios.values() if r[v]]
            if not meds:
                continue
            gm = math.exp(sum(map(math.log, meds)) / len(meds))
            print(f"  {v:8s} runs {runs[v]}  behind {sum(m > 1.0 for m in meds)}/{len(meds)}  "
                  f">1.05 {sum(m > 1.05 for m in meds)}  >1.10 {sum(m > 1.10 for m in meds)}  geomean {gm:.3f}")
        for key in sorted(ratios):
            meds = {v: statistics.median(ratios[key][v]) for v in variants if ratios[key][v]}
            if a.times:
                t = {v: [statistics.median(x[i] for x in times[key][v]) for i in (0, 1)] for v in meds}
                print("   %-18s %8d  " % key + "  ".join(f"{v} {t[v][0]:.1f}/{t[v][1]:.1f} {m:.2f}"
                                                           for v, m in meds.items()))
            elif any(m > 1.05 for m in meds.values()) or (a.show and a.show in key[0]):
                print("   %-18s %8d  " % key + "  ".join(f"{v} {m:.2f}" for v, m in meds.items()))


if __name__ == "__main__":
    main()
