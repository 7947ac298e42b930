"""What the benchmark plot scripts (plot_rma.py, plot_coll.py, gpu/plot_gpu.py) share: reading a
benchmark's CSV (or its stdout: '#' lines and blank lines are skipped), the colours, the size
labels and writing a figure. Importing it selects matplotlib's file-only backend."""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after the backend is chosen)

COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink"]


def read_csv(path, columns, tool, what):
    """The data rows of path as dicts, each value converted by columns[name] (a function of the
    text); exits with a message naming tool and path when a column is missing or a value is bad."""
    with open(path, newline="") as f:
        lines = [l for l in f if l.strip() and not l.startswith("#")]
    reader = csv.DictReader(lines)
    missing = [c for c in columns if c not in (reader.fieldnames or [])]
    if missing:
        sys.exit(f"{tool}: {path}: not {what} (missing columns {', '.join(missing)})")
    rows = []
    for r in reader:
        try:
            rows.append({name: convert(r[name]) for name, convert in columns.items()})
        except (TypeError, ValueError):
            sys.exit(f"{tool}: {path}: bad line {r}")
    return rows


def human(nbytes, _pos=None):
    """A byte count as 8 B, 64 KiB, 16 MiB (also a FuncFormatter for size axes)."""
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if nbytes >= (1 << shift):
            return f"{nbytes / (1 << shift):g} {unit}"
    return f"{nbytes:g} B"


def save(fig, out_dir, name):
    """Lays fig out, writes it as out_dir/name, closes it and returns the path."""
    fig.tight_layout()
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
