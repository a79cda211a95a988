"""The position, usage and forecast of a re-plan from the actuals (issue 43, re-plan), by hand.

Scenario: servers at 300,000 + 30,000 install, 20 % a year hardware price trend, 60-month
life; on demand 4.00 a GPU-hour falling 10 % a year; a 1-year offer at 25 % off (3.00 at the
plan's first month, 2027-01); the team already holds 2 servers bought 2025-01 at 250,000 and
1 bought 2022-01 (its life ends 2027-01).

Schedule: 2027-01 buy 3; 2027-03 buy 1 and sell 2 (oldest first: the two of 2025-01);
2027-04 sign 16 GPUs of 1y; 2027-08 buy 1. Executed through 2027-05 (re-plan from 2027-06):
- servers: 3 of 2027-01 at 300,000; 1 of 2027-03 at 300,000 x 1.2^(2/12) = 309,256.00
  (1.2^(1/6) = 1.0308533...);
  the 2025-01 pair sold; the 2022-01 server retired (2022-01 + 60 months = 2027-01 <= 2027-06);
  the 2027-08 purchase not yet made;
- commitments: 1y:2027-04, 16 GPUs for 12 months at 3.00 x 0.9^(3/12) = 2.92201
  (0.9^(1/4) = 0.9740037...)
"""
from __future__ import annotations

import numpy as np
import pytest

from models.actual_position import ServerEvent, held_position, planned_events
from models.actual_usage import UsageAppendError, append_months
from models.profile import UsageProfile
from models.replanned_forecast import replanned_forecast
from models.scenario import Scenario
from tests.support.variance_cases import ACTUALS, PLAN, plan_row

SCENARIO = Scenario.model_validate({
    "owned": {"server_price": 300_000, "install_cost_per_server": 30_000,
              "hardware_price_trend_annual": 0.2, "useful_life_months": 60},
    "on_demand": {"price_per_gpu_hour": 4.0, "price_trend_annual": -0.1},
    "commitments": [{"id": "1y", "term_months": 12, "discount": 0.25}],
    "position": {"servers": [{"count": 2, "purchased": "2025-01", "price": 250_000},
                             {"count": 1, "purchased": "2022-01", "price": 200_000}]}})
SCHEDULE = {"schedule": [
    {"month": "2027-01", "buy_servers": 3, "sell_servers": 0, "commit": {}},
    {"month": "2027-03", "buy_servers": 1, "sell_servers": 2, "commit": {}},
    {"month": "2027-04", "buy_servers": 0, "sell_servers": 0, "commit": {"1y": 16}},
    {"month": "2027-08", "buy_servers": 1, "sell_servers": 0, "commit": {}}]}


def rows(position):
    return [(p.count, p.purchased, round(p.price, 6), p.install_cost)
            for p in position.servers]


def test_a_schedule_executed_through_the_last_actual_month_by_hand():
    events, signings = planned_events(SCENARIO, SCHEDULE, "2027-01", 24)
    assert [(e.month, e.action, e.count) for e in events] == [
        ("2027-01", "buy", 3), ("2027-03", "buy", 1), ("2027-03", "sell", 2),
        ("2027-08", "buy", 1)]
    assert events[1].price == pytest.approx(300_000 * 1.2 ** (2 / 12), rel=1e-12)
    assert round(events[1].price, 2) == 309256.00
    assert [(c.month, c.offer, c.gpus, c.term_months) for c in signings] == [
        ("2027-04", "1y", 16, 12)]
    assert signings[0].price_per_gpu_hour == pytest.approx(3.0 * 0.9 ** 0.25, rel=1e-12)
    position = held_position(SCENARIO, "2027-01", "2027-05", events, signings)
    assert rows(position) == [(3, "2027-01", 300_000.0, 30_000.0),
                              (1, "2027-03", round(300_000 * 1.2 ** (2 / 12), 6), 30_000.0)]
    [contract] = position.commitments
    assert (contract.id, contract.gpus, contract.start, contract.term_months,
            contract.payment) == ("1y:2027-04", 16, "2027-04", 12, "none")
    assert round(contract.price_per_gpu_hour, 5) == 2.92201
    # one month earlier: the signing of April counts, the sale of March too
    assert [p.count for p in held_position(SCENARIO, "2027-01", "2027-04", events,
                                           signings).servers] == [3, 1]
    # before March: the 2025-01 pair is still held, the new server not bought
    early = held_position(SCENARIO, "2027-01", "2027-02", events, signings)
    assert rows(early) == [(2, "2025-01", 250_000.0, 0.0), (3, "2027-01", 300_000.0, 30_000.0)]
    assert early.commitments == ()


def test_actual_purchases_replace_the_plans_a_late_delivery_at_another_price():
    events, signings = planned_events(SCENARIO, SCHEDULE, "2027-01", 24)
    actual = [ServerEvent("2027-02", "buy", 3, price=310_000, install=25_000),
              ServerEvent("2027-04", "sell", 1, sell_from={"2025-01": 1})]
    position = held_position(SCENARIO, "2027-01", "2027-05", events, signings, actual)
    assert rows(position) == [(1, "2025-01", 250_000.0, 0.0),
                              (3, "2027-02", 310_000.0, 25_000.0)]
    with pytest.raises(ValueError, match="5 servers"):
        held_position(SCENARIO, "2027-01", "2027-05", events, signings,
                      [ServerEvent("2027-02", "sell", 5)])


