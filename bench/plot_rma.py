#!/usr/bin/env python3
"""Plot bench_rma's CSV files: latencies, bandwidth curves and ratios, ishmem against its peers.

    python3 bench/plot_rma.py rma.csv [rma-target-ishmem.csv ...] [--labels A,B] [--title T] --out plots/

Each CSV is what `bench_rma --csv FILE` wrote (header op,bytes,ishmem_us,peer,peer_us,ratio; lines
starting with '#' are skipped, so bench_rma's stdout works too). One series per file, named by
--labels (comma-separated, one per file) or else by the file name. Writes into OUT:

- rma_latency.png: the 8-byte operations (long_*), ishmem's time next to Open MPI's (peer `mpi`),
  log scale, with the ratio over each pair;
- rma_bandwidth.png: putmem+quiet and getmem+quiet, GB/s against the size, ishmem solid, Open MPI
  dashed (and memcpy dotted where the file has it: runs on one node);
- rma_ratio.png: ishmem / Open MPI against the size, with the 1.10 line (the target across nodes).
"""
import argparse
import os
import sys

from plot_common import COLOURS, human, read_csv, save  # selects matplotlib's backend first
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

COLUMNS = {"op": str, "bytes": int, "ishmem_us": float, "peer": str, "peer_us": float, "ratio": float}
LAT_OPS = ["long_p", "long_p+quiet", "long_g", "long_atomic_fetch_add", "long_atomic_add", "long_atomic_add+quiet"]
BW_OPS = ["putmem+quiet", "getmem+quiet"]


def read_rows(path):
    return read_csv(path, COLUMNS, "plot_rma", "a bench_rma CSV")


def titled(ax, text, title):
    ax.set_title(text + (f"\n{title}" if title else ""))


def plot_latency(series, out, title):
    ops = [op for op in LAT_OPS if any(r["op"] == op and r["peer"] == "mpi" for _, rows in series for r in rows)]
    if not ops:
        return None
    fig, ax = plt.subplots(figsize=(max(7.5, 1.6 * len(ops) * len(series)), 5))
    n = len(series)
    width = 0.8 / (2 * n)
    for i, (name, rows) in enumerate(series):
        by_op = {r["op"]: r for r in rows if r["peer"] == "mpi"}
        for j, op in enumerate(ops):
            r = by_op.get(op)
            if not r:
                continue
            x0 = j - 0.4 + (2 * i + 0.5) * width
            ax.bar(x0, r["ishmem_us"], width, color=COLOURS[i % len(COLOURS)],
                   label=f"ishmem, {name}" if j == 0 else None)
            ax.bar(x0 + width, r["peer_us"], width, color=COLOURS[i % len(COLOURS)], alpha=0.35, hatch="//",
                   label=f"Open MPI, {name}" if j == 0 else None)
            ax.annotate(f"{r['ratio']:.2f}", (x0 + width / 2, max(r["ishmem_us"], r["peer_us"])), ha="center",
                        va="bottom", fontsize=7)
    ax.set_xticks(range(len(ops)))
    ax.set_xticklabels(ops, rotation=20, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.set_ylabel("time per operation (us, median); ratio ishmem / MPI above")
    titled(ax, "8-byte operations, PE 0 to PE 1", title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    return save(fig, out, "rma_latency.png")


def plot_bandwidth(series, out, title):
    fig, axes = plt.subplots(1, 2, figsize=(12, 5), sharey=True)
    for ax, op in zip(axes, BW_OPS):
        for i, (name, rows) in enumerate(series):
            colour = COLOURS[i % len(COLOURS)]
            mine = sorted((r for r in rows if r["op"] == op and r["peer"] == "mpi"), key=lambda r: r["bytes"])
            if not mine:
                continue
            x = [r["bytes"] for r in mine]
            ax.plot(x, [r["bytes"] / r["ishmem_us"] / 1e3 for r in mine], "-o", ms=3, color=colour,
                    label=f"ishmem, {name}")
            ax.plot(x, [r["bytes"] / r["peer_us"] / 1e3 for r in mine], "--s", ms=3, mfc="none", color=colour,
                    label=f"Open MPI, {name}")
            cp = sorted((r for r in rows if r["op"] == op and r["peer"] == "memcpy"), key=lambda r: r["bytes"])
            if cp:
                ax.plot([r["bytes"] for r in cp], [r["bytes"] / r["peer_us"] / 1e3 for r in cp], ":", color=colour,
                        label=f"memcpy, {name}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(human))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
        ax.set_xlabel("bytes per operation")
        titled(ax, f"{op} (each operation completed)", title)
        ax.grid(True, which="major", alpha=0.4)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("GB/s (median)")
    return save(fig, out, "rma_bandwidth.png")


def plot_ratio(series, out, title):
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for i, (name, rows) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        for op, style in zip(BW_OPS, ["-o", "--s"]):
            pts = sorted((r for r in rows if r["op"] == op and r["peer"] == "mpi"), key=lambda r: r["bytes"])
            if pts:
                ax.plot([r["bytes"] for r in pts], [r["ratio"] for r in pts], style, ms=3, color=colour,
                        label=f"{op}, {name}")
    ax.axhline(1.10, color="black", lw=0.8, ls=":", label="1.10 (target)")
    ax.axhline(1.0, color="grey", lw=0.6)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(human))
    ax.set_xlabel("bytes per operation")
    ax.set_ylabel("ishmem / Open MPI (median of per-round ratios)")
    lo, hi = ax.get_ylim()
    ax.set_ylim(max(0.0, min(lo, 0.8)), min(max(hi, 1.3), 3.0))
    titled(ax, "put and get: ratio to Open MPI", title)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return save(fig, out, "rma_ratio.png")


def main():
    ap = argparse.ArgumentParser(description="Plot bench_rma CSV files.")
    ap.add_argument("csv", nargs="+", help="CSV files written by bench_rma --csv")
    ap.add_argument("--out", required=True, help="directory for the PNGs (created if missing)")
    ap.add_argument("--labels", help="one label per CSV, comma-separated (default: the file names)")
    ap.add_argument("--title", help="a line added to every plot's title")
    args = ap.parse_args()
    labels = args.labels.split(",") if args.labels else [os.path.splitext(os.path.basename(p))[0] for p in args.csv]
    if len(labels) != len(args.csv):
        sys.exit(f"plot_rma: {len(labels)} labels for {len(args.csv)} files")
    series = [(label, read_rows(path)) for label, path in zip(labels, args.csv)]
    if not any(rows for _, rows in series):
        sys.exit("plot_rma: no data rows in " + ", ".join(args.csv))
    os.makedirs(args.out, exist_ok=True)
    for path in (plot_latency(series, args.out, args.title), plot_bandwidth(series, args.out, args.title),
                 plot_ratio(series, args.out, args.title)):
        if path:
            print(path)


if __name__ == "__main__":
    main()
