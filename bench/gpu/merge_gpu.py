#!/usr/bin/env python3
"""Merge bench_gpu's CSV (ishmem) and bench_gpu_nvshmem's (NVSHMEM) into one, and print a summary.

    python3 bench/gpu/merge_gpu.py ours.csv [nvshmem.csv] --out merged.csv [--note TEXT]... [--peer-name NAME]

Inputs: lines name,bytes,metric,value ('#' lines skipped). Output: name,bytes,metric,ours,nvshmem,ratio
with ratio = ours / nvshmem for both metrics (the peer's column is named by --peer-name: nvshmem, or
nccl for bench_gpu_nccl's CSV), so that
  - metric us (time per operation): ratio < 1 means ishmem is faster;
  - metric GBps (bandwidth):        ratio > 1 means ishmem is faster.
The summary (stdout, last) lists the latencies, the bandwidth modes and the targets: every latency
at or below NVSHMEM's, every bandwidth at or above it, and many-block puts >= 383 GB/s from 1 MiB.
Standard library only: runs with any python3.
"""
import argparse
import csv
import re
import sys

MANY_BLOCK_PUT = re.compile(r"^putmem/(\d+)blocks$")
TARGET_GBPS = 383.0
TARGET_FROM_BYTES = 1 << 20


def read(path):
    """{(name, bytes, metric): value} in file order."""
    rows = {}
    with open(path, newline="") as f:
        lines = [l for l in f if l.strip() and not l.startswith("#")]
    reader = csv.DictReader(lines)
    if reader.fieldnames != ["name", "bytes", "metric", "value"]:
        sys.exit(f"merge_gpu: {path}: not a bench_gpu CSV (header {reader.fieldnames})")
    for r in reader:
        try:
            rows[(r["name"], int(r["bytes"]), r["metric"])] = float(r["value"])
        except (TypeError, ValueError):
            sys.exit(f"merge_gpu: {path}: bad line {r}")
    return rows


def human(n):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= (1 << shift) and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def fmt(v, digits=3):
    return "-" if v is None else f"{v:.{digits}f}"


def merge(ours, peer):
    keys = list(ours) + [k for k in peer if k not in ours]
    out = []
    for k in keys:
        a, b = ours.get(k), peer.get(k)
        ratio = a / b if a is not None and b not in (None, 0.0) else None
        out.append({"name": k[0], "bytes": k[1], "metric": k[2], "ours": a, "peer": b, "ratio": ratio})
    return out


