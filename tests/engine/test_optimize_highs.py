"""Independent cross-check of the exact optimizer (design 5.3) against scipy's HiGHS MILP.

The MILP (tests/support/highs_model.py) is written from design.md (sections 3, 4.3, 4.4, 9.2) and does NOT call the
project's dispatch or cost code to build its objective: prices, discount factors, commitment
cash flows, owned fixed costs, the spot waste (Daly) and the hourly demand layout are all
computed here from the scenario fields.

Variables: integers N (servers) and n_k (blocks of each commitment offer), and per plan hour t
the dispatch of steady demand s_t and interruptible demand i_t over the sources:

    cs_t + os_t + ds_t              = s_t        (committed, owned, on demand)
    ci_t + oi_t + sp_t + di_t       = i_t        (committed, owned, spot, on demand)
    cs_t + ci_t                     <= sum_k n_k * block_k
    os_t + oi_t                     <= N * gpus_per_server * availability * online_t
    sp_t                            <= share * (i_t - ci_t - oi_t)   (spot availability share)

The rule-based dispatch of design 4.3 is an optimal dispatch of this LP whenever a busy owned
GPU-hour costs less than spot or on demand (true for every scenario generated here), so the MILP
optimum must equal the exact optimum of the project's integer grid.

Scenarios keep the cost linear (no cloud data, setup fee, support or tax; cash; no failures).
A second test brute-forces the grid with the engine for scenarios WITH the non-linear terms.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from models.capacity import Capacity
from models.optimize import best_capacity
from models.plan import build_state
from tests.support.plans import compute_plan
from models.profile import UsageProfile
from models.scenario import Scenario
from tests.support.highs_model import (START, MilpResult, engine_pv, independent_model,
                                       make_profile, random_linear_case, random_profile,
                                       rel_close, solve_milp)

LINEAR_SEEDS = list(range(24))


@pytest.fixture(scope="module")
def linear_cases():
    return {seed: random_linear_case(seed) for seed in LINEAR_SEEDS}


def test_generated_cases_cover_the_brief(linear_cases):
    blocks = {c.block_gpus for s, _ in linear_cases.values() for c in s.commitments}
    assert blocks == {1, 4, 8}
    assert {len(s.commitments) for s, _ in linear_cases.values()} == {1, 2}
    assert {s.owned.lead_time_months for s, _ in linear_cases.values()} == {0, 1}
    mixes = {(bool(p.steady.sum()), bool(p.interruptible.sum())) for _, p in linear_cases.values()}
    assert mixes == {(True, True), (True, False), (False, True)}


@pytest.mark.parametrize("seed", LINEAR_SEEDS)
def test_fixed_capacity_costs_agree(seed, linear_cases):
    """The independent objective equals the engine's PV at fixed capacities (formula check)."""
    scenario, profile = linear_cases[seed]
    ctx = build_state(scenario, profile)
    m = independent_model(scenario, profile)
    rng = np.random.default_rng(1000 + seed)
    peak = float((m.steady + m.interruptible).max())
    for _ in range(3):
        servers = int(rng.integers(0, math.ceil(peak / m.types[0].server_work) + 1))
        committed = {c.id: int(rng.integers(0, math.ceil(peak / c.block_gpus) + 1)) * c.block_gpus
                     for c in scenario.commitments}
        mine = solve_milp(m, fixed=(servers, committed)).pv
        theirs = engine_pv(ctx, servers, committed)
        assert rel_close(mine, theirs), (seed, servers, committed, mine, theirs)


def check_against_milp(ctx, capacity: Capacity, pv: float, milp_result: MilpResult) -> None:
    assert rel_close(pv, milp_result.pv), (pv, milp_result.pv, capacity, milp_result)
    mine = (milp_result.servers, {k: v for k, v in milp_result.committed.items()})
    theirs = (capacity.servers, {k: capacity.committed.get(k, 0) for k in mine[1]})
    if mine != theirs:
        # a tie: the MILP's capacities must cost the same through the project's engine
        tie = engine_pv(ctx, *mine)
        assert rel_close(tie, pv), ("not a tie", mine, theirs, tie, pv)


@pytest.mark.parametrize("seed", LINEAR_SEEDS)
def test_optimal_matches_highs_milp(seed, linear_cases):
    scenario, profile = linear_cases[seed]
    ctx = build_state(scenario, profile)
    m = independent_model(scenario, profile)
    capacity, pv = best_capacity(ctx)
    result = solve_milp(m)
    check_against_milp(ctx, capacity, pv, result)
    plan = compute_plan(scenario, profile)
    assert rel_close(plan.strategies["optimal"].pv_cost, result.pv)


@pytest.mark.parametrize("seed", LINEAR_SEEDS)
def test_cloud_only_matches_highs_milp(seed, linear_cases):
    scenario, profile = linear_cases[seed]
    ctx = build_state(scenario, profile)
    m = independent_model(scenario, profile)
    capacity, pv = best_capacity(ctx, allow_servers=False)
    assert capacity.servers == 0
    result = solve_milp(m, max_servers=0)
    check_against_milp(ctx, capacity, pv, result)
    plan = compute_plan(scenario, profile)
    assert rel_close(plan.strategies["cloud_only"].pv_cost, result.pv)


