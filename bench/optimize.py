"""Exact integer optimum (models/optimize.py) against HiGHS on the same 43,800-hour problem.

    /work/main/.venv/bin/python bench/optimize.py [--no-milp] [--check-fixed] [--types 1]
                                                  [--milp-seconds 120]

Scenario: the default 8x H100 scenario with its two commitment offers (1y 41 %, 3y 64 %, blocks
of 8 GPUs) over 60 months, failures_per_server_year = 0 so that the cost is linear and the
independent HiGHS model of tests/support/highs_model.py describes exactly the same problem.
Prints the times (best of 3 for the fast parts), the ratios and the cost gaps.

``--types 2`` or ``3`` plans a fleet of H100, H200 and B200 servers (bench/common.py
FLEET_TYPES, issue 26): the exact optimum is then ``models.staged.fleet_static_optimum``
(target: at most 100 ms) and HiGHS solves the independent fleet MILP (an integer count and a
capacity row per type; target: the exact optimum at least 1,000x faster).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
from scipy.optimize import Bounds, LinearConstraint, linprog, milp  # noqa: E402

from bench.common import HOURS, PEAK_GPUS, bench_profile, best_of, fleet_types  # noqa: E402
from models.optimize import best_capacity  # noqa: E402
from models.plan import build_state, compute_plan  # noqa: E402
from models.scenario import Scenario  # noqa: E402
from models.staged import fleet_static_optimum  # noqa: E402
from tests.support.highs_model import independent_model, milp_problem  # noqa: E402

MILP_TIME_LIMIT = 120.0
FLEET_TARGET_SECONDS = 0.1     # issue 26: a fleet's static optimum
FLEET_TARGET_RATIO = 1000.0    # issue 26: that much faster than the whole-node HiGHS MILP


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-milp", action="store_true", help="skip the whole-node MILP")
    parser.add_argument("--check-fixed", action="store_true",
                        help="also solve HiGHS's LP with N and blocks fixed at the exact optimum "
                             "(it must give the same PV: the two models are the same problem)")
    parser.add_argument("--milp-seconds", type=float, default=MILP_TIME_LIMIT,
                        help="time limit of the fleet's HiGHS MILP [s]")
    parser.add_argument("--types", type=int, default=1, choices=(1, 2, 3),
                        help="server types (H100, H200, B200)")
    args = parser.parse_args()

    scenario = Scenario.model_validate({"finance": {"start_month": "2025-01"},
                                        "owned": {"failures_per_server_year": 0.0},
                                        "server_types": fleet_types(args.types)})
    profile = bench_profile()
    if scenario.server_types:
        fleet(args, scenario, profile)
        return
    print(f"profile: {HOURS:,} hours, peak {PEAK_GPUS:.0f} GPUs, "
          f"{profile.interruptible.sum() / profile.gpu_hours:.0%} interruptible; "
          f"offers {[o.id for o in scenario.commitments]}, horizon "
          f"{scenario.finance.horizon_months} months")

    ctx = build_state(scenario, profile)
    t_ctx, _ = best_of(3, lambda: build_state(scenario, profile))
    # a fresh context each time: the costed grid is cached on its context
    t_opt, (capacity, pv) = best_of(3, lambda: best_capacity(ctx.repriced(scenario)))
    t_plan, plan = best_of(3, lambda: compute_plan(scenario, profile))
    print(f"exact optimum (best_capacity):  {t_opt * 1e3:8.1f} ms   target <= 300 ms   "
          f"{'OK' if t_opt <= 0.3 else 'MISSED'}")
    print(f"  build_state:                {t_ctx * 1e3:8.1f} ms")
    print(f"  whole compute_plan:           {t_plan * 1e3:8.1f} ms")
    print(f"  optimal: {capacity.servers} servers, committed {capacity.committed}, "
          f"spot {capacity.use_spot}; PV {pv:,.2f}")
    assert abs(plan.strategies["optimal"].pv_cost - pv) <= 1e-9 * pv

    t0 = time.perf_counter()
    m = independent_model(scenario, profile)
    p = milp_problem(m)
    t_build = time.perf_counter() - t0
    print(f"HiGHS problem: {p.A.shape[0]:,} rows x {p.A.shape[1]:,} columns "
          f"(built in {t_build:.2f} s, not counted below)")

    eq, ub = slice(0, p.n_eq), slice(p.n_eq, None)
    t0 = time.perf_counter()
    lp = linprog(p.c, A_ub=p.A[ub], b_ub=p.hi[ub], A_eq=p.A[eq], b_eq=p.lo[eq],
                 bounds=np.c_[p.lb, p.ub], method="highs-ipm")
    t_lp = time.perf_counter() - t0
    if lp.status == 0:
        print(f"HiGHS IPM continuous relaxation: {t_lp:8.2f} s   ratio {t_lp / t_opt:,.0f}x; "
              f"N = {lp.x[0]:.2f}, blocks = {np.round(lp.x[1:1 + len(p.ids)], 2).tolist()}; "
              f"PV {lp.fun:,.2f}, gap to the exact integer optimum "
              f"{(pv - lp.fun) / pv:+.4%} (a lower bound)")
    else:
        print(f"HiGHS IPM continuous relaxation: {lp.message} after {t_lp:.2f} s")

    if args.check_fixed:
        lb, ubx = p.lb.copy(), p.ub.copy()
        lb[0] = ubx[0] = capacity.servers
        for j, k in enumerate(p.ids):
            lb[1 + j] = ubx[1 + j] = capacity.committed.get(k, 0) // m.blocks[k]
        seconds, fun = lp_at(p, lb, ubx)
        print(f"HiGHS LP at the exact optimum's (N, blocks): {seconds:.2f} s; "
              f"PV {fun:,.2f}, relative difference {(fun - pv) / pv:+.2e}")

    if args.no_milp:
        return
    t_milp, res = whole_milp(p, MILP_TIME_LIMIT)
    if res.x is not None and res.success:
        blocks = np.round(res.x[1:1 + len(p.ids)]).astype(int)
        print(f"HiGHS whole-node MILP:           {t_milp:8.2f} s   ratio {t_milp / t_opt:,.0f}x; "
              f"N = {round(res.x[0])}, blocks = {blocks.tolist()}; PV {res.fun:,.2f}, "
              f"gap {(res.fun - pv) / pv:+.2e} relative")
    else:
        found = f"best found PV {res.fun:,.2f}" if res.x is not None else "no solution"
        print(f"HiGHS whole-node MILP: not finished within {MILP_TIME_LIMIT:.0f} s "
              f"({res.message.strip()}; {found}; {t_milp:.1f} s)")


def lp_at(p, lower: np.ndarray, upper: np.ndarray) -> tuple[float, float]:
    """HiGHS's dual simplex on the independent problem with the integers held by the bounds
    (the exact optimum's): (seconds, its PV)."""
    eq, ub = slice(0, p.n_eq), slice(p.n_eq, None)
    t0 = time.perf_counter()
    fixed = linprog(p.c, A_ub=p.A[ub], b_ub=p.hi[ub], A_eq=p.A[eq], b_eq=p.lo[eq],
                    bounds=np.c_[lower, upper], method="highs-ds")
    return time.perf_counter() - t0, float(fixed.fun)


def whole_milp(p, seconds: float):
    """HiGHS's MILP of the whole independent problem within a time limit: (seconds, result)."""
    t0 = time.perf_counter()
    res = milp(p.c, constraints=LinearConstraint(p.A, p.lo, p.hi), integrality=p.integrality,
               bounds=Bounds(p.lb, p.ub), options={"time_limit": seconds, "mip_rel_gap": 1e-9})
    return time.perf_counter() - t0, res


def fleet(args: argparse.Namespace, scenario: Scenario, profile) -> None:
    """The fleet's static optimum (issue 26) against the independent fleet MILP.

    Parameters
    ----------
    args : argparse.Namespace
        The command line (``no_milp``, ``check_fixed``).
    scenario : Scenario
        The benchmark scenario with its ``server_types``.
    profile : UsageProfile
        The 43,800-hour profile.
    """
    print(f"server types: {[t.id for t in scenario.server_types]}; profile: {HOURS:,} hours, "
          f"peak {PEAK_GPUS:.0f} GPUs, "
          f"{profile.interruptible.sum() / profile.gpu_hours:.0%} interruptible; "
          f"offers {[o.id for o in scenario.commitments]}, horizon "
          f"{scenario.finance.horizon_months} months")
    ctx = build_state(scenario, profile)
    # a fresh context each time: the static optimum is cached on its context
    t_opt, found = best_of(3, lambda: fleet_static_optimum(ctx.repriced(scenario)))
    capacity = found.capacity
    pv = ctx.pv(capacity)
    print(f"exact optimum (fleet_static_optimum): {t_opt * 1e3:8.1f} ms   target <= "
          f"{FLEET_TARGET_SECONDS * 1e3:.0f} ms   "
          f"{'OK' if t_opt <= FLEET_TARGET_SECONDS else 'MISSED'}")
    print(f"  optimal: servers {capacity.counts(scenario)}, committed {capacity.committed}, "
          f"spot {capacity.use_spot}; engine's PV {pv:,.2f} (MILP objective "
          f"{found.objective:,.2f}, gap {found.gap:,.2f}, {found.rounds} rounds)")

    t0 = time.perf_counter()
    m = independent_model(scenario, profile)
    p = milp_problem(m)
    t_build = time.perf_counter() - t0
    P = len(p.type_ids)
    print(f"HiGHS fleet problem: {p.A.shape[0]:,} rows x {p.A.shape[1]:,} columns, "
          f"{P} integer server counts and {len(p.ids)} block counts "
          f"(built in {t_build:.2f} s, not counted below)")

    if args.check_fixed:
        lb, ubx = p.lb.copy(), p.ub.copy()
        for j, kind in enumerate(p.type_ids):
            lb[j] = ubx[j] = capacity.servers_by_type.get(kind, 0)
        for j, k in enumerate(p.ids):
            lb[P + j] = ubx[P + j] = capacity.committed.get(k, 0) // m.blocks[k]
        seconds, fun = lp_at(p, lb, ubx)
        print(f"HiGHS LP at the exact optimum's servers and blocks: {seconds:.2f} s; "
              f"PV {fun:,.2f}, relative difference {(fun - pv) / pv:+.2e}")

    if args.no_milp:
        return
    t_milp, res = whole_milp(p, args.milp_seconds)
    bound = getattr(res, "mip_dual_bound", None)
    bound = (f"; HiGHS's lower bound {bound:,.2f} ({(bound - pv) / pv:+.2e} relative to the "
             "exact optimum)" if bound is not None and np.isfinite(bound) else "")
    ratio = t_milp / t_opt
    verdict = "OK" if ratio >= FLEET_TARGET_RATIO else "MISSED"
    if res.x is not None and res.success:
        servers = dict(zip(p.type_ids, np.round(res.x[:P]).astype(int).tolist()))
        blocks = np.round(res.x[P:P + len(p.ids)]).astype(int)
        print(f"HiGHS whole-node fleet MILP:     {t_milp:8.2f} s   ratio {ratio:,.0f}x "
              f"(target >= {FLEET_TARGET_RATIO:,.0f}x: {verdict}); servers {servers}, "
              f"blocks {blocks.tolist()}; PV {res.fun:,.2f} vs exact {pv:,.2f}, "
              f"gap {(res.fun - pv) / pv:+.2e} relative{bound}")
    else:
        # the limit bounds the ratio from below: HiGHS would take longer still
        found_pv = (f"best found PV {res.fun:,.2f} vs exact {pv:,.2f}, gap "
                    f"{(res.fun - pv) / pv:+.2e} relative" if res.x is not None
                    else f"no solution; exact {pv:,.2f}")
        print(f"HiGHS whole-node fleet MILP: not finished within {args.milp_seconds:.0f} s "
              f"({res.message.strip()}; {found_pv}{bound}); ratio > {ratio:,.0f}x "
              f"(target >= {FLEET_TARGET_RATIO:,.0f}x: {verdict})")


if __name__ == "__main__":
    main()
