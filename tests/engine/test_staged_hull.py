"""Integer-hull rows of the staged MILP's budget and power knapsacks (issue 37, item 2; issue 38).

(a) the facets of two knapsacks, checked by hand; (b) on random knapsacks every facet holds at
every integer point and is met by one (valid, and no weaker than it needs to be); (c) the
three-type fleet with a binding hall power limit and capital budget (48 months, quarterly,
sales allowed; bench/staged.py) is proven optimal within the product's deterministic work
limit, at the optimum proven on main with an unlimited node budget (28,108,767.33; main's
work limit stopped the same solve with a gap).
"""
from __future__ import annotations

import numpy as np
import pytest

from bench.common import bench_profile, fleet_types
from models.plan import build_state
from models.scenario import Scenario
from models.staged import staged_optimum
from models.staged_block import Block
from models.staged_hull import knapsack_facets, knapsack_points


def test_power_facets_by_hand():
    """b200 at 18.59 kW and h100/h200 at 13.26 kW (power_kw_max x pue) in a 100 kW hall.

    Integer points (b, h) with 18.59 b + 13.26 h <= 100: b <= 5, h <= 7; at b = 1, h <= 6
    (98.15); b = 2, h <= 4 (90.22); b = 3, h <= 3 (95.55); b = 4, h <= 1 (87.62); b = 5,
    h = 0. Their hull: b + h <= 7 (met at (0, 7), (1, 6)) and 3 b + 2 h <= 15 (met at (5, 0),
    (3, 3), (1, 6)); the LP corner (5.38, 0) breaks the second."""
    assert knapsack_facets([18.59, 13.26], 100.0) == [((1, 1), 7), ((3, 2), 15)]


def test_budget_facets_by_hand():
    """Servers at $550,000, $410,000 and $330,000 within $2,000,000 a year.

    2 b + h2 <= 6 is met at (3, 0, 0) ($1.65M) and (2, 2, 0) ($1.92M); (1, 4, 0) would be
    $2.19M. 20 b + 15 h2 + 12 h1 <= 72 is met at (3, 0, 1) and (0, 0, 6) ($1.98M each). The
    LP's 3.64 b200 servers (the whole budget) give 2 b = 7.27 > 6."""
    facets = knapsack_facets([550_000.0, 410_000.0, 330_000.0], 2_000_000.0)
    assert facets == [((1, 1, 0), 4), ((2, 1, 0), 6), ((4, 3, 2), 14), ((20, 15, 12), 72)]
    assert 2 * 2 + 2 == 6 and 550_000 * 2 + 410_000 * 2 <= 2_000_000
    assert 20 * 3 + 12 == 72 and 550_000 * 3 + 330_000 <= 2_000_000


@pytest.mark.parametrize("seed", range(20))
def test_facets_hold_at_every_point(seed):
    rng = np.random.default_rng(seed)
    weights = list(rng.uniform(1.0, 10.0, size=int(rng.integers(2, 4))))
    cap = float(rng.uniform(10.0, 40.0))
    points = np.array(knapsack_points(weights, cap))
    assert (points @ np.array(weights) <= cap * (1 + 1e-6) + 1e-6).all()
    for a, c in knapsack_facets(weights, cap):
        lhs = points @ np.array(a)
        assert lhs.max() == c            # valid everywhere, met somewhere


def fleet_case() -> Scenario:
    return Scenario.model_validate({
        "finance": {"start_month": "2027-01", "horizon_months": 48},
        "profile": {"growth_annual": 0.5},
        "staging": {"decision_interval_months": 3, "allow_sales": True, "max_power_kw": 100,
                    "capital_budget_per_year": 2_000_000},
        "server_types": fleet_types(3)})


def test_fleet_case_has_hull_rows():
    scenario = fleet_case()
    ctx = build_state(scenario, bench_profile())
    rows = Block(ctx.repriced(scenario), True).prob.hull.index
    assert "power_hull" in rows and "budget_hull" in rows


def test_three_type_fleet_proven_within_work_limit():
    scenario = fleet_case()
    ctx = build_state(scenario, bench_profile())
    found = staged_optimum(ctx.repriced(scenario))
    assert found.gap == 0 and not found.limited
    assert round(found.objective, 2) == 28_108_767.33
