"""The FX part of the variance (models/variance_fx.py, models/variance.py; issue 43, item 2), by
hand.

Plan in KRW, its foreign currency USD at 1,000 KRW per USD in 2027-01, +44 % a year: in 2027-07
(6 months on) the plan's rate is 1,000 x 1.44^(6/12) = 1,200.

- A row priced 600 USD and billed 630,000 KRW in January: at the plan's rate 600,000 KRW, fx
  630,000 - 600,000 = 30,000 (the rate paid was 1,050).
- A row of 400 USD billed in USD in July, the user stating 1,150 KRW per USD as paid: at the
  plan's rate 480,000, paid 460,000, fx -20,000.
- A row in KRW: itself, no fx. A row in EUR (no rate in the plan), billed in KRW or in EUR:
  refused. A USD row billed in USD with no stated rate: refused.
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from models.variance import MonthActuals, month_variance, variance
from models.variance_fx import FX_MESSAGES, PlanMoney, at_plan_rate
from tests.support.focus_fx_cases import FX_PLAN, KRW

MONEY = PlanMoney(KRW, "2027-01")


def test_rows_at_the_plans_rate_and_their_fx():
    assert at_plan_rate(600.0, "USD", "2027-01", 630_000.0, "KRW", MONEY) == (600_000.0,
                                                                              30_000.0)
    stated = PlanMoney(KRW, "2027-01", stated_rate=1150.0)
    assert at_plan_rate(400.0, "USD", "2027-07", 400.0, "USD", stated) == (480_000.0,
                                                                           -20_000.0)
    assert at_plan_rate(5000.0, "KRW", "2027-07", None, None, MONEY) == (5000.0, 0.0)
    for billed, billed_currency in ((14_500.0, "KRW"), (10.0, "EUR")):
        assert at_plan_rate(10.0, "EUR", "2027-02", billed, billed_currency, MONEY) == \
            FX_MESSAGES[0] % {"currency": "EUR", "reporting": "KRW"}
    assert at_plan_rate(400.0, "USD", "2027-07", 400.0, "USD", MONEY) == FX_MESSAGES[1] % {
        "currency": "USD", "reporting": "KRW"}
    # the bill's own rate wins over a stated one
    assert at_plan_rate(600.0, "USD", "2027-01", 630_000.0, "KRW", stated) == (600_000.0,
                                                                               30_000.0)


PLAN = FX_PLAN
# what service/actuals.py makes of the two rows above (120 and 80 GPU-h on demand)
ACTUALS = [MonthActuals("2027-01", costs={"on_demand": 600_000.0, "spot": 0.0,
                                          "commitment": 0.0},
                        gpu_hours={"on_demand": 120.0, "spot": 0.0, "committed": 0.0},
                        fx_cost=30_000.0),
           MonthActuals("2027-07", costs={"on_demand": 480_000.0, "spot": 0.0,
                                          "commitment": 0.0},
                        gpu_hours={"on_demand": 80.0, "spot": 0.0, "committed": 0.0},
                        fx_cost=-20_000.0)]


def test_two_months_by_hand():
    """January: plan 100 GPU-h at 4,000 = 400,000; actual 120 GPU-h, 600,000 at the plan's rate,
    630,000 paid. volume (120 - 100) x 4,000 = 80,000; price 600,000 - 120 x 4,000 = 120,000;
    fx 30,000; total 230,000. July: plan 100 GPU-h at 4,800 = 480,000; actual 80 GPU-h, 480,000
    at the plan's rate, 460,000 paid. volume -20 x 4,800 = -96,000; price 480,000 - 80 x 4,800
    = 96,000; fx -20,000; total -20,000. Year to date: volume -16,000, price 216,000, fx
    10,000, total 210,000."""
    jan = month_variance(PLAN[0], ACTUALS[0])
    assert (jan["plan"], jan["actual"], jan["total"]) == (400_000, 630_000, 230_000)
    assert {k: v for k, v in jan["parts"].items() if v} == {
        "volume": 80_000, "price": 120_000, "fx": 30_000}
    doc = variance(PLAN, ACTUALS)
    one, two = doc["months"]
    assert one["parts"] == {"volume": "80000.00", "mix": "0.00", "price": "120000.00",
                            "idle_commitments": "0.00", "fx": "30000.00"}
    assert two["parts"] == {"volume": "-96000.00", "mix": "0.00", "price": "96000.00",
                            "idle_commitments": "0.00", "fx": "-20000.00"}
    assert (two["plan"], two["actual"], two["total"]) == ("480000.00", "460000.00",
                                                          "-20000.00")
    ytd = doc["ytd"]
    assert ytd["parts"] == {"volume": "-16000.00", "mix": "0.00", "price": "216000.00",
                            "idle_commitments": "0.00", "fx": "10000.00"}
    assert ytd["total"] == "210000.00" and sum(ytd["parts_cents"].values()) == \
        ytd["total_cents"]


def test_fx_of_a_fraction_of_a_cent_still_adds_up():
    """fx = 0.005 (half a cent) on a price of 1.00: the parts are rounded cumulatively. The
    float 0.005 is a little above half a cent (0.005000000000000000104...), so price + fx =
    1.00500...01 -> 1.01 and fx takes the cent: price 1.00, fx 0.01, total 1.01."""
    a = MonthActuals("2027-01", costs={"on_demand": 400_001.0}, gpu_hours={"on_demand": 100.0},
                     fx_cost=0.005)
    doc = variance(PLAN[:1], [a])["months"][0]
    assert month_variance(PLAN[0], a)["parts"]["fx"] == Fraction(0.005)
    assert (doc["parts_cents"]["price"], doc["parts_cents"]["fx"]) == (100, 1)
    assert sum(doc["parts_cents"].values()) == doc["total_cents"] == 101


def test_a_non_number_fx_is_refused():
    from models.variance import VarianceError
    a = MonthActuals("2027-01", costs={"on_demand": 1.0}, gpu_hours={"on_demand": 1.0},
                     fx_cost=float("nan"))
    with pytest.raises(VarianceError):
        month_variance(PLAN[0], a)
