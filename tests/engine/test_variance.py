"""The variance engine (models/variance.py): a 2-month, 3-source case by hand, parts that add up
to the cent on random inputs, and the parts recomputed by sequential substitution.

The case by hand
----------------
Month 2027-01. Plan: on demand 100 GPU-h for 400 (rate 4), spot 200 GPU-h for 300 (rate 1.5),
1 committed GPU x 500 h = 500 GPU-h of capacity for 1000 (rate 2) of which 400 used, so the
plan's idle commitments are 1000 - 400 x 2 = 200; storage 50. Plan total 1750.
Actual: on demand 150 GPU-h for 660 (rate 4.4), spot 180 GPU-h for 270, commitment 1000 of
which 300 idle (350 GPU-h used), storage 60. Actual total 1990, variance 240.
Q = 700, plan rated cost 400 + 300 + 800 = 1500, mean rate 15/7; Q' = 680.
volume = (680 - 700) x 15/7 = -300/7 = -42.857...;
at plan rates 150 x 4 + 180 x 1.5 + 350 x 2 = 1570, mix = 1570 - 680 x 15/7 = 790/7 = 112.857...;
price = (660 - 600) + (270 - 270) + (700 - 700) = 60; idle = 300 - 200 = 100; storage 10.
-300/7 + 790/7 + 60 + 100 + 10 = 70 + 170 = 240. In cents (cumulative rounding): volume
-42.86, then volume + mix = 70.00 so mix 112.86; price 60.00, idle 100.00, storage 10.00.

Month 2027-02. Plan: on demand 50 GPU-h for 200, no spot, 1 GPU x 400 h committed, all 400
used, 800 (rate 2, no idle). Plan total 1000. Actual: on demand 40 GPU-h for 160, spot 60 GPU-h
for 120 (unplanned: its rate is the rate paid, 2), commitment 800 with 40 idle (380 GPU-h used);
storage not given (as planned). Actual 1080, variance 80. Q = 450, mean rate 1000/450 = 20/9,
Q' = 480. volume = 30 x 20/9 = 66.667; at plan rates 160 + 120 + 760 = 1040, mix = 1040 -
480 x 20/9 = -26.667; price = 0 + 0 + (760 - 760) = 0; idle = 40. In cents: volume 66.67, mix
40.00 - 66.67 = -26.67, idle 40.00; total 80.00.

Year to date: volume -300/7 + 600/9 = 23.8095 -> 23.81; mix 790/7 - 240/9 = 86.1905, volume +
mix = 110 -> mix 86.19; price 60, idle 140, storage 10; total 320.00.
"""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from models.lines import COST_LINES, CREDIT_LINES
from models.variance import (MonthActuals, VarianceError, month_variance, round_parts,
                             variance)
from tests.support.variance_cases import ACTUALS, PLAN, plan_row


def test_hand_case_exact_parts():
    one = month_variance(PLAN[0], ACTUALS[0])
    assert one["total"] == 240
    p = one["parts"]
    assert (p["volume"], p["mix"], p["price"], p["idle_commitments"], p["other.storage"]) == (
        Fraction(-300, 7), Fraction(790, 7), 60, 100, 10)
    two = month_variance(PLAN[1], ACTUALS[1])
    q = two["parts"]
    assert (two["total"], q["volume"], q["mix"], q["price"], q["idle_commitments"]) == (
        80, Fraction(600, 9), Fraction(-240, 9), 0, 40)
    assert "storage" in two["as_planned"] and "gpu_hours.owned" not in two["as_planned"]


def test_hand_case_in_cents():
    doc = variance(PLAN, ACTUALS)
    jan, feb = doc["months"]
    assert jan["parts"] == {"volume": "-42.86", "mix": "112.86", "price": "60.00",
                            "idle_commitments": "100.00", "other.storage": "10.00"}
    assert (jan["total"], jan["plan"], jan["actual"]) == ("240.00", "1750.00", "1990.00")
    assert feb["parts"] == {"volume": "66.67", "mix": "-26.67", "price": "0.00",
                            "idle_commitments": "40.00"}
    assert feb["total"] == "80.00"
    ytd = doc["ytd"]
    assert (ytd["from"], ytd["to"], ytd["total"]) == ("2027-01", "2027-02", "320.00")
    assert ytd["parts"] == {"volume": "23.81", "mix": "86.19", "price": "60.00",
                            "idle_commitments": "140.00", "other.storage": "10.00"}


def test_round_parts_spreads_no_residual():
    parts = {"a": Fraction(1, 3), "b": Fraction(1, 3), "c": Fraction(1, 3)}
    cents, total = round_parts(parts, Fraction(1))
    assert cents == {"a": 33, "b": 34, "c": 33} and total == 100
    # each part is within one cent of its exact value; independent rounding would give 99
    assert all(abs(Fraction(v) - 100 * parts[k]) < 1 for k, v in cents.items())
    with pytest.raises(VarianceError):
        round_parts(parts, Fraction(2))


def test_refusals():
    with pytest.raises(VarianceError, match="2026-12 is not a month of the plan"):
        variance(PLAN, [MonthActuals("2026-12", costs={"storage": 1.0})])
    with pytest.raises(VarianceError, match="given twice"):
        variance(PLAN, [ACTUALS[0], ACTUALS[0]])
    with pytest.raises(VarianceError, match="without the cost of on_demand"):
        variance(PLAN, [MonthActuals("2027-01", gpu_hours={"on_demand": 5})])
    with pytest.raises(VarianceError, match="idle commitment cost"):
        variance(PLAN, [MonthActuals("2027-01", costs={"commitment": 10},
                                     idle_commitment_cost=11)])


