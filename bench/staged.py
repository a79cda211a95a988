"""The staged plan (models/staged.py) on a growing team: solve time and the saving it finds.

    .venv/bin/python bench/staged.py [--interval 3] [--growth 0.5] [--types 1]

Scenario: the default 8x H100 scenario with its two commitment offers over 60 months, decisions
every ``--interval`` months, on the 43,800-hour benchmark profile grown by ``--growth`` a year.
Prints the best-of-3 time of the staged optimum (target: at most 2 s with quarterly decisions)
beside the static optimizer's,
the cutting-plane rounds and cuts, the PV of the staged and best static plans, and the check
that the engine's PV of the schedule equals the MILP's objective. ``--types 2`` or ``3`` plans a
fleet of H100, H200 and B200 servers (bench/common.py FLEET_TYPES, issue 26; target: at most
3 s with 3 types, gap 0), its static optimum by the fleet MILP.

Issue 37's case (item 2: a three-type fleet with a binding power limit and budget, 48 months,
quarterly, sales allowed, proven optimal within 10 s on one worker):

    .venv/bin/python bench/staged.py --types 3 --months 48 --sales --power-kw 100 \
        --budget 2000000 --once

``--once`` times one solve (the limited case takes minutes) and prints the CPU time.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import HOURS, PEAK_GPUS, bench_profile, best_of, fleet_types  # noqa: E402
from models.plan import build_state  # noqa: E402
from models.optimize import best_capacity  # noqa: E402
from models.scenario import Scenario  # noqa: E402
from models.plan_limits import breaches, hall_power  # noqa: E402
from models.schedules import cash_by_period  # noqa: E402
from models.staged import fleet_static_optimum, staged_optimum  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=int, default=3, choices=(1, 3, 6, 12))
    parser.add_argument("--growth", type=float, default=0.5, help="demand growth a year")
    parser.add_argument("--types", type=int, default=1, choices=(1, 2, 3),
                        help="server types (H100, H200, B200)")
    parser.add_argument("--months", type=int, default=60, help="horizon [months]")
    parser.add_argument("--sales", action="store_true", help="allow selling servers")
    parser.add_argument("--power-kw", type=float, help="the hall's power limit [kW]")
    parser.add_argument("--budget", type=float, help="capital budget a calendar year [USD]")
    parser.add_argument("--once", action="store_true",
                        help="one timed staged solve (CPU and wall), no static comparison")
    args = parser.parse_args()
    staging = {"decision_interval_months": args.interval, "allow_sales": args.sales,
               "max_power_kw": args.power_kw, "capital_budget_per_year": args.budget}
    scenario = Scenario.model_validate({
        "finance": {"start_month": "2027-01", "horizon_months": args.months},
        "profile": {"growth_annual": args.growth},
        "staging": staging,
        "server_types": fleet_types(args.types)})
    profile = bench_profile()
    print(f"server types: {[t.id for t in scenario.server_types] or ['owned']}")
    print(f"profile: {HOURS:,} hours, peak {PEAK_GPUS:.0f} GPUs before growth, growth "
          f"{args.growth:.0%} a year; decisions every {args.interval} months over "
          f"{scenario.finance.horizon_months} months; offers "
          f"{[o.id for o in scenario.commitments]}")
    ctx = build_state(scenario, profile)
    if args.once:
        once(ctx, scenario, args)
        return
    seconds, found = best_of(3, lambda: staged_optimum(ctx.repriced(scenario)))
    if scenario.server_types:
        def fleet_static():
            fresh = ctx.repriced(scenario)
            return fleet_static_optimum(fresh).capacity, None
        static_seconds, (static_capacity, _none) = best_of(3, fleet_static)
        static_pv = ctx.pv(static_capacity)
    else:
        static_seconds, (static_capacity, static_pv) = best_of(
            3, lambda: best_capacity(ctx.repriced(scenario)))
    engine_pv = ctx.pv(found.plan)
    servers = (static_capacity.counts(scenario) if scenario.server_types
               else static_capacity.servers)
    print(f"staged optimum: {seconds:.2f} s (best of 3), {found.rounds} cutting-plane rounds, "
          f"{found.cuts} cuts, {len(found.decisions)} decision months, gap "
          f"{found.gap:,.2f}; static optimizer on the same input {static_seconds:.2f} s")
    print(f"PV staged {found.objective:,.0f}; engine's PV of the schedule {engine_pv:,.0f} "
          f"(difference {abs(engine_pv - found.objective):.2e}); best static "
          f"{static_pv:,.0f} ({servers} servers, "
          f"{dict(static_capacity.committed)}); saving "
          f"{static_pv - found.objective:,.0f} ({(static_pv - found.objective) / static_pv:.1%})")


def once(ctx, scenario, args) -> None:
    """One staged solve: its CPU and wall time, rounds, gap, and whether the limits bind."""
    cpu, wall = time.process_time(), time.perf_counter()
    found = staged_optimum(ctx.repriced(scenario))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"load average {os.getloadavg()[0]:.1f}; staged optimum: {cpu:.1f} s CPU, {wall:.1f} s "
          f"wall, {found.rounds} cutting-plane rounds, {found.cuts} cuts, gap "
          f"{found.gap:,.2f} ({'proven' if found.gap == 0 else 'not proven'}); "
          f"PV {found.objective:,.0f}; {'; '.join(found.notes) or 'no note'}")
    result = ctx.evaluate("staged", found.plan)
    by_type = result.servers_online_by_type or {ctx.fleet[0].id: result.servers_online}
    years = cash_by_period(ctx.calendar.months, result)["by_year"]
    print(f"peak hall power {hall_power(ctx, by_type).max():,.1f} kW (limit {args.power_kw}); "
          f"largest year's purchases {max(years.values(), default=0):,.0f} (budget "
          f"{args.budget}); the plan keeps them: {not breaches(ctx, result)}")


if __name__ == "__main__":
    main()
