#!/usr/bin/env python3
"""Plot bench_coll's CSV files: one PNG per collective.

    python3 bench/plot_coll.py coll-2pe.csv coll-4pe.csv --out plots/
    python3 bench/plot_coll.py a.csv b.csv --labels "2 nodes x 1,2 nodes x 2" --title "across nodes" --out plots/

Each CSV is what `bench_coll --csv FILE` wrote (header op,bytes,npes,ishmem_us,mpi_us,ratio,q1,q3;
lines starting with '#' are skipped, so bench_coll's stdout works too). For every op, the PNG
OUT/coll_<op>.png shows the time per call against the size (log-log), ishmem's and Open MPI's, one
line per (library, number of PEs): ishmem solid, MPI dashed, one colour per PE count. The barriers
(bytes 0) have no size: their PNG shows the time per call against the number of PEs.

With --labels (one per CSV, comma-separated), each file is a series of its own, named by its label
(runs with the same number of PEs in different layouts, e.g. 2 x 2 and 1,2,1 nodes, stay apart),
one colour per file; the barriers are then bars, ishmem's next to MPI's, one group per file.
--title adds a line to every plot's title.
"""
import argparse
import os
import sys

from plot_common import COLOURS, human, read_csv, save  # selects matplotlib's backend first
import matplotlib.pyplot as plt  # noqa: E402
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
COLUMNS = {"op": str, "bytes": int, "npes": int, "ishmem_us": float, "mpi_us": float, "ratio": float, "q1": str,
           "q3": str}


def read_rows(paths, labels=None):
    """Rows of all files as dicts with typed values; later files win for the same (op, bytes, npes),
    or, with labels, for the same (label, op, bytes, npes). Each row gets its file's label (or None)."""
    rows = {}
    for i, path in enumerate(paths):
        label = labels[i] if labels else None
        for row in read_csv(path, COLUMNS, "plot_coll", "a bench_coll CSV"):
            row["label"] = label
            rows[(label, row["op"], row["bytes"], row["npes"])] = row
    return list(rows.values())


def series_of(rows, labels):
    """The series of a plot: (key, name, colour, rows), one per PE count, or per label with labels."""
    if labels:
        keys = [l for l in labels if any(r["label"] == l for r in rows)]
        return [(k, k, COLOURS[labels.index(k) % len(COLOURS)], [r for r in rows if r["label"] == k]) for k in keys]
    npes_list = sorted({r["npes"] for r in rows})
    return [(n, f"{n} PEs", COLOURS[i % len(COLOURS)], [r for r in rows if r["npes"] == n])
            for i, n in enumerate(npes_list)]


def plot_op(op, rows, out_dir, labels=None, title=None):
    mpi = MPI_NAME.get(op, "Open MPI")
    fig, ax = plt.subplots(figsize=(7.5, 5))
    sized = any(r["bytes"] > 0 for r in rows)
    if sized:
        for _key, name, colour, srows in series_of(rows, labels):
            pts = sorted(srows, key=lambda r: r["bytes"])
            x = [r["bytes"] for r in pts]
            ax.plot(x, [r["ishmem_us"] for r in pts], "-o", color=colour, ms=4, label=f"ishmem, {name}")
            ax.plot(x, [r["mpi_us"] for r in pts], "--s", color=colour, ms=4, mfc="none", label=f"{mpi}, {name}")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(human))
        ax.set_xlabel("bytes (per PE for alltoall, fcollect, collect)")
    elif labels:
        groups = series_of(rows, labels)
        x = range(len(groups))
        ours = [g[3][0]["ishmem_us"] for g in groups]
        theirs = [g[3][0]["mpi_us"] for g in groups]
        ax.bar([i - 0.2 for i in x], ours, 0.4, color=COLOURS[0], label=f"ishmem {op}")
        ax.bar([i + 0.2 for i in x], theirs, 0.4, color=COLOURS[1], label=mpi)
        for i, g in enumerate(groups):
            ax.annotate(f"ratio {g[3][0]['ratio']:.2f}", (i, max(ours[i], theirs[i])), ha="center",
                        va="bottom", fontsize=8)
        ax.set_xticks(list(x))
        ax.set_xticklabels([f"{g[1]}\n({g[3][0]['npes']} PEs)" for g in groups])
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
    ax.set_title(f"{op} vs {mpi}" + (f"\n{title}" if title else ""))
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", alpha=0.15)
    ax.legend(fontsize=8)
    return save(fig, out_dir, f"coll_{op}.png")


def main():
    ap = argparse.ArgumentParser(description="Plot bench_coll CSV files: one PNG per collective.")
    ap.add_argument("csv", nargs="+", help="CSV files written by bench_coll --csv")
    ap.add_argument("--out", required=True, help="directory for the PNGs (created if missing)")
    ap.add_argument("--labels", help="one label per CSV, comma-separated: each file is a series of its own")
    ap.add_argument("--title", help="a line added to every plot's title")
    args = ap.parse_args()
    labels = args.labels.split(",") if args.labels else None
    if labels and len(labels) != len(args.csv):
        sys.exit(f"plot_coll: {len(labels)} labels for {len(args.csv)} files")
    rows = read_rows(args.csv, labels)
    if not rows:
        sys.exit("plot_coll: no data rows in " + ", ".join(args.csv))
    os.makedirs(args.out, exist_ok=True)
    ops = []
    for r in rows:
        if r["op"] not in ops:
            ops.append(r["op"])
    for op in ops:
        print(plot_op(op, [r for r in rows if r["op"] == op], args.out, labels, args.title))


if __name__ == "__main__":
    main()
