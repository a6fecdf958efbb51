"""`make bench-reconcile`'s crafted books (bench/reconcile.py runs these): one long line of commas, one wide
header of distinct names, and one row of quoted line breaks ("\n" cells, lines of a few bytes), from 1 to 50 MB.
Each is refused (a line or a row over 1 MB, a row over 500 columns: docs/reconciliation.md, "Limits and bad
input"), and the peak of Python's allocations before the refusal stays flat as the file grows: a 20 MB line of
commas once took a worker to 267 MB, a 20 MB row of quoted line breaks about 45 MB."""

import resource
import tempfile
import time
from pathlib import Path

WIDE_MB = (1, 5, 20, 50)
SHAPES = ("commas", "header", "quoted")


def write_wide(path: Path, mb: int, shape: str) -> None:
    with path.open("w", encoding="ascii") as out:
        if shape == "commas":  # written a megabyte at a time: the process's peak is the reading's
            out.write("order_id,amount,currency\nW-1,10.00,USD")
            for _ in range(mb):
                out.write("," * (1024 * 1024))
            out.write("\n")
            return
        if shape == "quoted":  # one row of "\n" cells: short lines, a row as long as the file
            out.write("order_id,amount,currency\nW-1,10.00,USD")
            for _ in range(mb):
                out.write(',"\n"' * (1024 * 1024 // 5))
            out.write("\n")
            return
        name, size = 0, 0
        while size < mb * 1024 * 1024:
            size += out.write(f"column {name},")
            name += 1
        out.write("order_id\n")


def measure_wide(brand_name: str, mb: int, shape: str) -> dict:
    """Reconcile a crafted book of `mb` MB under tracemalloc; refused either way, what it costs first is the
    measure."""
    import tracemalloc

    from attribution.reconciliation import runs
    from attribution.reconciliation.books.errors import BookError
    from brands.models import Brand

    brand = Brand.objects.get(name=brand_name)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "wide.csv"
        write_wide(path, mb, shape)
        tracemalloc.start()
        started = time.perf_counter()
        refusal = ""
        with path.open("rb") as file:
            try:
                runs.reconcile(brand=brand, file=file, filename=path.name)
            except BookError as exc:
                refusal = exc.message
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return {
        "mb": mb,
        "shape": shape,
        "seconds": elapsed,
        "peak_python_mb": peak / 1e6,
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "refusal": refusal,
    }


def report(in_child) -> None:
    """Each crafted book in a process of its own (`in_child(*arguments)`, bench/reconcile.py's)."""
    print("\nCrafted books, refused: memory flat as the file grows (tracemalloc peak, peak RSS):")
    print(f"  {'shape':>7} {'file MB':>8} {'peak Python MB':>15} {'peak RSS MB':>12} {'s':>6}  refusal")
    for shape in SHAPES:
        for mb in WIDE_MB:
            w = in_child("--measure", "wide", "--mb", str(mb), "--shape", shape)
            print(
                f"  {shape:>7} {mb:>8} {w['peak_python_mb']:>15.1f} {w['max_rss_mb']:>12.0f} "
                f"{w['seconds']:>6.2f}  {w['refusal'][:60]}"
            )
