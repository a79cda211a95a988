"""Throughput of `buyrent batch` on 1 and 2 worker processes (issue 28: about twice as fast on
two). A sweep of 8 scenarios of the daily sample (36 months, no Monte Carlo), planned on a fresh
instance each time (SQLite queue and database), so that no plan is reused.

    python bench/batch.py
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SWEEP = {"scenario": {"finance": {"horizon_months": 36}, "uncertainty": {"draws": 0}},
         "usage": str(ROOT / "samples" / "usage_daily.csv"),
         "sweep": {"owned.server_price": [240000, 280000, 320000, 360000],
                   "profile.growth_annual": [0.0, 0.4]}}


def run(workers: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sweep.json"
        path.write_text(json.dumps(SWEEP))
        env = {**os.environ, "BUYRENT_INSTANCE": str(Path(tmp) / "inst"),
               "BUYRENT_CURRENT_MONTH": "2026-12"}
        env.pop("DATABASE_URL", None)
        env.pop("BUYRENT_QUEUE_URL", None)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "service.cli.main", "batch", str(path),
                               "--jobs", str(workers), "--out", str(Path(tmp) / "summary")],
                              cwd=ROOT, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(done.stderr[-2000:])
        return seconds


def main() -> None:
    n = 8
    one = run(1)
    two = run(2)
    load = os.getloadavg()[0]
    print(f"buyrent batch, {n} scenarios: 1 worker {one:.1f} s ({n / one * 60:.1f}/min), "
          f"2 workers {two:.1f} s ({n / two * 60:.1f}/min): {one / two:.2f}x "
          f"(target about 2x on 2 cores); load average {load:.1f}")


if __name__ == "__main__":
    main()
