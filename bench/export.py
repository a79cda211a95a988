"""Time to write the full Excel plan: 60-month horizon, 43,800-hour profile (issue 5).

    /work/main/.venv/bin/python bench/export.py [--repeat 5]

Prints the best and median wall time of plan_xlsx_bytes (compute_plan excluded) and the size
of the workbook. Target: <= 2.5 s on the reference machine.

    /work/main/.venv/bin/python bench/export.py --growth [--recalc]

does the same for samples/scenario_growth.json with samples/usage_hourly.csv (servers owned, a
signed contract, the staged plan with its Schedule sheet, a proposed schedule) and, with
--recalc, recalculates the workbook in LibreOffice headless and prints the largest relative
difference between a formula's result and the engine's number cached in it.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import openpyxl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from models.plan import compute_plan  # noqa: E402
from models.profile import UsageProfile  # noqa: E402
from models.scenario import Scenario  # noqa: E402
from service.xlsx.export import plan_xlsx_bytes  # noqa: E402
from service.ingest import load_usage  # noqa: E402
from service.xlsx.libreoffice import recalculate  # noqa: E402

HOURS = 43_800


def profile(hours: int = HOURS) -> UsageProfile:
    """Five years of hourly usage: a daily cycle, weekly dip, growth and noise."""
    rng = np.random.default_rng(5)
    t = np.arange(hours)
    base = 40 + 15 * np.sin(2 * np.pi * (t % 24) / 24) - 8 * ((t // 24) % 7 >= 5) + t / 2000
    total = np.maximum(base + rng.normal(0, 4, hours), 0)
    starts = np.datetime64("2021-01-01T00", "h") + t.astype("timedelta64[h]")
    return UsageProfile("hour", starts, total * 0.6, total * 0.4, has_workload=True,
                        teams={"training": float(total.sum() * 0.4),
                               "serving": float(total.sum() * 0.6)})


def growth_plan():
    samples = Path(__file__).resolve().parent.parent / "samples"
    scenario = Scenario.model_validate_json((samples / "scenario_growth.json").read_text())
    return compute_plan(scenario, load_usage(samples / "usage_hourly.csv").profile)


def largest_difference(data: bytes) -> tuple[int, float, float]:
    """(formula cells, largest relative difference, LibreOffice seconds) of a recalculation."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "plan.xlsx"
        source.write_bytes(data)
        start = time.perf_counter()
        out = recalculate([source], Path(tmp) / "out")[0]
        seconds = time.perf_counter() - start
        books = [openpyxl.load_workbook(p, read_only=True, data_only=d)
                 for p, d in ((source, False), (source, True), (out, True))]
        count, worst = 0, 0.0
        for name in books[0].sheetnames:
            if name == "Profile":
                continue
            rows = zip(*(b[name].iter_rows(values_only=True) for b in books))
            for formulas, cached, recalculated in rows:
                for f, a, b in zip(formulas, cached, recalculated):
                    if isinstance(f, str) and f.startswith("="):
                        count += 1
                        if isinstance(a, float) and isinstance(b, (int, float)) and a != b:
                            worst = max(worst, abs(a - b) / max(abs(a), 1e-9))
        return count, worst, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--growth", action="store_true", help="the growth sample")
    parser.add_argument("--recalc", action="store_true", help="LibreOffice recalculation")
    args = parser.parse_args()
    scenario = Scenario.model_validate({
        "name": "bench: 60 months, 43,800-hour profile",
        "finance": {"horizon_months": 60, "tax_rate": 0.25},
        "owned": {"financing": {"kind": "loan"}},
        "proposed": {"servers": 4, "committed_gpus": {"1y": 16, "3y": 8}}})
    plan = growth_plan() if args.growth else compute_plan(scenario, profile())
    times, cpu, size = [], [], 0
    for _ in range(args.repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        data = plan_xlsx_bytes(plan.document, plan.ledger)
        size = len(data)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    print(f"plan_xlsx_bytes: {len(plan.strategies)} strategies x {len(plan.calendar.months)} "
          f"months, profile {len(plan.profile.starts):,} hours")
    print(f"best {min(times):.2f} s, median {statistics.median(times):.2f} s over {args.repeat} "
          f"runs (CPU time best {min(cpu):.2f} s); {size / 1e6:.2f} MB")
    if args.recalc:
        count, worst, seconds = largest_difference(data)
        print(f"LibreOffice recalculation: {count:,} formula cells in {seconds:.1f} s, largest "
              f"relative difference from the engine {worst:.1e}")


if __name__ == "__main__":
    main()
