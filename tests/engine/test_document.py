"""models/document.py: the plan document (the JSON every view, the CLI and the API read), on
the worked examples by hand and on the sample."""
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

from models.document import plan_document
from models.strategy_document import num
from tests.support.plans import compute_plan
from models.scenario import Scenario
from tests.support.engine_cases import daily_swing_profile, flat_profile, w1, w2


def test_worked_example_1_on_demand_month_by_hand():
    # 6 GPUs steady, March 2027: 6 x 744 h = 4,464 GPU-hours on demand, 4,464 x 3.00 x
    # 1.0083333 (1-minute billing of 1-hour sessions) = 13,503.60; the year: 6 x 8,784 h =
    # 52,704 GPU-hours, 159,429.60 in all (tests/engine/test_worked_examples.py)
    doc = plan_document(compute_plan(w1(), flat_profile(6)))
    od = doc["strategies"]["on_demand"]
    row = od["monthly"][0]
    assert (row["month"], row["after_horizon"], row["hours"]) == ("2027-03", False, 744.0)
    assert row["demand_gpu_hours"] == row["on_demand_gpu_hours"] == 4464.0
    assert row["owned_gpu_hours"] == 0.0
    assert row["on_demand"] == row["total_cost"] == pytest.approx(13_503.60, rel=1e-12)
    assert od["gpu_hours"] == {"owned": 0.0, "committed": 0.0, "spot": 0.0,
                               "on_demand": 52_704.0, "overhead": 0.0}
    assert od["total_cost"] == od["cost_lines"]["on_demand"] == pytest.approx(159_429.60)
    # one server bought: its capacity as the document states it, and the 4,464 GPU-hours
    # of March on it
    proposed = doc["strategies"]["proposed"]
    assert (proposed["servers"], proposed["committed_gpus"]) == ({"owned": 1},
                                                                 {"1y": 0, "3y": 0})
    assert proposed["monthly"][0]["servers_online"] == 1.0
    assert proposed["monthly"][0]["owned_gpu_hours"] == 4464.0
    json.dumps(doc, allow_nan=False)          # strict JSON: no NaN or infinity anywhere


def test_numbers_that_are_not_finite_become_null():
    assert [num(1.5), num(float("nan")), num(float("inf")), num(None)] == [1.5, None, None, None]


@pytest.mark.parametrize("build, gpus", [(w1, 6), (w2, 10)])
def test_document_months_match_worked_calendar(build, gpus):
    doc = plan_document(compute_plan(build(), flat_profile(gpus)))
    assert doc["months"][0] == "2027-03" and doc["months"][-1] == "2028-02"
    for name, s in doc["strategies"].items():
        rows = s["monthly"]
        assert_allclose(rows[-1]["cumulative_cost"], s["total_cost"], rtol=1e-12)
        assert_allclose(rows[-1]["discounted_cumulative_cost"], s["pv_cost"], rtol=1e-12)
        assert_allclose(sum(r["total_cost"] for r in rows), s["total_cost"], rtol=1e-12)
        assert np.isfinite(s["cost_per_useful_gpu_hour"])


def test_document_section_shape(engine_plan):
    u = plan_document(engine_plan)["uncertainty"]
    for key in ("draws", "seed", "saving_p10", "saving_p50", "saving_p90",
                "probability_buy_cheaper", "histogram", "regret", "judged", "tornado"):
        assert key in u
    assert u["draws"] == 2_000 and u["seed"] == 1 and u["judged"] == "optimal"
    assert len(u["histogram"]["edges"]) == len(u["histogram"]["counts"]) + 1
    assert sum(u["histogram"]["counts"]) == 2_000
    assert set(u["regret"]) == set(engine_plan.strategies)
    assert min(r["mean"] for r in u["regret"].values()) >= 0
    row = u["tornado"][0]
    assert set(row) >= {"assumption", "label", "unit", "low", "high", "saving_low",
                        "saving_high"}
    json.dumps(u)


def test_zero_draws_leaves_the_section_out():
    s = Scenario.model_validate({"uncertainty": {"draws": 0},
                                 "finance": {"start_month": "2027-01", "horizon_months": 12}})
    assert "uncertainty" not in plan_document(compute_plan(s, daily_swing_profile()))