def write(rows, path, notes, peer):
    with open(path, "w", newline="") as f:
        f.write(f"# bench_gpu: ishmem (ours) against {peer} in one job; ratio = ours / {peer}\n")
        f.write("# metric us (time per operation): ratio < 1 means ishmem is faster\n")
        f.write("# metric GBps (bandwidth): ratio > 1 means ishmem is faster\n")
        for n in notes:
            f.write(f"# {n}\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["name", "bytes", "metric", "ours", peer, "ratio"])
        for r in rows:
            w.writerow([r["name"], r["bytes"], r["metric"],
                        "" if r["ours"] is None else f"{r['ours']:.6g}",
                        "" if r["peer"] is None else f"{r['peer']:.6g}",
                        "" if r["ratio"] is None else f"{r['ratio']:.4f}"])


def summary(rows, have_peer, peer="nvshmem"):
    bw_names = {r["name"] for r in rows if r["metric"] == "GBps"}
    latency = [r for r in rows if r["metric"] == "us" and r["name"] not in bw_names]
    bandwidth = [r for r in rows if r["metric"] == "GBps"]
    print(f"# summary: ishmem (ours) against {peer}; us: ratio < 1 is ishmem faster; GB/s: ratio > 1 is ishmem faster")
    if latency:
        print("#")
        print(f"# {'latency':<38} {'ours us':>9} {peer + ' us':>11} {'ratio':>7}")
        for r in latency:
            print(f"# {r['name']:<38} {fmt(r['ours']):>9} {fmt(r['peer']):>11} {fmt(r['ratio']):>7}")
    names = []
    for r in bandwidth:
        if r["name"] not in names:
            names.append(r["name"])
    if names:
        print("#")
        print(f"# {'bandwidth (largest size)':<24} {'bytes':>8} {'ours GB/s':>10} {peer:>8} {'ratio':>7}"
              f"   {'worst ratio':>11} {'at':>8}")
        for name in names:
            pts = sorted((r for r in bandwidth if r["name"] == name), key=lambda r: r["bytes"])
            last = pts[-1]
            rated = [r for r in pts if r["ratio"] is not None]
            worst = min(rated, key=lambda r: r["ratio"]) if rated else None
            print(f"# {name:<24} {human(last['bytes']):>8} {fmt(last['ours'], 1):>10} {fmt(last['peer'], 1):>8} "
                  f"{fmt(last['ratio']):>7}   {fmt(worst['ratio'] if worst else None):>11} "
                  f"{human(worst['bytes']) if worst else '-':>8}")
    # Targets.
    print("#")
    print("# targets:")
    lat_miss = [r for r in latency if r["ratio"] is not None and r["ratio"] > 1.0]
    bw_miss = [r for r in bandwidth if r["ratio"] is not None and r["ratio"] < 1.0]
    # The absolute target is for puts from every SM (the largest block count); smaller grids are
    # shown against the same figure for information.
    grids = {r["name"]: int(MANY_BLOCK_PUT.match(r["name"]).group(1))
             for r in bandwidth if MANY_BLOCK_PUT.match(r["name"])}
    full = max(grids.values()) if grids else None
    big = [r for r in bandwidth if r["name"] in grids and r["bytes"] >= TARGET_FROM_BYTES]
    many = [r for r in big if grids[r["name"]] == full]
    abs_miss = [r for r in many if r["ours"] is None or r["ours"] < TARGET_GBPS]
    if have_peer:
        rated = [r for r in latency if r["ratio"] is not None]
        print(f"#   every latency at or below {peer}'s (ratio <= 1): "
              f"{'holds' if not lat_miss else 'MISSED'} ({len(rated) - len(lat_miss)}/{len(rated)})")
        for r in lat_miss:
            print(f"#     {r['name']}: {fmt(r['ours'])} us against {fmt(r['peer'])} us, ratio {fmt(r['ratio'])}")
        rated = [r for r in bandwidth if r["ratio"] is not None]
        print(f"#   every bandwidth at or above {peer}'s (ratio >= 1): "
              f"{'holds' if not bw_miss else 'MISSED'} ({len(rated) - len(bw_miss)}/{len(rated)} points)")
        for r in sorted(bw_miss, key=lambda r: r["ratio"])[:12]:
            print(f"#     {r['name']} {human(r['bytes'])}: {fmt(r['ours'], 2)} GB/s against "
                  f"{fmt(r['peer'], 2)}, ratio {fmt(r['ratio'])}")
        if len(bw_miss) > 12:
            print(f"#     ... and {len(bw_miss) - 12} more")
    else:
        print(f"#   (no {peer} numbers: the comparisons with {peer} were not made)")
    if many:
        print(f"#   putmem/{full}blocks (every SM) >= {human(TARGET_FROM_BYTES)} at >= {TARGET_GBPS:g} GB/s: "
              f"{'holds' if not abs_miss else 'MISSED'} ({len(many) - len(abs_miss)}/{len(many)} points)")
        for r in abs_miss:
            print(f"#     {r['name']} {human(r['bytes'])}: {fmt(r['ours'], 1)} GB/s")
        for name in sorted({r["name"] for r in big if grids[r["name"]] != full}, key=lambda n: grids[n]):
            pts = [r for r in big if r["name"] == name]
            reach = sum(1 for r in pts if r["ours"] is not None and r["ours"] >= TARGET_GBPS)
            print(f"#   (for information: {name} reaches {TARGET_GBPS:g} GB/s at {reach}/{len(pts)} points "
                  f">= {human(TARGET_FROM_BYTES)}; best {fmt(max(r['ours'] or 0 for r in pts), 1)} GB/s)")
    else:
        print(f"#   many-block puts >= {human(TARGET_FROM_BYTES)}: not measured in this run")


def main():
    ap = argparse.ArgumentParser(description="Merge bench_gpu and bench_gpu_nvshmem CSVs; print a summary.")
    ap.add_argument("ours", help="CSV of bench_gpu (ishmem)")
    ap.add_argument("nvshmem", nargs="?", help="CSV of bench_gpu_nvshmem (omit when NVSHMEM was not run)")
    ap.add_argument("--out", required=True, help="the merged CSV to write")
    ap.add_argument("--note", action="append", default=[], help="a '#' line for the merged CSV's head")
    ap.add_argument("--peer-name", default="nvshmem", help="the peer's column name (nvshmem, nccl)")
    args = ap.parse_args()
    ours = read(args.ours)
    peer = read(args.nvshmem) if args.nvshmem else {}
    rows = merge(ours, peer)
    write(rows, args.out, args.note, args.peer_name)
    summary(rows, bool(peer), args.peer_name)
    print(f"# merged CSV: {args.out}")


if __name__ == "__main__":
    main()
