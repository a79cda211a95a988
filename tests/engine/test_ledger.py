"""The ledger (models/ledger.py): stored exactly, and its cohorts price the plan.

The workbook is written from the ledger alone, so two things must hold: a ledger read back
from its JSON is bitwise the one built, and each strategy's cohorts add up to its cost lines
(the kernel priced the same cohorts; the sheet's SUMIFs add the same columns).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from models.ledger import Ledger
from tests.support.plans import Planner, compute_plan
from models.scenario import Scenario
from tests.support.engine_cases import csv_profile, flat_profile, robust_case, w1, w2
from tests.support.paths import SAMPLE_USAGE, SAMPLES


def growth(draws: int = 0) -> Scenario:
    s = Scenario.model_validate(json.loads((SAMPLES / "scenario_growth.json").read_text()))
    return s.with_changes(uncertainty={"draws": draws})

CASES = {
    "W1": lambda: (w1(), flat_profile(6)),
    "W2": lambda: (w2(), flat_profile(10)),
    "growth": lambda: (growth(), csv_profile(SAMPLE_USAGE)),
    "robust": lambda: robust_case(3, months=24, interval=6),    # issue 27's demand paths
}
# cohort column -> the cost line it is, summed over cohorts (models/cohort_costs.cohort_items)
COHORT_LINES = {"capex": "capex", "loan": "loan_payment", "maint": "maintenance",
                "resale": "resale_credit", "upfront": "commitment_upfront",
                "monthly": "commitment"}


@pytest.fixture(scope="module", params=sorted(CASES))
def plan(request):
    scenario, profile = CASES[request.param]()
    return compute_plan(scenario, profile)


def test_a_ledger_read_back_from_json_is_bitwise_the_one_built(plan):
    text = json.dumps(plan.ledger.to_dict(), allow_nan=False)
    back = Ledger.from_dict(json.loads(text))
    assert json.dumps(back.to_dict(), allow_nan=False) == text
    for name, sl in plan.ledger.strategies.items():
        other = back.strategies[name]
        for key, line in sl.lines.items():
            assert_array_equal(other.lines[key], line)     # exact, not close
        assert_array_equal(other.discounted, sl.discounted)
        for a, b in zip(sl.cohorts, other.cohorts):
            assert a.params == b.params
            for key in a.monthly:
                assert_array_equal(a.monthly[key], b.monthly[key])
    assert len(back.robust) == len(plan.ledger.robust)
    for a, b in zip(plan.ledger.robust, back.robust):
        assert (a.name, a.probability, a.growth_annual, a.useful_pv) == (
            b.name, b.probability, b.growth_annual, b.useful_pv)
        assert_array_equal(a.useful, b.useful)
        assert_array_equal(a.strategy.total, b.strategy.total)
        assert a.strategy.schedule_rows == b.strategy.schedule_rows


def test_each_robust_path_is_its_schedule_costed_on_its_own_demand():
    """Issue 27: the ledger's paths are the robust plan's, each its schedule priced by the
    engine on the path's demand: PV, decision rows at every decision point (2027-01, -07,
    2028-01, -07 for 24 months every 6), demand growing with the path's growth."""
    s, profile = robust_case(3, months=24, interval=6)
    plan = compute_plan(s, profile)
    paths = plan.ledger.robust
    assert [q.name for q in paths] == [q.name for q in plan.robust.paths]
    for q, r in zip(paths, plan.robust.path_results()):
        assert q.strategy.figures["pv_cost"] == r.pv_cost
        assert [d.month for d in q.strategy.schedule_rows] == [
            "2027-01", "2027-07", "2028-01", "2028-07"]
    # more growth, more demand in the last month
    assert paths[0].useful[-1] < paths[1].useful[-1] < paths[2].useful[-1]
    assert sum(q.probability * q.strategy.figures["pv_cost"] for q in paths) == pytest.approx(
        plan.document["strategies"]["robust"]["pv_cost"], rel=1e-12)
    # a plan without demand paths has none
    assert compute_plan(w1(), flat_profile(6)).ledger.robust == ()


def test_the_cohorts_of_each_strategy_add_up_to_its_cost_lines(plan):
    for name, sl in plan.ledger.strategies.items():
        paid = len(sl.total)
        for column, line in COHORT_LINES.items():
            np.testing.assert_allclose(sl.cohort_totals[column][:paid], sl.lines[line],
                                       rtol=1e-12, atol=1e-6, err_msg=f"{name} {line}")
            assert not np.any(sl.cohort_totals[column][paid:]), (name, column)
        np.testing.assert_allclose(sl.cohort_totals["online"][:plan.ledger.horizon],
                                   sl.servers_online, err_msg=name)
        np.testing.assert_allclose(sl.cohort_totals["gpus"][:plan.ledger.horizon],
                                   sl.committed_gpus, err_msg=name)
        np.testing.assert_allclose(sl.cohort_totals["prepaid"][:paid], sl.prepaid, atol=1e-6)
        np.testing.assert_allclose(sl.cohort_totals["gain"][:paid], sl.taxable_gain, atol=1e-6)


def test_a_static_strategy_is_its_chain_of_cohorts():
    """W1 proposes 1 server for 12 months of a 60-month life: one generation, bought in month
    0, sold at the end of month 11 (the horizon) at 70 % of 200,000 = 140,000."""
    plan = compute_plan(w1(), flat_profile(6))
    rows = [c for c in plan.ledger.strategies["proposed"].cohorts if c.kind == "server"]
    assert [(c.origin, c.ref, c.type) for c in rows] == [("chain", 1, "owned")]
    p = rows[0].params
    assert (p["count"], p["bought"], p["online"], p["sold"]) == (1, 0, 0, 12)
    assert p["basis"] == 210_000.0 and p["frac"] == pytest.approx(0.7)
    assert rows[0].monthly["resale"][11] == pytest.approx(140_000.0)
    assert rows[0].monthly["capex"][0] == pytest.approx(210_000.0)


def test_stages_add_the_schedule_then_the_uncertainty_and_the_ledger():
    scenario = growth(draws=200)
    planner = Planner(scenario, csv_profile(SAMPLE_USAGE))
    planner.add_static()
    static = planner.plan("static")
    assert "staged" not in static.strategies and static.ledger is None
    assert static.document["strategies"].keys() == static.strategies.keys()
    planner.add_staged()
    staged = planner.plan("staged")
    assert "staged" in staged.strategies and staged.uncertainty is None
    complete = planner.plan("complete", uncertainty=True)
    assert complete.uncertainty is not None and complete.ledger is not None
    whole = compute_plan(scenario, csv_profile(SAMPLE_USAGE))
    assert json.dumps(complete.document) == json.dumps(whole.document)


def test_a_plan_keeps_no_engine_context():
    plan = compute_plan(Scenario(), flat_profile(16))
    assert not hasattr(plan, "context")
