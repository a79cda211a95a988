"""Independent cross-check of a fleet's static optimum (issue 26) against scipy's HiGHS MILP.

``models.staged.fleet_static_optimum`` finds the cheapest servers per type bought in month 1
and blocks per offer with a cutting-plane MILP over the project's merit-order dispatch. Here
the same problem is solved by the independent model of tests/support/highs_model.py, written
from design.md (sections 3, 4.3, 4.4, 9.2 and "Server types") without the project's dispatch or
cost code: integer servers N_p per type and blocks n_k per offer, and per plan hour the dispatch
of steady and interruptible work over committed GPUs, each owned type (os_tp, oi_tp: at most
N_p x gpus_per_server x availability x relative_throughput of work, once online), spot and on
demand. Each type's server costs its own fixed-cost PV (capex, install, idle energy, space,
maintenance, staff, less the resale at the horizon) and each unit of its work the busy energy
(power_kw_max - power_kw_idle) / gpus_per_server x pue x price / relative_throughput. The LP
dispatches owned work to the type of least busy energy first, which is the engine's merit order.

Cases (tests/support/highs_fleet_model.py): random_linear_case's scenarios (linear costs, no
failures, 3-6 months, 2-4 months of hourly usage, 1-2 offers, steady/interruptible/mixed
demand) with 2 or 3 server types differing in price, throughput, power, availability, GPUs per
server, resale, install cost, maintenance and lead time; all sold from month 1 and outliving
the horizon (what the independent model covers).

(a) at fixed capacities the independent objective equals the engine's PV; (b) HiGHS's MILP
optimum equals the engine's PV of fleet_static_optimum's decision (with all servers and cloud
only), and is never dearer than the best one-type plan of each type (models.optimize).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from models.fleet import type_scenario
from models.optimize import best_capacity
from models.plan import build_state
from models.staged import fleet_static_optimum
from tests.support.highs_fleet_model import engine_fleet_pv, random_fleet_case
from tests.support.highs_model import MilpResult, independent_model, rel_close, solve_milp

FLEET_SEEDS = list(range(12))


@pytest.fixture(scope="module")
def fleet_cases():
    return {seed: random_fleet_case(seed) for seed in FLEET_SEEDS}


def test_generated_fleet_cases_cover_the_brief(fleet_cases):
    cases = list(fleet_cases.values())
    assert {len(s.server_types) for s, _ in cases} == {2, 3}
    assert {len(s.commitments) for s, _ in cases} == {1, 2}
    assert {s.finance.horizon_months for s, _ in cases} <= set(range(3, 7))
    assert all(1400 <= len(p.steady) <= 2930 for _, p in cases)
    mixes = {(bool(p.steady.sum()), bool(p.interruptible.sum())) for _, p in cases}
    assert mixes == {(True, True), (True, False), (False, True)}
    for s, p in cases:
        m = independent_model(s, p)
        assert s.owned.failures_per_server_year == 0
        for field in ("server_pv", "server_work"):
            values = [getattr(kind, field) for kind in m.types]
            assert len(set(values)) == len(values), (field, values)
        busy = [float(kind.owned_busy[0]) for kind in m.types]
        assert len(set(busy)) == len(busy)
        assert len({kind.availability for kind in s.server_types[1:]}) == len(s.server_types) - 1


def fleet_result_pv(ctx, result: MilpResult) -> float:
    return engine_fleet_pv(ctx, result.servers_by_type, result.committed)


@pytest.mark.parametrize("seed", FLEET_SEEDS)
def test_fixed_fleet_capacities_cost_the_same(seed, fleet_cases):
    """(a) The independent objective equals the engine's PV at fixed servers per type and
    blocks (formula check); the first draw holds servers of every type."""
    scenario, profile = fleet_cases[seed]
    ctx = build_state(scenario, profile)
    m = independent_model(scenario, profile)
    rng = np.random.default_rng(2000 + seed)
    peak = float((m.steady + m.interruptible).max())
    for draw in range(3):
        # up to half the peak per type: together the types can cover it, and hours keep
        # overflowing to the cloud
        servers = {kind.id: int(rng.integers(draw == 0, math.ceil(peak / kind.server_work / 2)
                                             + 1)) for kind in m.types}
        committed = {c.id: int(rng.integers(0, math.ceil(peak / c.block_gpus) + 1))
                     * c.block_gpus for c in scenario.commitments}
        mine = solve_milp(m, fixed=(servers, committed)).pv
        theirs = engine_fleet_pv(ctx, servers, committed)
        assert rel_close(mine, theirs), (seed, servers, committed, mine, theirs)


def check_fleet_against_milp(ctx, capacity, result: MilpResult) -> float:
    """The engine's PV of its decision equals the MILP's optimum; a different MILP decision
    must be a tie through the engine. Returns the engine's PV [currency]."""
    pv = ctx.pv(capacity)
    assert rel_close(pv, result.pv), (pv, result.pv, capacity, result)
    mine = ({k: v for k, v in result.servers_by_type.items() if v},
            {k: v for k, v in result.committed.items() if v})
    theirs = ({k: v for k, v in capacity.servers_by_type.items() if v},
              {k: v for k, v in capacity.committed.items() if v})
    if mine != theirs:
        tie = fleet_result_pv(ctx, result)
        assert rel_close(tie, pv), ("not a tie", mine, theirs, tie, pv)
    return pv


@pytest.mark.parametrize("seed", FLEET_SEEDS)
def test_fleet_static_optimum_matches_highs_milp(seed, fleet_cases):
    """(b) HiGHS's optimum over every count of every type equals the engine's PV of the fleet
    MILP's decision, which no one-type plan undercuts."""
    scenario, profile = fleet_cases[seed]
    ctx = build_state(scenario, profile)
    m = independent_model(scenario, profile)
    found = fleet_static_optimum(ctx)
    assert found.gap == 0 and not found.limited
    pv = check_fleet_against_milp(ctx, found.capacity, solve_milp(m))
    assert rel_close(found.objective, pv)
    for kind in scenario.server_types:
        alone = type_scenario(scenario, kind.id).model_copy(update={"server_types": ()})
        _, one_pv = best_capacity(build_state(alone, profile))
        assert pv <= one_pv * (1 + 1e-9), (kind.id, pv, one_pv)


@pytest.mark.parametrize("seed", FLEET_SEEDS)
def test_fleet_cloud_only_matches_highs_milp(seed, fleet_cases):
    """The fleet MILP without servers (the cloud_only strategy) against HiGHS with N_p = 0."""
    scenario, profile = fleet_cases[seed]
    ctx = build_state(scenario, profile)
    found = fleet_static_optimum(ctx, allow_servers=False)
    assert not any(found.capacity.servers_by_type.values())
    check_fleet_against_milp(ctx, found.capacity,
                             solve_milp(independent_model(scenario, profile), max_servers=0))


def test_fleet_cases_buy_mixed_fleets(fleet_cases):
    """The cases are not all one answer: some buy servers, some of two types, some commit."""
    seen = {"servers": 0, "two_types": 0, "committed": 0}
    for scenario, profile in fleet_cases.values():
        capacity = fleet_static_optimum(build_state(scenario, profile)).capacity
        bought = [v for v in capacity.servers_by_type.values() if v]
        seen["servers"] += bool(bought)
        seen["two_types"] += len(bought) >= 2
        seen["committed"] += sum(capacity.committed.values()) > 0
    assert seen["servers"] >= 4 and seen["two_types"] >= 2 and seen["committed"] >= 3, seen