def test_a_static_strategy_is_bought_at_the_start_and_renewed_each_term():
    static = {"servers": 2, "committed_gpus": {"1y": 8}}
    events, signings = planned_events(SCENARIO, static, "2027-01", 24)
    assert [(e.month, e.count, e.price) for e in events] == [("2027-01", 2, 300_000.0)]
    assert [(c.month, c.gpus) for c in signings] == [("2027-01", 8), ("2028-01", 8)]
    assert signings[1].price_per_gpu_hour == pytest.approx(3.0 * 0.9, rel=1e-12)
    ended = held_position(SCENARIO, "2027-01", "2027-12", events, signings)
    assert ended.commitments == ()          # 2027-01 + 12 months ends as the re-plan starts
    renewed = held_position(SCENARIO, "2027-01", "2028-01", events, signings)
    assert [c.id for c in renewed.commitments] == ["1y:2028-01"]
    assert rows(renewed) == [(2, "2025-01", 250_000.0, 0.0), (2, "2027-01", 300_000.0,
                                                              30_000.0)]


def monthly_profile(first: str, values, interruptible=None):
    n = len(values)
    starts = np.array([np.datetime64(first, "M") + k for k in range(n)]).astype(
        "datetime64[h]")
    inter = np.zeros(n) if interruptible is None else np.asarray(interruptible, float)
    return UsageProfile("month", starts, np.asarray(values, float), inter)


def test_actual_months_are_appended_in_the_shape_of_a_year_before_and_cut_to_whole_years():
    # 2026-01..12: steady 100 a month, January also 50 interruptible
    usage = monthly_profile("2026-01", [100.0] * 12, [50.0] + [0.0] * 11)
    out = append_months(usage, {"2027-01": 300.0, "2027-02": 80.0})
    # 14 months held: the last 12 kept, 2026-03 to 2027-02
    assert str(out.starts[0].astype("datetime64[M]")) == "2026-03"
    assert len(out.starts) == 12
    # January 2027 as January 2026 (100 + 50) scaled by 300 / 150 = 2
    assert (out.steady[-2], out.interruptible[-2]) == (200.0, 100.0)
    assert (out.steady[-1], out.interruptible[-1]) == (80.0, 0.0)
    with pytest.raises(UsageAppendError, match="2027-01"):
        append_months(usage, {"2027-02": 1.0})          # January missing
    short = monthly_profile("2026-11", [10.0, 30.0], [10.0, 10.0])
    out = append_months(short, {"2027-01": 90.0})       # no January before: spread, share 20/60
    assert len(out.starts) == 3 and out.steady[-1] == pytest.approx(60.0)
    assert out.interruptible[-1] == pytest.approx(30.0)


def test_an_hourly_usage_takes_its_months_hour_by_hour():
    starts = np.arange(np.datetime64("2026-12-01T00"), np.datetime64("2027-01-01T00"))
    usage = UsageProfile("hour", starts, np.full(744, 2.0), np.zeros(744))
    out = append_months(usage, {"2027-01": 744 * 3.0})
    assert len(out.starts) == 2 * 744 and out.period == "hour"
    assert np.allclose(out.steady[744:], 3.0) and out.interruptible.sum() == 0.0
    half = UsageProfile("hour", starts[:100], np.ones(100), np.zeros(100))
    with pytest.raises(UsageAppendError, match="inside 2026-12"):
        append_months(half, {"2027-01": 1.0})


def test_the_forecast_re_planned_is_actuals_to_date_then_the_re_plan_by_hand():
    # tests/engine/test_forecast.py's case: plan 1750, 1000, 40; actual January 1990.
    three = PLAN + [plan_row("2027-03", od=(10, 40))]
    replanned = [plan_row("2027-01", od=(1, 999)), plan_row("2027-02", od=(10, 30)),
                 plan_row("2027-03", od=(10, 25)), plan_row("2028-01", od=(10, 5))]
    out = replanned_forecast(three, ACTUALS[:1], replanned)
    # January's actual 1990, then the re-plan's 30 + 25 + 5 (its January not counted)
    assert out["to_date_cents"] == 199000
    assert out["year"] == {"year": "2027", "forecast_cents": 199000 + 3000 + 2500}
    assert out["total"] == {"forecast_cents": 199000 + 3000 + 2500 + 500,
                            "first": "2027-02", "last": "2028-01"}
    # the chart's running line: 1990, then + 30, + 25, + 5
    assert out["cumulative"] == [{"month": "2027-02", "cents": 202000},
                                 {"month": "2027-03", "cents": 204500},
                                 {"month": "2028-01", "cents": 205000}]


def test_a_fleet_of_server_types_keeps_each_type_and_its_own_price():
    """Two types: h100 at the owned price (300,000), l40s at 100,000 with a 36-month life.
    Schedule: 2027-01 buy 2 h100 and 4 l40s; 2027-02 sell 1 h100. Through 2027-03: 1 h100 of
    2027-01 and 4 l40s of 2027-01 at their own prices, each row naming its type."""
    fleet = SCENARIO.model_copy(update={"position": SCENARIO.position.model_copy(
        update={"servers": ()})})
    fleet = Scenario.model_validate({**fleet.model_dump(mode="json"), "server_types": [
        {"id": "h100"}, {"id": "l40s", "server_price": 100_000, "useful_life_months": 36}]})
    schedule = {"schedule": [
        {"month": "2027-01", "buy_servers": 0, "sell_servers": 0, "commit": {},
         "buy": {"h100": 2, "l40s": 4}},
        {"month": "2027-02", "buy_servers": 0, "sell_servers": 0, "commit": {},
         "sell": {"h100": 1}}]}
    events, signings = planned_events(fleet, schedule, "2027-01", 24)
    position = held_position(fleet, "2027-01", "2027-03", events, signings)
    assert [(p.type, p.count, p.purchased, p.price) for p in position.servers] == [
        ("h100", 1, "2027-01", 300_000.0), ("l40s", 4, "2027-01", 100_000.0)]