def test_cases_exercise_owned_commitments_and_spot(linear_cases):
    """The random cases are not all one answer: some buy, some commit, some use spot."""
    seen = {"servers": 0, "committed": 0, "spot": 0}
    for scenario, profile in linear_cases.values():
        capacity, _ = best_capacity(build_state(scenario, profile))
        seen["servers"] += capacity.servers > 0
        seen["committed"] += sum(capacity.committed.values()) > 0
        seen["spot"] += capacity.use_spot and profile.interruptible.sum() > 0
    assert all(v >= 3 for v in seen.values()), seen


# --------------------------------------------------------------------------------------------
# brute force over the grid, with the non-linear terms
# --------------------------------------------------------------------------------------------

def nonlinear_case(seed: int) -> tuple[Scenario, UsageProfile]:
    scenario, profile = random_linear_case(100 + seed)
    rng = np.random.default_rng(200 + seed)
    data = scenario.model_dump()
    data["finance"]["horizon_months"] = int(rng.integers(3, 5))
    data["finance"]["tax_rate"] = 0.25
    data["finance"]["tax_depreciation"] = ("straight_line", "macrs_5")[seed % 2]
    data["owned"]["financing"] = {"kind": "loan", "apr": float(rng.uniform(0.04, 0.12)),
                                  "term_months": int(rng.choice([2, 3, 24])),
                                  "down_payment_fraction": float(rng.uniform(0, 0.3))}
    data["owned"]["failures_per_server_year"] = float(rng.uniform(0, 3))
    data["cloud_data"] = {"storage_tb": float(rng.uniform(1, 50)),
                          "storage_price_per_gb_month": 0.023,
                          "egress_tb_per_month": float(rng.uniform(0, 20)),
                          "egress_price_per_gb": 0.09}
    data["cloud_terms"] = {"prices_include_vat": False, "vat_rate": 0.0,
                           "setup_fee": float(rng.uniform(0, 2e4)),
                           "support_fraction": float(rng.uniform(0, 0.1)),
                           "support_minimum_per_month": float(rng.uniform(5e3, 6e4))}
    # a small peak keeps the full grid small
    keep = 16.0 / float((profile.steady + profile.interruptible).max())
    profile = make_profile(np.round(profile.steady * keep * 8) / 8,
                           np.round(profile.interruptible * keep * 8) / 8)
    data["profile"]["growth_annual"] = float(rng.uniform(0, 0.5))
    return Scenario.model_validate(data), profile


@pytest.mark.parametrize("seed", range(5))
def test_brute_force_grid_with_nonlinear_terms(seed):
    scenario, profile = nonlinear_case(seed)
    ctx = build_state(scenario, profile)
    o = scenario.owned
    peak = ctx.tables.peak_gross_gpus
    n_max = math.ceil(peak / (o.gpus_per_server * o.availability) - 1e-9)
    ranges = [range(0, math.ceil(peak / c.block_gpus - 1e-9) + 1) for c in scenario.commitments]
    grid = []
    for servers in range(n_max + 1):
        for blocks in itertools.product(*ranges):
            committed = {c.id: b * c.block_gpus for c, b in zip(scenario.commitments, blocks)}
            for use_spot in (True, False):
                r = ctx.evaluate("grid", Capacity(servers, committed, use_spot))
                grid.append((r.pv_cost, r.capital_outlay(), r.capacity))
    best_pv = min(g[0] for g in grid)
    capacity, pv = best_capacity(ctx)
    assert rel_close(pv, best_pv, 1e-9), (pv, best_pv, capacity)
    evaluated = ctx.evaluate("optimal", capacity)
    assert rel_close(evaluated.pv_cost, best_pv, 1e-9)
    tied_outlay = min(g[1] for g in grid if rel_close(g[0], best_pv, 1e-9))
    assert evaluated.capital_outlay() <= tied_outlay + 1e-6 * max(1.0, tied_outlay)


def test_independent_demand_layout_repeats_the_last_year():
    """A profile longer than 8,760 h that runs out: its last 8,760 hours repeat (design 4.1).

    (The 43,800-hour benchmark exercises this; the MILP cases above use short profiles.)
    """
    rng = np.random.default_rng(7)
    steady, interruptible = random_profile(rng, 9000, 32.0, "mixed")
    scenario = Scenario.model_validate({"finance": {"start_month": START, "horizon_months": 14},
                                        "profile": {"growth_annual": 0.3}})
    profile = make_profile(steady, interruptible)
    ctx = build_state(scenario, profile)
    m = independent_model(scenario, profile)
    np.testing.assert_allclose(m.steady, ctx.demand.steady, rtol=1e-12)
    np.testing.assert_allclose(m.interruptible, ctx.demand.interruptible, rtol=1e-12)
    assert len(m.steady) > 9000
