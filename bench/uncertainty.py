"""Benchmark of issue 7: 10,000 Monte Carlo draws over 60 months on the 43,800-hour sample.

Run from the repository root:  python bench/uncertainty.py [--draws 10000] [--repeat 5]
[--scenario samples/scenario_generations.json]
Prints the best of ``repeat`` timings (target <= 0.5 s for the draws) and the tornado's time;
``--scenario`` another sample, e.g. the fleet of server types (issue 26), whose draws dispatch
by type in each draw's merit order.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from models.optimize import find_optimal  # noqa: E402
from models.plan import build_state  # noqa: E402
from models.scenario import Scenario  # noqa: E402
from models.staged import fleet_optimal  # noqa: E402
from models.strategies import buy_for_peak_capacity, on_demand_capacity  # noqa: E402
from models.uncertainty import monte_carlo, tornado  # noqa: E402
from service.ingest import load_usage  # noqa: E402


def best_of(repeat: int, run) -> tuple[float, float]:
    """Best wall time and best CPU time of ``repeat`` runs [s] (CPU time is the fairer figure
    on a shared machine)."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return min(wall), min(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scenario", default="samples/scenario_h100.json")
    args = parser.parse_args()
    profile = load_usage(ROOT / "samples" / "usage_hourly.csv").profile
    data = json.loads((ROOT / args.scenario).read_text())
    scenario = Scenario.model_validate(data)
    ctx = build_state(scenario, profile)
    found = fleet_optimal(ctx) if scenario.server_types else find_optimal(ctx)
    judged = {"cloud_only": found["cloud_only"].capacity, "optimal": found["optimal"].capacity}
    every = {"on_demand": on_demand_capacity(), "buy_for_peak": buy_for_peak_capacity(ctx),
             **judged}
    months, hours = len(ctx.calendar.hours), ctx.calendar.total_hours
    print(f"sample profile: {len(profile.starts):,} hours, laid over {months} months = "
          f"{hours:,} plan hours")
    for label, caps in (("optimal vs cloud_only", judged), ("all four strategies", every)):
        t, cpu = best_of(args.repeat, lambda: monte_carlo(ctx, caps, args.draws, 1))
        print(f"monte carlo, {args.draws:,} draws, {label}: {t:.3f} s wall, {cpu:.3f} s CPU "
              f"(target <= 0.5 s: {'ok' if t <= 0.5 else 'over'})")
    tornado_caps = {"on_demand": on_demand_capacity(), "optimal": judged["optimal"]}
    t, cpu = best_of(max(1, args.repeat // 2), lambda: tornado(ctx, tornado_caps, profile))
    rows = len(tornado(ctx, tornado_caps, profile))
    print(f"tornado, {rows} assumptions x 2 ends: {t:.3f} s wall, {cpu:.3f} s CPU")


if __name__ == "__main__":
    main()
