#!/usr/bin/env python3
"""Plot bench_coll's CSV files: one PNG per collective.

    python3 bench/plot_coll.py coll-2pe.csv coll-4pe.csv --out plots/

Each CSV is what `bench_coll --csv FILE` wrote (header op,bytes,npes,ishmem_us,mpi_us,ratio,q1,q3;
lines starting with '#' are skipped, so bench_coll's stdout works too). For every op, the PNG
OUT/coll_<op>.png shows the time per call against the size (log-log), ishmem's and Open MPI's, one
line per (library, number of PEs): ishmem solid, MPI dashed, one colour per PE count. The barriers
(bytes 0) have no size: their PNG shows the time per call against the number of PEs.
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after the backend is chosen)
from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402

# The peer of each op, for the legend.
MPI_NAME = {
    "barrier_all": "MPI_Barrier",
    "team_sync": "MPI_Barrier",
    "sync_all": "MPI_Barrier",
    "broadcastmem": "MPI_Bcast",
    "alltoallmem": "MPI_Alltoall",
    "fcollectmem": "MPI_Allgather",
    "collectmem": "MPI_Allgatherv",
    "int64_sum_reduce": "MPI_Allreduce",
    "double_sum_reduce": "MPI_Allreduce",
    "int64_sum_inscan": "MPI_Scan",
    "int64_sum_exscan": "MPI_Exscan",
}
COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown"]
FIELDS = ["op", "bytes", "npes", "ishmem_us", "mpi_us", "ratio", "q1", "q3"]


def read_rows(paths):
    """Rows of all files as dicts with typed values; later files win for the same (op, bytes, npes)."""
    rows = {}
    for path in paths:
        with open(path, newline="") as f:
            lines = [l for l in f if l.strip() and not l.startswith("#")]
        reader = csv.DictReader(lines)
        missing = [c for c in FIELDS if c not in (reader.fieldnames or [])]
        if missing:
            sys.exit(f"plot_coll: {path}: not a bench_coll CSV (missing columns {', '.join(missing)})")
        for r in reader:
            try:
                row = {
                    "op": r["op"],
                    "bytes": int(r["bytes"]),
                    "npes": int(r["npes"]),
                    "ishmem_us": float(r["ishmem_us"]),
                    "mpi_us": float(r["mpi_us"]),
                    "ratio": float(r["ratio"]),
                }
            except (TypeError, ValueError):
                sys.exit(f"plot_coll: {path}: bad line {r}")
            rows[(row["op"], row["bytes"], row["npes"])] = row
    return list(rows.values())


def human(nbytes, _pos=None):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if nbytes >= (1 << shift):
            v = nbytes / (1 << shift)
            return f"{v:g} {unit}"
    return f"{nbytes:g} B"


def plot_op(op, rows, out_dir):
    npes_list = sorted({r["npes"] for r in rows})
    colour = {n: COLOURS[i % len(COLOURS)] for i, n in enumerate(npes_list)}
    mpi = MPI_NAME.get(op, "Open MPI")
    fig, ax = plt.subplots(figsize=(7.5, 5))
    sized = any(r["bytes"] > 0 for r in rows)
    if sized:
        for n in npes_list:
            pts = sorted((r for r in rows if r["npes"] == n), key=lambda r: r["bytes"])
            x = [r["bytes"] for r in pts]
            ax.plot(x, [r["ishmem_us"] for r in pts], "-o", color=colour[n], ms=4, label=f"ishmem, {n} PEs")
            ax.plot(x, [r["mpi_us"] for r in pts], "--s", color=colour[n], ms=4, mfc="none",
                    label=f"{mpi}, {n} PEs")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(human))
        ax.set_xlabel("bytes (per PE for alltoall, fcollect, collect)")
    else:
        pts = sorted(rows, key=lambda r: r["npes"])
        x = [r["npes"] for r in pts]
        ax.plot(x, [r["ishmem_us"] for r in pts], "-o", color=COLOURS[0], label=f"ishmem {op}")
        ax.plot(x, [r["mpi_us"] for r in pts], "--s", color=COLOURS[1], mfc="none", label=mpi)
        ax.set_xscale("log", base=2)
        ax.set_xticks(x)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
        ax.set_xlabel("PEs")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    lo, hi = ax.get_ylim()
    if hi / lo < 100:  # less than two decades: label 2x and 5x too, or the axis shows one number
        ax.yaxis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.set_ylabel("time per call (us, median; slowest PE)")
    ax.set_title(f"{op} vs {mpi}")
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", alpha=0.15)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out_dir, f"coll_{op}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description="Plot bench_coll CSV files: one PNG per collective.")
    ap.add_argument("csv", nargs="+", help="CSV files written by bench_coll --csv")
    ap.add_argument("--out", required=True, help="directory for the PNGs (created if missing)")
    args = ap.parse_args()
    rows = read_rows(args.csv)
    if not rows:
        sys.exit("plot_coll: no data rows in " + ", ".join(args.csv))
    os.makedirs(args.out, exist_ok=True)
    ops = []
    for r in rows:
        if r["op"] not in ops:
            ops.append(r["op"])
    for op in ops:
        print(plot_op(op, [r for r in rows if r["op"] == op], args.out))


if __name__ == "__main__":
    main()
