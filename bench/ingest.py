"""Ingest benchmark: full read_usage against the bare pandas read it is built on.

    python bench/ingest.py

Prints the best of 7 interleaved runs of each:
- a 43,800-row, 4-column xlsx (5 years of hours, date cells): bare
  ``pd.read_excel(engine="calamine")`` vs ``read_usage`` (target: within 1.3x);
- a 175,320-row CSV (20 years of hours, the longest span a usage file may have): bare
  ``pd.read_csv`` vs ``read_usage`` (target: <= 0.2 s, set for 200,000 rows).
Inputs are generated in a temporary directory (fixed seed).
"""
from __future__ import annotations

import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import xlsxwriter

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from service.ingest import read_usage

RUNS = 7
ROWS = 175_320   # hours in 20 years (2022-2041), service.ingest.build.MAX_SPAN_YEARS


def best_pair(bare, full) -> tuple[float, float]:
    """Best time of each, runs interleaved so machine load hits both alike."""
    times: tuple[list, list] = ([], [])
    for _ in range(RUNS):
        for fn, out in ((bare, times[0]), (full, times[1])):
            start = time.perf_counter()
            fn()
            out.append(time.perf_counter() - start)
    return min(times[0]), min(times[1])


def usage_frame(rows: int, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    hours = pd.date_range("2022-01-01", periods=rows, freq="h")
    return pd.DataFrame({"timestamp": hours, "gpu_hours": rng.gamma(4, 10, rows).round(2),
                         "workload": np.where(rng.random(rows) < 0.3, "interruptible", "steady"),
                         "team": rng.choice(["serving", "research", "vision"], rows)})


def write_xlsx(frame: pd.DataFrame, path: Path) -> None:
    book = xlsxwriter.Workbook(path, {"constant_memory": True})
    sheet = book.add_worksheet("usage")
    date = book.add_format({"num_format": "yyyy-mm-dd hh:mm"})
    sheet.write_row(0, 0, list(frame.columns))
    for r, (stamp, hours, workload, team) in enumerate(frame.itertuples(index=False), start=1):
        sheet.write_datetime(r, 0, stamp.to_pydatetime(), date)
        sheet.write_number(r, 1, hours)
        sheet.write_string(r, 2, workload)
        sheet.write_string(r, 3, team)
    book.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        xlsx_path = Path(tmp) / "usage_43800.xlsx"
        write_xlsx(usage_frame(43_800), xlsx_path)
        data = xlsx_path.read_bytes()
        bare, full = best_pair(lambda: pd.read_excel(io.BytesIO(data), engine="calamine"),
                               lambda: read_usage(data, xlsx_path.name))
        print(f"xlsx 43,800 rows x 4 columns ({len(data) / 1e6:.1f} MB): "
              f"pd.read_excel(calamine) {bare:.3f} s, read_usage {full:.3f} s, "
              f"ratio {full / bare:.2f}x (target <= 1.3x)")

        frame = usage_frame(ROWS)
        frame["timestamp"] = frame["timestamp"].dt.strftime("%Y-%m-%dT%H:%M:%S")
        csv = frame.to_csv(index=False).encode()
        bare, full = best_pair(lambda: pd.read_csv(io.BytesIO(csv)),
                               lambda: read_usage(csv, f"usage_{ROWS}.csv"))
        print(f"csv {ROWS:,} rows x 4 columns ({len(csv) / 1e6:.1f} MB): pd.read_csv {bare:.3f} s,"
              f" read_usage {full:.3f} s (target <= 0.2 s)")


if __name__ == "__main__":
    main()
