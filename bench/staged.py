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
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import HOURS, PEAK_GPUS, bench_profile, best_of, fleet_types  # noqa: E402
from models.plan import build_context  # noqa: E402
from models.optimize import best_capacity  # noqa: E402
from models.scenario import Scenario  # noqa: E402
from models.staged import fleet_static_optimum, staged_optimum  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=int, default=3, choices=(1, 3, 6, 12))
    parser.add_argument("--growth", type=float, default=0.5, help="demand growth a year")
    parser.add_argument("--types", type=int, default=1, choices=(1, 2, 3),
                        help="server types (H100, H200, B200)")
    args = parser.parse_args()
    scenario = Scenario.model_validate({
        "finance": {"start_month": "2027-01"},
        "profile": {"growth_annual": args.growth},
        "staging": {"decision_interval_months": args.interval},
        "server_types": fleet_types(args.types)})
    profile = bench_profile()
    print(f"server types: {[t.id for t in scenario.server_types] or ['owned']}")
    print(f"profile: {HOURS:,} hours, peak {PEAK_GPUS:.0f} GPUs before growth, growth "
          f"{args.growth:.0%} a year; decisions every {args.interval} months over "
          f"{scenario.finance.horizon_months} months; offers "
          f"{[o.id for o in scenario.commitments]}")
    ctx = build_context(scenario, profile)
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


if __name__ == "__main__":
    main()
