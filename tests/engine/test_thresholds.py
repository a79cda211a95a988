"""Alert thresholds (issue 43, thresholds): which months of actuals cross a scenario's
thresholds, by hand on small cases, with the rule that exactly at a threshold is no breach.

The variance case of tests/support/variance_cases.py (hand-checked there):

- 2027-01: plan 400 + 300 + 1000 + 50 = 1750, actual 660 + 270 + 1000 + 60 = 1990: spend
  240 / 1750 = 13.714... % over plan; commitments 1 GPU x 500 h = 500 GPU-hours, 350 used:
  70 %.
- 2027-02: plan 200 + 800 = 1000, actual 160 + 120 + 800 = 1080: 8 % over plan exactly;
  commitments 1 GPU x 400 h = 400 GPU-hours, 380 used: 95 % exactly.
"""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from pydantic import ValidationError

from models.thresholds import Breach, Thresholds, evaluate, owned_installed, percent_text
from models.variance import MonthActuals, variance
from tests.support.variance_cases import ACTUALS, PLAN, plan_row

ROWS = {r["month"]: r for r in PLAN}


def months():
    return variance(PLAN, ACTUALS)["months"]


def test_spend_over_plan_breaches_above_the_threshold_and_not_at_it():
    found = evaluate(months(), ROWS, Thresholds(spend_over_plan=Decimal("8")))
    # January: 240 / 1750 = 96/7 % = 13.714...; February: exactly 8 %, no breach
    assert found == [Breach("2027-01", "spend_over_plan", Fraction(96, 7), Fraction(8))]
    assert percent_text(found[0].value) == "13.71"
    at_january = evaluate(months(), ROWS, Thresholds(spend_over_plan=Decimal("13.71")))
    assert [b.month for b in at_january] == ["2027-01"]      # 13.714 > 13.71
    assert evaluate(months(), ROWS, Thresholds(spend_over_plan=Decimal("13.72"))) == []
    assert evaluate(months(), ROWS, Thresholds(spend_over_plan=Decimal("7.99")))[1].month \
        == "2027-02"


def test_commitment_utilization_breaches_under_the_threshold_and_not_at_it():
    found = evaluate(months(), ROWS, Thresholds(commitment_utilization=Decimal("95")))
    # January 350 / 500 = 70 % < 95; February 380 / 400 = 95 % exactly: no breach
    assert found == [Breach("2027-01", "commitment_utilization", Fraction(70), Fraction(95))]
    assert evaluate(months(), ROWS, Thresholds(commitment_utilization=Decimal("70"))) == []
    both = evaluate(months(), ROWS, Thresholds(commitment_utilization=Decimal("95.01")))
    assert [(b.month, b.value) for b in both] == [("2027-01", 70), ("2027-02", 95)]


def test_a_utilization_the_actuals_do_not_give_is_not_evaluated():
    """Bills without committed GPU-hours: the variance takes them as planned, and the plan's
    own utilization is no news (nor a month without committed GPUs)."""
    doc = variance(PLAN, [MonthActuals("2027-01", costs={"on_demand": 400})])["months"]
    assert "gpu_hours.committed" in doc[0]["as_planned"]
    assert evaluate(doc, ROWS, Thresholds(commitment_utilization=Decimal("100"))) == []
    no_commitment = [plan_row("2027-01", od=(100, 400))]
    doc = variance(no_commitment, [MonthActuals("2027-01", costs={"on_demand": 400,
                                                                  "commitment": 0},
                                                gpu_hours={"committed": 0})])["months"]
    assert "gpu_hours.committed" not in doc[0]["as_planned"]
    assert evaluate(doc, {"2027-01": no_commitment[0]},
                    Thresholds(commitment_utilization=Decimal("50"))) == []


def test_owned_utilization_against_the_installed_gpu_hours():
    """2 servers of 8 GPUs for 720 h: 11,520 GPU-hours installed; 5,760 used = 50 %."""
    rows = [plan_row("2027-01", owned_gpu_hours=8000.0, servers_online=2.0, hours=720.0,
                     energy=100.0)]
    installed = owned_installed(rows, 8)
    assert installed == {"2027-01": 11520.0}
    doc = variance(rows, [MonthActuals("2027-01", gpu_hours={"owned": 5760})])["months"]
    assert evaluate(doc, {"2027-01": rows[0]}, Thresholds(owned_utilization=Decimal("60")),
                    installed) == [Breach("2027-01", "owned_utilization", Fraction(50),
                                          Fraction(60))]
    assert evaluate(doc, {"2027-01": rows[0]}, Thresholds(owned_utilization=Decimal("50")),
                    installed) == []
    # no owned actuals: taken as planned, not evaluated
    planned = variance(rows, [MonthActuals("2027-01", costs={"energy": 90})])["months"]
    assert evaluate(planned, {"2027-01": rows[0]}, Thresholds(owned_utilization=Decimal("99")),
                    installed) == []


def test_installed_gpu_hours_of_a_fleet_of_server_types():
    """1 server of 8 GPUs and 2 of 4 for 744 h: (8 + 8) x 744 = 11,904 GPU-hours."""
    rows = [{"month": "2027-03", "hours": 744.0, "servers_online": 3.0,
             "servers_online_by_type": {"a": 1.0, "b": 2.0}}]
    assert owned_installed(rows, 8, {"a": 8, "b": 4}) == {"2027-03": 11904.0}


def test_a_month_planned_at_zero_or_less_has_no_spend_threshold():
    rows = [plan_row("2027-01", resale_credit=500.0)]
    doc = variance(rows, [MonthActuals("2027-01", costs={"on_demand": 10},
                                       gpu_hours={"on_demand": 2})])["months"]
    assert float(doc[0]["plan"]) < 0 < float(doc[0]["actual"]) - float(doc[0]["plan"])
    assert evaluate(doc, {"2027-01": rows[0]}, Thresholds(spend_over_plan=Decimal("0"))) == []


def test_no_threshold_no_breach_and_bounds_are_refused():
    assert evaluate(months(), ROWS, Thresholds()) == []
    for bad in ({"spend_over_plan": "-1"}, {"commitment_utilization": "100.5"},
                {"owned_utilization": "abc"}, {"spend_over_plan": "1.234"},
                {"spend_over_plan": "1001"}, {"other": "5"}):
        with pytest.raises(ValidationError):
            Thresholds(**bad)
