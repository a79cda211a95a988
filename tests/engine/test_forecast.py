"""Cumulative spend, forecast and the table by line of plan against actual (models/forecast.py),
by hand on the case of tests/engine/test_variance.py plus a third month.

Plan totals: 2027-01 1750, 2027-02 1000, 2027-03 40 (on demand 10 GPU-h for 40): 2790 in all.
Actual totals: 2027-01 1990, 2027-02 1080 (tests/engine/test_variance.py's docstring).
With January's actuals only: forecast 1990 + 1000 + 40 = 3030, 240 over the plan; the running
forecast 1990, 2990, 3030; the running actual 1990 then nothing.
With both months: to date plan 2750, actual 3070 (+320); forecast 3070 + 40 = 3110 (+320).
By line over both months: on demand plan 400 + 200 = 600, actual 660 + 160 = 820 (+220); spot
300 + 0, actual 270 + 120 = 390 (+90); commitment 1000 + 800 both (0); storage plan 50 + 0,
actual 60 + (February not given: as planned, 0) = 60 (+10).
"""
from __future__ import annotations

import pytest

from models.forecast import by_line, forecast
from models.variance import MonthActuals, VarianceError
from tests.support.variance_cases import ACTUALS, PLAN, plan_row

THREE = PLAN + [plan_row("2027-03", od=(10, 40))]


def test_forecast_is_actuals_to_date_then_the_plan_by_hand():
    out = forecast(THREE, ACTUALS[:1])
    assert [m["forecast_cents"] for m in out["months"]] == [199000, 100000, 4000]
    assert [m["actual_cents"] for m in out["months"]] == [199000, None, None]
    assert [m["cumulative_plan_cents"] for m in out["months"]] == [175000, 275000, 279000]
    assert [m["cumulative_actual_cents"] for m in out["months"]] == [199000, None, None]
    assert [m["cumulative_forecast_cents"] for m in out["months"]] == [199000, 299000, 303000]
    assert out["to_date"] == {"plan_cents": 175000, "actual_cents": 199000,
                              "difference_cents": 24000}
    assert out["total"] == {"plan_cents": 279000, "forecast_cents": 303000,
                            "difference_cents": 24000}
    assert out["year"] == {"year": "2027", "plan_cents": 279000, "forecast_cents": 303000,
                           "difference_cents": 24000}
    both = forecast(THREE, ACTUALS)
    assert both["to_date"] == {"plan_cents": 275000, "actual_cents": 307000,
                               "difference_cents": 32000}
    assert both["total"]["forecast_cents"] == 311000 and both["last_actual"] == "2027-02"
    assert [m["cumulative_actual_cents"] for m in both["months"]] == [199000, 307000, None]


def test_running_sums_are_rounded_once_not_summed_from_rounded_months():
    # 0.125 is exact in binary: 12.5 cents, halves to even -> 12 each month, but the running
    # sums are 25 and 37.5 -> 38 cents (the months' rounded cents would sum to 36)
    rows = [plan_row(m, storage=0.125) for m in ("2027-01", "2027-02", "2027-03")]
    out = forecast(rows, [MonthActuals("2027-01", costs={"storage": 0.125})])
    assert [m["plan_cents"] for m in out["months"]] == [12, 12, 12]
    assert [m["cumulative_plan_cents"] for m in out["months"]] == [12, 25, 38]
    assert out["total"]["plan_cents"] == 38


def test_a_year_is_the_calendar_year_of_the_last_actual_month():
    rows = [plan_row("2026-12", od=(1, 7)), plan_row("2027-01", od=(1, 3)),
            plan_row("2027-02", od=(1, 5))]
    actual = [MonthActuals("2027-01", costs={"on_demand": 4}, gpu_hours={"on_demand": 1})]
    out = forecast(rows, actual)
    assert out["year"] == {"year": "2027", "plan_cents": 800, "forecast_cents": 900,
                           "difference_cents": 100}
    assert out["total"] == {"plan_cents": 1500, "forecast_cents": 1600, "difference_cents": 100}


def test_by_line_by_hand():
    lines = {r["line"]: r for r in by_line(PLAN, ACTUALS)}
    assert set(lines) == {"on_demand", "spot", "commitment", "storage"}
    assert (lines["on_demand"]["plan_cents"], lines["on_demand"]["actual_cents"],
            lines["on_demand"]["difference_cents"]) == (60000, 82000, 22000)
    assert (lines["spot"]["plan_cents"], lines["spot"]["actual_cents"]) == (30000, 39000)
    assert lines["commitment"]["difference_cents"] == 0
    assert (lines["storage"]["plan_cents"], lines["storage"]["actual_cents"],
            lines["storage"]["difference_cents"], lines["storage"]["as_planned"]) == \
        (5000, 6000, 1000, False)


def test_months_outside_the_plan_or_twice_are_refused():
    with pytest.raises(VarianceError, match="not a month of the plan"):
        forecast(PLAN, [MonthActuals("2030-01")])
    with pytest.raises(VarianceError, match="given twice"):
        forecast(PLAN, [MonthActuals("2027-01"), MonthActuals("2027-01")])
    with pytest.raises(VarianceError, match="no month"):
        forecast(PLAN, [])
