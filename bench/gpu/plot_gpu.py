#!/usr/bin/env python3
"""Plot bench/gpu/run.sh's merged CSV: ishmem against NVSHMEM on two GPUs.

    python3 bench/gpu/plot_gpu.py bench/results/gpu-2gpu.csv --out plots/
    python3 bench/gpu/plot_gpu.py coll.csv --nccl coll-nccl.csv --out plots/   # with NCCL's curves

The CSV has the columns name,bytes,metric,ours,nvshmem,ratio ('#' lines skipped); --nccl adds run.sh's
CSV against NCCL (column nccl instead of nvshmem) for the collectives. PNGs written to OUT:
  gpu_latency.png          the latencies (us rows without a GBps twin): bars, ishmem next to NVSHMEM,
                           the ratio above each pair;
  gpu_bw_putmem.png,       bandwidth against size for every device mode (thread, warp, block, the
  gpu_bw_getmem.png        grids), one colour per mode, ishmem solid, NVSHMEM dashed;
  gpu_bw_host.png          the host-issued puts (putmem_on_queue, putmem_host) the same way;
  gpu_bw_<name>.png        one per bandwidth row name, with the 383 GB/s target on the grid puts;
  gpu_coll_<form>_<op>.png one per collective (coll_stream/..., coll_block/...): time per call and
                           bus bandwidth against size, ishmem solid, NVSHMEM dashed, NCCL dotted.
A run without NVSHMEM (empty nvshmem column) plots ishmem alone.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from plot_common import COLOURS, human, read_csv, save as save_figure  # noqa: E402 (selects the backend)
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

GRID_PUT = re.compile(r"^putmem/\d+blocks$")
TARGET_GBPS = 383.0
NVLINK_GBPS = 450.0  # NVLink 4 between two H100/H200s, one direction


def number(text):
    return float(text) if text not in (None, "") else None


def read_rows(path, peer="nvshmem"):
    columns = {"name": str, "bytes": int, "metric": str, "ours": number, peer: number, "ratio": number}
    return read_csv(path, columns, "plot_gpu", "a merged bench_gpu CSV")


def ordered_names(rows):
    names = []
    for r in rows:
        if r["name"] not in names:
            names.append(r["name"])
    return names


def save(fig, out_dir, name):
    print(save_figure(fig, out_dir, name))


def plot_latency(rows, out_dir):
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(rows) + 2), 4.8))
    xs = range(len(rows))
    w = 0.38
    ours = [r["ours"] or 0 for r in rows]
    peer = [r["nvshmem"] or 0 for r in rows]
    ax.bar([x - w / 2 for x in xs], ours, w, color=COLOURS[0], label="ishmem")
    if any(peer):
        ax.bar([x + w / 2 for x in xs], peer, w, color=COLOURS[1], label="NVSHMEM")
    for x, r in zip(xs, rows):
        if r["ratio"] is not None:
            top = max(r["ours"] or 0, r["nvshmem"] or 0)
            ax.annotate(f"{r['ratio']:.2f}x", (x, top), textcoords="offset points", xytext=(0, 3),
                        ha="center", fontsize=8, color="black" if r["ratio"] <= 1 else "tab:red")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([r["name"].replace("+", "+\n") for r in rows], fontsize=8)
    ax.set_ylabel("time per operation (us, median); one-way for ping-pongs")
    ax.set_title("device latency, 2 GPUs (ratio = ishmem / NVSHMEM; < 1: ishmem faster)")
    ax.grid(True, axis="y", alpha=0.4)
    ax.legend(fontsize=8)
    save(fig, out_dir, "gpu_latency.png")


def bw_axes(ax, title):
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(human))
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.set_xlabel("bytes per operation")
    ax.set_ylabel("GB/s (median)")
    ax.set_title(title)
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", alpha=0.15)
    ax.legend(fontsize=8)


def curves(ax, rows, names, label=lambda n: n):
    for i, name in enumerate(names):
        pts = sorted((r for r in rows if r["name"] == name), key=lambda r: r["bytes"])
        x = [r["bytes"] for r in pts]
        c = COLOURS[i % len(COLOURS)]
        ax.plot(x, [r["ours"] for r in pts], "-o", color=c, ms=3.5, label=f"ishmem {label(name)}")
        if any(r["nvshmem"] is not None for r in pts):
            ax.plot(x, [r["nvshmem"] for r in pts], "--s", color=c, ms=3.5, mfc="none",
                    label=f"NVSHMEM {label(name)}")


def plot_bandwidth(rows, out_dir):
    names = ordered_names(rows)
    for op in ("putmem", "getmem"):
        group = [n for n in names if n.startswith(op + "/")]
        if group:
            fig, ax = plt.subplots(figsize=(8, 5.5))
            curves(ax, rows, group, label=lambda n: n.split("/", 1)[1])
            bw_axes(ax, f"device {op}, every mode (ishmem solid, NVSHMEM dashed)")
            save(fig, out_dir, f"gpu_bw_{op}.png")
    host = [n for n in names if "/" not in n]
    if host:
        fig, ax = plt.subplots(figsize=(8, 5.5))
        curves(ax, rows, host)
        bw_axes(ax, "host-issued puts (ishmem solid, NVSHMEM dashed)")
        save(fig, out_dir, "gpu_bw_host.png")
    for name in names:
        fig, ax = plt.subplots(figsize=(7.5, 5))
        curves(ax, rows, [name])
        if GRID_PUT.match(name):
            ax.axhline(TARGET_GBPS, color="tab:green", lw=1, ls=":", label=f"target {TARGET_GBPS:g} GB/s (>= 1 MiB)")
            ax.axhline(NVLINK_GBPS, color="grey", lw=1, ls="-.", label=f"NVLink 4 limit {NVLINK_GBPS:g} GB/s")
        bw_axes(ax, f"{name} (ishmem solid, NVSHMEM dashed)")
        save(fig, out_dir, "gpu_bw_" + re.sub(r"[^A-Za-z0-9_.+-]", "_", name) + ".png")


def plot_collectives(rows, nccl_rows, out_dir):
    """One figure per collective: time per call and bus bandwidth against size."""
    nccl = {(r["name"], r["bytes"], r["metric"]): r["nccl"] for r in nccl_rows}
    for name in ordered_names(rows):
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
        for ax, metric, ylabel in ((axes[0], "us", "time per call (us, median)"),
                                   (axes[1], "GBps", "bus bandwidth (GB/s, NCCL's definition)")):
            pts = sorted((r for r in rows if r["name"] == name and r["metric"] == metric), key=lambda r: r["bytes"])
            if not pts:
                ax.set_visible(False)
                continue
            x = [max(r["bytes"], 1) for r in pts]
            ax.plot(x, [r["ours"] for r in pts], "-o", color=COLOURS[0], ms=3.5, label="ishmem")
            if any(r["nvshmem"] is not None for r in pts):
                ax.plot(x, [r["nvshmem"] for r in pts], "--s", color=COLOURS[1], ms=3.5, mfc="none", label="NVSHMEM")
            theirs = [nccl.get((name, r["bytes"], metric)) for r in pts]
            if any(v is not None for v in theirs):
                ax.plot(x, theirs, ":^", color=COLOURS[2], ms=3.5, mfc="none", label="NCCL")
            ax.set_xscale("log", base=2)
            ax.xaxis.set_major_formatter(FuncFormatter(human))
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
            ax.set_xlabel("bytes (NCCL's size: the array, or the whole dest)")
            ax.set_ylabel(ylabel)
            ax.grid(True, which="major", alpha=0.4)
            ax.grid(True, which="minor", alpha=0.15)
            ax.legend(fontsize=8)
        fig.suptitle(f"{name}, 2 GPUs (ishmem solid, NVSHMEM dashed, NCCL dotted)")
        save(fig, out_dir, "gpu_coll_" + re.sub(r"[^A-Za-z0-9_.+-]", "_", name.replace("coll_", "", 1)) + ".png")


def main():
    ap = argparse.ArgumentParser(description="Plot the merged CSV of bench/gpu/run.sh.")
    ap.add_argument("csv", help="the merged CSV (run.sh --out)")
    ap.add_argument("--nccl", help="run.sh's CSV against NCCL (FILE-nccl.csv), for the collectives")
    ap.add_argument("--out", required=True, help="directory for the PNGs (created if missing)")
    args = ap.parse_args()
    rows = read_rows(args.csv)
    if not rows:
        sys.exit(f"plot_gpu: no data rows in {args.csv}")
    os.makedirs(args.out, exist_ok=True)
    coll = [r for r in rows if r["name"].startswith("coll_")]
    rows = [r for r in rows if not r["name"].startswith("coll_")]
    bw_names = {r["name"] for r in rows if r["metric"] == "GBps"}
    plot_latency([r for r in rows if r["metric"] == "us" and r["name"] not in bw_names], args.out)
    plot_bandwidth([r for r in rows if r["metric"] == "GBps"], args.out)
    if coll:
        plot_collectives(coll, read_rows(args.nccl, "nccl") if args.nccl else [], args.out)


if __name__ == "__main__":
    main()
