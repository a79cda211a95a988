"""The robust plan (issue 27, models/robust.py): first decisions that hold for every demand path,
recourse after them, CVaR, EVPI and VSS; each proof of the issue is a test here."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from numpy.testing import assert_allclose

from models.schedule_cohorts import schedule_plan
from models.plan import build_state, proposed_strategy
from models.robust import path_contexts, robust_optimum
from models.robust_alternatives import least_capital
from models.robust_result import cvar
from models.scenario import Scenario
from models.scenario_schedule import Decision
from models.staged import staged_optimum
from models.staged_block import Block
from tests.support.engine_cases import THREE, robust_case as case

def test_cvar_by_hand():
    # PVs 1, 2, 10 with probabilities 0.25, 0.5, 0.25:
    # at alpha 0.9 the dearest 10 % is all PV 10: CVaR 10;
    # at alpha 0.5 the dearest 50 % is 0.25 of PV 10 and 0.25 of PV 2: (2.5 + 0.5) / 0.5 = 6;
    # at alpha 0.6 the dearest 40 %: 0.25 x 10 + 0.15 x 2 = 2.8, / 0.4 = 7
    pvs, p = np.array([1.0, 2.0, 10.0]), np.array([0.25, 0.5, 0.25])
    assert cvar(pvs, p, 0.9) == pytest.approx(10.0, rel=1e-15)
    assert cvar(pvs, p, 0.5) == pytest.approx(6.0, rel=1e-15)
    assert cvar(pvs, p, 0.6) == pytest.approx(7.0, rel=1e-15)


def test_probabilities_must_add_up_to_one():
    with pytest.raises(ValueError, match="probabilities add up to 0.75, not 1"):
        Scenario.model_validate({"staging": {"demand_scenarios": THREE[:2]}})
    with pytest.raises(ValueError, match="names must be unique"):
        Scenario.model_validate({"staging": {"demand_scenarios": [
            {"name": "a", "probability": 0.5}, {"name": "a", "probability": 0.5}]}})
    # a sum a hair off 1 says its digits (issue 40: "add up to 1, not 1")
    with pytest.raises(ValueError, match=r"add up to 0\.9999999, not 1 \(off by -1e-07\)"):
        Scenario.model_validate({"staging": {"demand_scenarios": [
            {"name": "a", "probability": 0.25}, {"name": "b", "probability": 0.5},
            {"name": "c", "probability": 0.2499999}]}})


@pytest.mark.parametrize("seed", [1, 2])
def test_one_scenario_is_the_staged_plan(seed):
    s, profile = case(seed, [{"name": "only", "growth_annual": 0.5, "probability": 1.0}])
    ctx = build_state(s, profile)
    robust = robust_optimum(ctx, profile)
    staged = staged_optimum(ctx)
    only = robust.paths[0]
    assert robust.gap == 0 and staged.gap == 0
    assert_allclose(only.objective, staged.objective, rtol=1e-9)
    assert_allclose(robust.expected_pv, ctx.pv(staged.plan), rtol=1e-9)
    assert robust.evpi == pytest.approx(0.0, abs=1e-6 * staged.objective)
    assert robust.vss == pytest.approx(0.0, abs=1e-6 * staged.objective)


@pytest.mark.parametrize("seed", range(30))
def test_evpi_and_vss_are_never_negative_and_first_decisions_are_common(seed):
    rng = np.random.default_rng(1000 + seed)
    growths = sorted(rng.uniform(-0.2, 1.5, int(rng.integers(2, 4))))
    weights = rng.uniform(0.2, 1.0, len(growths))
    paths = [{"name": f"g{i}", "growth_annual": float(g), "probability": float(w)}
             for i, (g, w) in enumerate(zip(growths, weights / weights.sum()))]
    paths[-1]["probability"] = 1.0 - sum(p["probability"] for p in paths[:-1])
    s, profile = case(seed, paths, months=24, now=int(rng.choice([1, 6, 12])))
    ctx = build_state(s, profile)
    r = robust_optimum(ctx, profile)
    tol = 1e-9 * r.expected_pv
    assert r.gap == 0
    assert r.evpi >= -tol and r.vss >= -tol
    # here and now: every path's decisions up to decide_now_until are the same
    firsts = [[d.model_dump() for d in q.decisions if d.month <= r.decide_now_until]
              for q in r.paths]
    assert all(f == firsts[0] for f in firsts)
    assert [d.model_dump() for d in r.common] == firsts[0]
    for q in r.paths:     # every path's schedule costed by the engine equals its objective
        assert_allclose(q.pv_cost, q.objective, rtol=1e-9)


def test_each_paths_schedule_costed_as_a_proposed_schedule_equals_its_pv():
    s, profile = case(7)
    ctx = build_state(s, profile)
    r = robust_optimum(ctx, profile, foresight=False)
    for q in r.paths:
        path = s.with_changes(profile={"growth_annual": q.growth_annual},
                              proposed={"schedule": [d.model_dump() for d in q.decisions]})
        proposed = proposed_strategy(build_state(path, profile))
        assert_allclose(proposed.pv_cost, q.pv_cost, rtol=1e-9)


def test_brute_force_on_a_tiny_tree():
    """Two paths, decisions at months 0 and 6 of a 12-month plan, servers only: every first
    purchase n0 now and every second purchase n1 in month 6 of each path, costed by the engine;
    the robust optimum is min over n0 of sum_s p_s min over n1 of PV_s(n0, n1)."""
    paths = [{"name": "slow", "growth_annual": 0.0, "probability": 0.4},
             {"name": "fast", "growth_annual": 3.0, "probability": 0.6}]
    s, profile = case(3, paths, months=12, interval=6, now=6, commitments=[])
    ctx = build_state(s, profile)
    r = robust_optimum(ctx, profile)
    ctxs = path_contexts(ctx, s.staging.demand_scenarios, profile)
    first = ctx.calendar.months[0]

    def pv(c, n0: int, n1: int) -> float:
        decisions = [Decision(month=first, buy_servers=n0)] if n0 else []
        if n1:
            decisions.append(Decision(month="2027-07", buy_servers=n1))
        plan = schedule_plan(c.scenario, decisions, first, c.horizon, c.position, True)
        return c.pv(plan)

    top = int(np.ceil(ctx.tables.gross.peak.max() * 4 / 8 / 0.99)) + 2
    best = min(sum(q["probability"] * min(pv(c, n0, n1) for n1 in range(top))
                   for q, c in zip(paths, ctxs)) for n0 in range(top))
    assert_allclose(r.expected_pv, best, rtol=1e-9)


def test_brute_force_on_a_tiny_tree_with_a_risk_weight():
    """Three paths, the same two decision points, least (1 - w) E[PV] + w CVaR at w = 0.5,
    alpha = 0.6: every first purchase n0 and every combination of the three paths' second
    purchases (n1_a, n1_b, n1_c) together, each path's PV by the engine; no use of the paths
    being independent once n0 is fixed (which the search relies on)."""
    paths = [{"name": "slow", "growth_annual": -0.5, "probability": 0.3},
             {"name": "mid", "growth_annual": 1.0, "probability": 0.45},
             {"name": "fast", "growth_annual": 3.0, "probability": 0.25}]
    w, alpha = 0.5, 0.6
    s, profile = case(4, paths, months=12, interval=6, now=6, commitments=[],
                      risk={"cvar_alpha": alpha, "cvar_weight": w})
    ctx = build_state(s, profile)
    r = robust_optimum(ctx, profile, alternative=False)
    assert r.priced, "planned by the search"
    ctxs = path_contexts(ctx, s.staging.demand_scenarios, profile)
    first = ctx.calendar.months[0]
    # enough servers for the fast path's peak (demand x 4 at +300 %/year) and two more
    top = int(np.ceil(ctx.tables.gross.peak.max() * 4 / 8 / 0.99)) + 2
    pv = np.empty((3, top, top))          # path, n0, n1
    for k, c in enumerate(ctxs):
        for n0, n1 in itertools.product(range(top), repeat=2):
            decisions = [Decision(month=first, buy_servers=n0)] if n0 else []
            if n1:
                decisions.append(Decision(month="2027-07", buy_servers=n1))
            pv[k, n0, n1] = c.pv(schedule_plan(c.scenario, decisions, first, c.horizon,
                                               c.position, True))
    p = np.array([q["probability"] for q in paths])
    best = np.inf
    for n0 in range(top):
        a, b, c_ = np.meshgrid(pv[0, n0], pv[1, n0], pv[2, n0], indexing="ij")
        outcomes = np.stack([a.ravel(), b.ravel(), c_.ravel()])      # (3, top^3)
        # CVaR = min over eta at an outcome of eta + sum p max(PV - eta, 0) / (1 - alpha)
        tails = np.min([eta + p @ np.maximum(outcomes - eta, 0.0) / (1 - alpha)
                        for eta in outcomes], axis=0)
        best = min(best, float(np.min((1 - w) * (p @ outcomes) + w * tails)))
    found = (1 - w) * r.expected_pv + w * cvar(np.array([q.pv_cost for q in r.paths]), p, alpha)
    assert_allclose(found, best, rtol=1e-9)
    # the optimum buys inside the range searched, and something in month 6 on some path
    bought = [[d.buy_servers for d in q.decisions] for q in r.paths]
    assert max(max(b, default=0) for b in bought) < top - 1
    assert any(len(b) == 2 for b in bought), bought


def test_risk_weight_trades_expected_pv_for_cvar():
    risky = [{"name": "low", "growth_annual": -0.3, "probability": 0.6},
             {"name": "high", "growth_annual": 2.0, "probability": 0.4}]
    s, profile = case(5, risky, now=12)
    neutral = robust_optimum(build_state(s, profile), profile, foresight=False)
    averse_s = s.with_changes(staging={"risk": {"cvar_alpha": 0.7, "cvar_weight": 1.0}})
    averse = robust_optimum(build_state(averse_s, profile), profile, foresight=False)
    tol = 1e-9 * neutral.expected_pv
    # each optimum is best at its own objective
    neutral_tail = cvar(np.array([q.objective for q in neutral.paths]),
                        np.array([0.6, 0.4]), 0.7)
    assert averse.cvar <= neutral_tail + tol
    assert neutral.expected_pv <= averse.expected_pv + tol
    for a, b in itertools.combinations([neutral, averse], 2):
        assert a.decide_now_until == b.decide_now_until == "2027-12"


def test_the_least_capital_alternative_stays_within_two_percent():
    """Among plans whose expected PV is within 2 % of the least, the one with the least
    purchases and upfront payments in the first 12 months: its expected PV (the engine's) is
    at most 1.02 x the robust plan's, its year-one capital at most the robust plan's, and that
    capital is its year-one servers x (price + install) (no commitment offers here)."""
    s, profile = case(4, commitments=[])
    ctx = build_state(s, profile)
    r = robust_optimum(ctx, profile)
    a = r.alternative
    assert a is not None and a.within == 0.02
    assert a.expected_pv <= 1.02 * r.expected_pv * (1 + 1e-9)
    o = s.owned
    unit = o.server_price + o.install_cost_per_server

    def year_one(paths) -> float:
        return sum(q.probability * unit * sum(d.buy_servers + sum(d.buy.values())
                                              for d in q.decisions if d.month <= "2027-12")
                   for q in paths)
    assert_allclose(a.year_one_capital, year_one(a.paths), rtol=1e-9)
    assert a.year_one_capital <= year_one(r.paths) + 1e-6
    firsts = [[d.model_dump() for d in q.decisions if d.month <= r.decide_now_until]
              for q in a.paths]
    assert all(f == firsts[0] for f in firsts)


def test_a_robust_plan_spending_nothing_in_year_one_is_its_own_least_capital_alternative():
    """Servers at $9M each and no commitment offers: the robust plan buys nothing in its first
    12 months, so no plan spends less there, and it is the cheapest plan of zero year-one
    capital: the alternative is the robust plan itself, found without a search; the search
    (started without it) finds no less capital and no lower expected PV."""
    s, profile = case(4, commitments=[], owned={"server_price": 9e6})
    ctx = build_state(s, profile)
    r = robust_optimum(ctx, profile)
    assert all(d.buy_servers == 0 for q in r.paths for d in q.decisions if d.month <= "2027-12")
    a = r.alternative
    assert a.year_one_capital == 0.0
    assert a.expected_pv == r.expected_pv
    assert [q.decisions for q in a.paths] == [q.decisions for q in r.paths]
    blocks = [Block(c, r.use_spot) for c in r.contexts]
    least = float(np.dot([q.probability for q in r.paths], [q.objective for q in r.paths]))
    searched = least_capital(r.contexts, blocks, s.staging.demand_scenarios, r.use_spot, least)
    assert searched.year_one_capital <= 1e-6
    assert searched.expected_pv >= a.expected_pv * (1 - 1e-12)


def test_a_path_may_have_its_own_interruptible_share():
    """A path's interruptible_share lays its demand again with that split (the growth too):
    its context's interruptible hours are that share of its demand, hour by hour."""
    paths = [{"name": "inference", "growth_annual": 0.2, "probability": 0.5,
              "interruptible_share": 0.0},
             {"name": "training", "growth_annual": 0.8, "probability": 0.5,
              "interruptible_share": 0.6}]
    s, profile = case(9, paths, months=24)
    ctx = build_state(s, profile)
    ctxs = path_contexts(ctx, s.staging.demand_scenarios, profile)
    for c, share in zip(ctxs, (0.0, 0.6)):
        d = c.demand
        total = d.steady + d.interruptible
        assert_allclose(d.interruptible, share * total, rtol=1e-12, atol=1e-12)
    r = robust_optimum(ctx, profile)
    assert r.gap == 0 and r.evpi >= -1e-9 * r.expected_pv and r.vss >= -1e-9 * r.expected_pv
    with pytest.raises(Exception, match="needs the usage profile"):
        robust_optimum(ctx)


def test_path_results_cost_each_schedule_on_its_own_demand():
    # the ledger and the workbook price each path through path_results: its PV is the path's
    # reported PV, and its dispatch serves that path's demand (not the plan's)
    s, profile = case(3)
    r = robust_optimum(build_state(s, profile), profile, foresight=False)
    results = r.path_results()
    assert [x.schedule for x in results] == [q.decisions for q in r.paths]
    assert_allclose([x.pv_cost for x in results], [q.pv_cost for q in r.paths], rtol=1e-12)
    useful = [x.useful_gpu_hours for x in results]
    assert useful[0] < useful[1] < useful[2]          # growth 10 %, 50 %, 100 %


def test_each_paths_floor_is_under_its_cost_and_a_lifted_point_meets_every_tangent():
    """The extensive form's two aids (models/robust.py floors, lifted) change no result, only
    the search: each path's floor (its own proven optimum, less 1e-9) is at most the MILP cost
    of that path's block at the robust solution, and at most the cost of its own optimum; a
    solution lifted to its true costs meets every tangent of every block, those placed after
    it included, and costs what the paths' schedules cost (true costs at the same levels)."""
    from models.robust_problem import floors, lifted, stack
    from models.staged import solve
    from models.staged_problem import assemble
    s, profile = case(5, months=24)
    ctx = build_state(s, profile)
    r = robust_optimum(ctx, profile)
    ctxs = path_contexts(ctx, s.staging.demand_scenarios, profile)
    blocks = [Block(c, r.use_spot) for c in ctxs]
    alone = [solve(c, r.use_spot, block=b, loose=True) for c, b in zip(ctxs, blocks)]
    low = floors(alone, blocks)
    for q, b, f, own in zip(r.paths, blocks, low, alone):
        assert f is not None                          # proven: gap 0, convex
        # the floor is the path's optimum in the block's terms, a hair under it
        assert f + b.prob.base + b.constant == pytest.approx(own.objective, rel=1e-8)
        assert f + b.prob.base + b.constant <= own.objective
        assert q.objective >= own.objective * (1 - 1e-9)   # no schedule of the path is cheaper
    st = stack(blocks, s.staging.decide_now_months)
    x = r.solution[:st.nvar].copy()
    checks = [b.shortfalls(st.part(x, i)) for i, b in enumerate(blocks)]
    y = lifted(st, x, checks)
    for i, b in enumerate(blocks):
        part = st.part(y, i)
        # tangents at other levels, added after the lift: still met
        b.add_cuts({w: b.prob.levels(part)[w] * 1.1 + 1.0 for w in b.order})
        b.add_cuts({w: b.prob.levels(part)[w] * 0.7 for w in b.order})
        a, lo, hi = assemble(b.prob, b.cuts, b.nvar)
        ax = a @ part
        # HiGHS's solution meets the block's own rows to its tolerances (seen: 2.8e-6 GPUs)
        assert np.all(ax >= lo - 1e-5 - 1e-9 * np.abs(lo)), i
        assert np.all(ax <= hi + 1e-5 + 1e-9 * np.abs(hi)), i
        true, _ = checks[i]
        cost = b.prob.cost @ part + b.prob.base + b.constant
        # each epigraph a hair (1e-9 of itself + 1e-6) above its true cost
        assert cost == pytest.approx(b.objective(part, true), rel=1e-7)
        assert cost >= b.objective(part, true)
