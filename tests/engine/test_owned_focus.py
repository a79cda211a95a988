"""The owned fleet's FOCUS rows (models/owned_focus.py; issue 43, item 1) and the plan's rate of
a month (models/fx_months.py), by hand.

The small plan by hand
----------------------
One server type of 8 GPUs, three months. 2027-01: capex 10,000, energy 500, 1,000 owned GPU-h,
2 servers online. 2027-02: energy 400, staff 600, 500 GPU-h. 2027-03 (after the horizon): a
resale credit of 3,000 and a tax shield of 999 (not an owned cost: left out), no GPU-hours.
Owned cost C = 10,500 + 1,000 - 3,000 = 8,500; G = 1,500 GPU-h; price p = 8,500 / 1,500 = 17/3
= 5.666... per GPU-hour. January 1,000 x 17/3 = 5,666.666... -> 5,666.67; the running sum after
February is 8,500.00, so February 2,833.33 (cumulative rounding). Server-hours 125 and 62.5.
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from models.fx_months import month_number, plan_rate
from models.owned_focus import MESSAGES, OwnedExportError, owned_export
from tests.support.focus_fx_cases import OWNED_PLAN

PLAN = OWNED_PLAN
USD = {"reporting": "USD", "owned": "USD", "cloud": "USD", "fx": None}


def test_small_plan_by_hand():
    out = owned_export(PLAN, "optimal", {"owned": 8}, USD, "USD")
    assert out.price_per_gpu_hour == Fraction(17, 3)
    assert (out.total_cost, out.total_gpu_hours) == (8500, 1500)
    assert [(r.month, r.server_type, r.gpu_hours, r.server_hours, r.cost_cents)
            for r in out.rows] == [("2027-01", "owned", 1000.0, 125.0, 566667),
                                   ("2027-02", "owned", 500.0, 62.5, 283333)]
    assert sum(r.cost_cents for r in out.rows) == 850000


def test_fleet_shares_a_month_by_online_gpus():
    """2 servers of 4 GPUs and 1 of 8: 8 GPUs each, so each type gets half of the 1,000 GPU-h,
    at the one price 8,500 / 1,500."""
    plan = [dict(PLAN[0], servers_online_by_type={"a": 1.0, "b": 2.0, "c": 0.0}), PLAN[1],
            PLAN[2]]
    plan[1] = dict(PLAN[1], servers_online_by_type={"a": 1.0, "b": 0.0, "c": 0.0})
    out = owned_export(plan, "staged", {"a": 8, "b": 4, "c": 8}, USD, "USD")
    assert [(r.month, r.server_type, r.gpu_hours, r.server_hours, r.cost_cents)
            for r in out.rows] == [("2027-01", "a", 500.0, 62.5, 283333),
                                   ("2027-01", "b", 500.0, 125.0, 283334),
                                   ("2027-02", "a", 500.0, 62.5, 283333)]
    assert sum(r.cost_cents for r in out.rows) == 850000


def test_owned_currency_converted_at_the_plans_rate_of_each_month():
    """Reporting KRW, owned in USD at 1,000 KRW per USD in January moving +44 % a year: July
    (6 months on) is 1,000 x 1.44^(1/2) = 1,200. 1,000,000 KRW in January and 1,200,000 KRW in
    July are 1,000 USD each; 100 + 300 GPU-h, so 5 USD per GPU-hour: 500.00 and 1,500.00."""
    krw = {"reporting": "KRW", "owned": "USD", "cloud": "KRW",
           "fx": {"foreign": "USD", "rate": 1000.0, "trend_annual": 0.44, "as_of": None}}
    plan = [{"month": f"2027-{m:02d}", "owned_gpu_hours": 0.0, "servers_online": 1.0}
            for m in range(1, 8)]
    plan[0].update(energy=1_000_000.0, owned_gpu_hours=100.0)
    plan[6].update(energy=1_200_000.0, owned_gpu_hours=300.0)
    assert plan_rate(krw, "2027-01", "2027-07", "USD") == pytest.approx(1200.0, rel=1e-14)
    out = owned_export(plan, "optimal", {"owned": 8}, krw, "USD")
    assert float(out.price_per_gpu_hour) == pytest.approx(5.0, rel=1e-12)
    assert [(r.month, r.cost_cents) for r in out.rows] == [("2027-01", 50000),
                                                            ("2027-07", 150000)]


def test_plan_rate_of_each_currency():
    krw = {"reporting": "KRW", "fx": {"foreign": "USD", "rate": 1400.0, "trend_annual": 0.0}}
    assert plan_rate(krw, "2027-01", "2027-05", "KRW") == 1.0
    assert plan_rate(krw, "2027-01", "2027-05", "USD") == 1400.0
    assert plan_rate(krw, "2027-01", "2027-05", "EUR") is None
    assert plan_rate(USD, "2027-01", "2027-05", "KRW") is None
    assert month_number("2026-11", "2027-02") == 3 and month_number("2027-02", "2027-01") == -1


def test_refusals():
    cloud = [dict(r, owned_gpu_hours=0.0) for r in PLAN]
    with pytest.raises(OwnedExportError) as err:
        owned_export(cloud, "cloud_only", {"owned": 8}, USD, "USD")
    assert err.value.template == MESSAGES[0] and err.value.values == {"strategy": "cloud_only"}
    with pytest.raises(OwnedExportError) as err:
        owned_export(PLAN, "optimal", {"owned": 8}, USD, "EUR")
    assert err.value.template == MESSAGES[2]
    nobody = [dict(PLAN[0], servers_online=0.0)]
    with pytest.raises(OwnedExportError) as err:
        owned_export(nobody, "optimal", {"owned": 8}, USD, "USD")
    assert err.value.values == {"month": "2027-01"}