def test_rate_paid_stands_for_cost():
    by_rate = MonthActuals("2027-01", costs={"spot": 270, "commitment": 1000, "storage": 60},
                           gpu_hours={"on_demand": 150, "spot": 180, "committed": 350,
                                      "owned": 0},
                           idle_commitment_cost=300, rates={"on_demand": 4.4})
    assert variance(PLAN[:1], [by_rate])["months"][0]["parts"] == \
        variance(PLAN[:1], ACTUALS[:1])["months"][0]["parts"]


def substitution(row, a):
    """Independent: volume, mix and price by sequential substitution in floats."""
    sources = {"on_demand": ("on_demand_gpu_hours", "on_demand"),
               "spot": ("spot_gpu_hours", "spot"), "committed": ("committed_gpu_hours", None),
               "owned": ("owned_gpu_hours", None)}
    q = {s: row[f] for s, (f, _l) in sources.items()}
    x = {s: a.gpu_hours.get(s, q[s]) for s in sources}
    cap = max(row["committed_gpus"] * row["hours"], q["committed"])
    rate = {"owned": 0.0, "committed": row["commitment"] / cap if cap else None}
    used = {"on_demand": a.costs["on_demand"], "spot": a.costs["spot"],
            "committed": a.costs["commitment"] - a.idle_commitment_cost, "owned": 0.0}
    for s in ("on_demand", "spot"):
        rate[s] = row[s] / q[s] if q[s] > 0 else None
    for s in sources:
        if rate[s] is None:
            rate[s] = used[s] / x[s] if x[s] > 0 else 0.0
    Q, X = sum(q.values()), sum(x.values())
    share_plan = {s: q[s] / Q for s in sources}
    share_act = {s: x[s] / X for s in sources}

    def cost(total, share):
        return total * sum(share[s] * rate[s] for s in sources)
    volume = cost(X, share_plan) - cost(Q, share_plan)
    mix = cost(X, share_act) - cost(X, share_plan)
    price = sum(used.values()) - cost(X, share_act)
    plan_idle = row["commitment"] - q["committed"] * rate["committed"]
    return volume, mix, price, a.idle_commitment_cost - plan_idle


money = st.floats(0, 1e6, allow_nan=False).map(lambda v: round(v, 2))
hours_ = st.floats(1, 1e5, allow_nan=False)


@st.composite
def cases(draw):
    q = [draw(hours_) for _ in range(3)]
    gpus, h = draw(st.integers(0, 100)), draw(st.sampled_from([672.0, 720.0, 744.0]))
    row = plan_row("2027-03", od=(q[0], draw(money)), spot=(q[1], draw(money)),
                   committed=(q[2], gpus, h, draw(money)), storage=draw(money),
                   capex=draw(money), resale_credit=draw(money))
    row["owned_gpu_hours"] = draw(st.floats(0, 1e5))
    commitment = draw(money)
    idle = round(commitment * draw(st.floats(0, 1)), 2)
    a = MonthActuals("2027-03",
                     costs={"on_demand": draw(money), "spot": draw(money),
                            "commitment": commitment, "egress": draw(money),
                            "capex": draw(money), "resale_credit": draw(money)},
                     gpu_hours={"on_demand": draw(hours_), "spot": draw(hours_),
                                "committed": draw(hours_), "owned": draw(st.floats(0, 1e5))},
                     idle_commitment_cost=min(idle, commitment))
    return row, a


@settings(max_examples=300, deadline=None, derandomize=True)
@given(cases())
def test_parts_add_up_to_the_cent(case):
    row, a = case
    out = variance([row], [a])["months"][0]
    assert sum(out["parts_cents"].values()) == out["total_cents"]
    exact = month_variance(row, a)
    assert out["total_cents"] == round(exact["total"] * 100)
    for name, cents in out["parts_cents"].items():
        assert abs(cents - exact["parts"][name] * 100) < 1 + 1e-9
    # the total is actual - plan read off the rows, independently of the parts
    actual = (sum(a.costs.get(n, row[n]) for n in COST_LINES)
              - sum(a.costs.get(n, row[n]) for n in CREDIT_LINES))
    scale = 1 + abs(actual) + abs(row["total_cost"])
    assert abs(float(exact["total"]) - (actual - row["total_cost"])) <= 1e-6 * scale


@settings(max_examples=300, deadline=None, derandomize=True)
@given(cases())
def test_substitution_cross_check(case):
    row, a = case
    parts = month_variance(row, a)["parts"]
    ours = [float(parts[k]) for k in ("volume", "mix", "price", "idle_commitments")]
    theirs = substitution(row, a)
    # floats lose ~1e-16 of the largest amount in play; a real slip is far larger
    scale = 1 + sum(abs(v) for v in a.costs.values()) + sum(
        abs(row[n]) for n in ("on_demand", "spot", "commitment")) + sum(map(abs, theirs))
    scale *= 1 + max(row["on_demand_gpu_hours"] + row["spot_gpu_hours"],
                     sum(a.gpu_hours.values())) / max(1.0, row["committed_gpu_hours"])
    for x, y in zip(ours, theirs):
        assert x == pytest.approx(y, rel=1e-9, abs=1e-11 * scale)
