"""Time to write the full Excel plan: 60-month horizon, 43,800-hour profile (issue 5).

    /work/main/.venv/bin/python bench/export.py [--repeat 5]

Prints the best and median wall time of plan_xlsx_bytes (compute_plan excluded) and the size
of the workbook. Target: <= 2.5 s on the reference machine.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from models.plan import compute_plan  # noqa: E402
from models.profile import UsageProfile  # noqa: E402
from models.scenario import Scenario  # noqa: E402
from service.export_xlsx import plan_xlsx_bytes  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    scenario = Scenario.model_validate({
        "name": "bench: 60 months, 43,800-hour profile",
        "finance": {"horizon_months": 60, "tax_rate": 0.25},
        "owned": {"financing": {"kind": "loan"}},
        "proposed": {"servers": 4, "committed_gpus": {"1y": 16, "3y": 8}}})
    plan = compute_plan(scenario, profile())
    times, cpu, size = [], [], 0
    for _ in range(args.repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        size = len(plan_xlsx_bytes(plan))
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    print(f"plan_xlsx_bytes: {len(plan.strategies)} strategies x {len(plan.calendar.months)} "
          f"months, profile {len(plan.profile.starts):,} hours")
    print(f"best {min(times):.2f} s, median {statistics.median(times):.2f} s over {args.repeat} "
          f"runs (CPU time best {min(cpu):.2f} s); {size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
