"""The owned fleet's actuals in the variance (models/owned_actuals.py, models/owned_variance.py):
a 3-month, 2-server case by hand, and the servers held for a re-plan (issue 43).

The case by hand
----------------
One server type of 2 GPUs, 100 hours a month. The plan holds 2 servers from January (capacity
G_p h = 4 x 100 = 400 GPU-h), does 300 owned GPU-h a month (u = 3/4) and 100 on-demand GPU-h
for 400 (rate 4); its running owned lines are energy 100, space 60, maintenance 30, staff 10
(F = 200, cost share p_o = 200 / 400 = 0.5); capex 2000 in January (2 servers x 1000).
Energy is priced at 0.1 per kWh.

January: the second server arrives in March (1 online, G_a = 2); one server bought for 1000,
delivered in January; 120 busy GPU-h; 220 on-demand GPU-h for 880; 500 kWh (50), space 30,
staff 10, maintenance 15.
  L = (4 - 2) x 100 x 3/4 = 150, I = (300 - 150) - 120 = 30.
  Q = 400, plan rated cost 400, mean 1; Q' = 120 + 220 = 340. volume = -60, mix before the
  owned parts = 880 - 340 = 540, price 0. idle_servers = 30 x 0.5 = 15, timing.delivery =
  150 x 4 = 600, mix = 540 - 615 = -75. energy -50, space -30, maintenance -15, staff 0,
  timing.capex 1000 - 2000 = -1000. Plan 2600, actual 1985:
  -60 - 75 + 15 + 600 - 50 - 30 - 15 - 1000 = -615.
February: still 1 online, no busy time (so a_o = 300 - 150 = 150, I = 0); 250 on-demand GPU-h
for 1000; energy given as a cost, 60; space 30, staff 10, maintenance 15.
  Q' = 400, volume 0, mix = 1000 - 400 = 600 - 600 (delivery) = 0, price 0; energy -40, space
  -30, maintenance -15. Plan 600, actual 1115: 600 - 40 - 30 - 15 = 515.
March: 2 online (the second server delivered, bought for 1100: capex moved from January, and
dearer); 250 busy GPU-h; 150 on-demand GPU-h for 660 (rate 4.4); 1000 kWh (100), space 60,
staff 10, maintenance 30.
  L = 0, I = 300 - 250 = 50, idle_servers = 25. Q' = 400, volume 0, mix = 600 - 400 - 25 =
  175, price = 660 - 600 = 60, timing.capex = 1100. Plan 600, actual 1960:
  175 + 60 + 25 + 1100 = 1360.
Year to date: volume -60, mix 100, price 60, idle_servers 40, timing.capex 100,
timing.delivery 1200, energy -90, space -60, maintenance -30; total 1260 (actual 5060 - plan
3800; by the months -615 + 515 + 1360).
"""
from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings, strategies as st

from models.lines import COST_LINES, CREDIT_LINES
from models.owned_actuals import (Fleet, OwnedRow, combine, fleet_of, held_servers, kwh_price,
                                  merge, month_actuals, owned_rows, server_events, split)
from models.owned_variance import owned_split
from models.variance import MonthActuals, month_variance, variance

FLEET = Fleet(first_month="2027-01", kwh_price=0.1, power_inflation=0.0,
              gpus_per_server={"server": 2.0})


def plan_row(month, capex=0.0):
    row = {n: 0.0 for n in COST_LINES + CREDIT_LINES}
    row.update(month=month, hours=100.0, servers_online=2.0, owned_gpu_hours=300.0,
               on_demand_gpu_hours=100.0, on_demand=400.0, spot_gpu_hours=0.0,
               committed_gpu_hours=0.0, committed_gpus=0.0, energy=100.0, space=60.0,
               maintenance=30.0, staff=10.0, capex=capex)
    return row


PLAN = [plan_row("2027-01", capex=2000.0), plan_row("2027-02"), plan_row("2027-03")]
ROWS = [
    OwnedRow("2027-01", "server", 1, busy_gpu_hours=120, energy_kwh=500, space=30, staff=10,
             maintenance=15, purchased=1, purchase_price=1000, delivered="2027-01"),
    OwnedRow("2027-02", "server", 1, energy_cost=60, space=30, staff=10, maintenance=15),
    OwnedRow("2027-03", "server", 2, busy_gpu_hours=250, energy_kwh=1000, space=60, staff=10,
             maintenance=30, purchased=1, purchase_price=1100, delivered="2027-03"),
]
BILLS = [MonthActuals("2027-01", costs={"on_demand": 880.0}, gpu_hours={"on_demand": 220.0}),
         MonthActuals("2027-02", costs={"on_demand": 1000.0}, gpu_hours={"on_demand": 250.0}),
         MonthActuals("2027-03", costs={"on_demand": 660.0}, gpu_hours={"on_demand": 150.0})]


def actuals():
    owned = {a.month: a for a in month_actuals(ROWS, FLEET)}
    return [merge(b, owned[b.month]) for b in BILLS]


def test_split_by_hand():
    jan = owned_split(PLAN[0], 2.0, {"server": 2.0}, 120.0)
    assert (jan.late, jan.idle, jan.gpu_hours, jan.cost_share) == (150, 30, 120, Fraction(1, 2))
    feb = owned_split(PLAN[1], 2.0, {"server": 2.0}, None)
    assert (feb.late, feb.idle, feb.gpu_hours) == (150, 0, 150)
    # no capacity planned: all owned work is early servers' (L = -a_o), nothing idle
    none = dict(PLAN[1], servers_online=0.0, owned_gpu_hours=0.0)
    early = owned_split(none, 2.0, {"server": 2.0}, 80.0)
    assert (early.late, early.idle, early.cost_share) == (-80, 0, 0)


def test_owned_rows_to_month_actuals():
    jan, feb, mar = month_actuals(ROWS, FLEET)
    assert jan.costs == {"energy": 50.0, "space": 30.0, "staff": 10.0, "maintenance": 15.0,
                         "capex": 1000.0, "resale_credit": 0.0}
    assert {k: v for k, v in jan.owned.items() if k != "rows"} == {
        "gpus_online": 2.0, "gpus_per_server": {"server": 2.0}, "busy_gpu_hours": 120.0}
    assert owned_rows([mar, jan, feb]) == ROWS     # the rows, for held_servers
    assert feb.costs["energy"] == 60.0 and feb.owned["busy_gpu_hours"] is None
    assert mar.costs["capex"] == 1100.0 and mar.owned["gpus_online"] == 4.0


def test_hand_case_exact_parts():
    jan, feb, mar = (month_variance(p, a) for p, a in zip(PLAN, actuals()))
    assert (jan["plan"], jan["actual"], jan["total"]) == (2600, 1985, -615)
    p = jan["parts"]
    assert (p["volume"], p["mix"], p["price"], p["idle_servers"], p["timing.delivery"]) == (
        -60, -75, 0, 15, 600)
    assert (p["other.energy"], p["other.space"], p["other.maintenance"], p["other.staff"],
            p["timing.capex"]) == (-50, -30, -15, 0, -1000)
    q = feb["parts"]
    assert (feb["total"], q["volume"], q["mix"], q["idle_servers"], q["timing.delivery"],
            q["other.energy"]) == (515, 0, 0, 0, 600, -40)
    r = mar["parts"]
    assert (mar["total"], r["mix"], r["price"], r["idle_servers"], r["timing.delivery"],
            r["timing.capex"]) == (1360, 175, 60, 25, 0, 1100)
    for month in (jan, feb, mar):
        assert sum(month["parts"].values()) == month["total"]
        assert "gpu_hours.owned" not in month["as_planned"]


def test_hand_case_in_cents():
    doc = variance(PLAN, actuals())
    jan = doc["months"][0]
    assert jan["parts"] == {"volume": "-60.00", "mix": "-75.00", "price": "0.00",
                            "idle_commitments": "0.00", "idle_servers": "15.00",
                            "timing.capex": "-1000.00", "timing.delivery": "600.00",
                            "other.energy": "-50.00", "other.space": "-30.00",
                            "other.maintenance": "-15.00"}
    ytd = doc["ytd"]
    assert ytd["total"] == "1260.00"
    assert ytd["parts"] == {"volume": "-60.00", "mix": "100.00", "price": "60.00",
                            "idle_commitments": "0.00", "idle_servers": "40.00",
                            "timing.capex": "100.00", "timing.delivery": "1200.00",
                            "other.energy": "-90.00", "other.space": "-60.00",
                            "other.maintenance": "-30.00"}
    assert sum(ytd["parts_cents"].values()) == ytd["total_cents"]


def test_bills_alone_leave_owned_as_planned():
    """Without owned actuals nothing of this module applies: the parts are main's."""
    jan = month_variance(PLAN[0], BILLS[0])
    assert "idle_servers" not in jan["parts"] or jan["parts"]["idle_servers"] == 0
    assert jan["parts"]["mix"] == 880 - 520     # 220 x 4 - 520 x mean 1
    assert "gpu_hours.owned" in jan["as_planned"]


def test_kwh_price_follows_the_plan():
    dear = Fleet("2027-01", 0.1, 0.1, {"server": 2.0})
    assert abs(kwh_price(dear, "2029-01") - 0.121) < 1e-12     # two years of 10 % = 21 %
    assert kwh_price(dear, "2027-01") == 0.1


def test_held_servers_by_hand():
    initial = [{"type": "server", "count": 1, "purchased": "2025-03", "price": 500.0}]
    rows = ROWS[:1] + [OwnedRow("2027-02", "server", 1, sold=1, sale_price=300)] + ROWS[2:]
    # February's sale takes the oldest lot (2025-03); March's lot counts from its delivery
    assert held_servers(rows, initial, until="2027-02") == [
        {"type": "server", "count": 1, "purchased": "2027-01", "price": 1000.0,
         "install_cost": 0.0}]
    assert held_servers(rows, initial) == [
        {"type": "server", "count": 1, "purchased": "2027-01", "price": 1000.0,
         "install_cost": 0.0},
        {"type": "server", "count": 1, "purchased": "2027-03", "price": 1100.0,
         "install_cost": 0.0}]
    late = [OwnedRow("2027-01", "server", 0, purchased=2, purchase_price=900,
                     delivered="2027-04")]
    assert held_servers(late) == []         # paid in January, not yet delivered


def test_fleet_of_a_plan_document():
    doc = {"months": ["2027-01"], "scenario": {
        "owned": {"gpus_per_server": 8, "electricity_price_per_kwh": 0.08},
        "finance": {"power_price_inflation_annual": 0.02},
        "server_types": [{"id": "h100"}, {"id": "b200", "gpus_per_server": 8}],
        "position": {"servers": [{"count": 16, "purchased": "2025-03", "price": 300000,
                                  "install_cost": 30000, "type": "h100"}]}}}
    fleet = fleet_of(doc)
    assert fleet.types == ("h100", "b200") and fleet.kwh_price == 0.08
    assert fleet.held == ({"type": "h100", "count": 16, "purchased": "2025-03",
                           "price": 330000.0},)
    assert fleet_of({"months": ["2027-01"], "scenario": {}}).types == ("server",)


def test_split_undoes_merge():
    """A month stored from bills and owned actuals splits back into the two, so a later upload
    of either replaces its own part only (service/plans/actuals.py)."""
    owned = month_actuals(ROWS, FLEET)
    both = combine(BILLS, owned)
    assert both == actuals()
    for month, bill, mine in zip(both, BILLS, owned):
        assert split(month) == (bill, mine)
    assert split(BILLS[0]) == (BILLS[0], None) and split(owned[0]) == (None, owned[0])


amount = st.floats(0, 1e6, allow_nan=False).map(lambda v: round(v, 2))
gpu_hours = st.one_of(st.just(0.0), st.floats(1, 1e5, allow_nan=False))   # as in test_variance


@st.composite
def owned_cases(draw):
    """A plan row with owned servers (or none) and owned actuals with or without busy time."""
    servers, h = draw(st.integers(0, 20)), draw(st.sampled_from([672.0, 720.0, 744.0]))
    capacity = servers * 8 * h
    row = plan_row("2027-02")
    row.update(servers_online=float(servers), hours=h,
               owned_gpu_hours=draw(st.floats(0, 1, allow_nan=False)) * capacity,
               on_demand_gpu_hours=draw(gpu_hours),
               on_demand=draw(amount), energy=draw(amount), space=draw(amount),
               maintenance=draw(amount), staff=draw(amount), capex=draw(amount))
    online = draw(st.integers(0, 25))
    busy = draw(st.one_of(st.none(), st.floats(0, 1, allow_nan=False).map(
        lambda f: f * online * 8 * h)))
    bill = MonthActuals("2027-02", costs={"on_demand": draw(amount)},
                        gpu_hours={"on_demand": draw(gpu_hours)})
    owned = MonthActuals("2027-02", costs={"energy": draw(amount), "capex": draw(amount)},
                         owned={"gpus_online": online * 8.0, "gpus_per_server": {"s": 8.0},
                                "busy_gpu_hours": busy})
    return row, merge(bill, owned)


@settings(max_examples=200, deadline=None)
@given(owned_cases())
def test_owned_parts_add_up_exactly_and_to_the_cent(case):
    row, actual = case
    exact = month_variance(row, actual)
    assert sum(exact["parts"].values(), Fraction(0)) == exact["total"]
    split_ = owned_split(row, actual.owned["gpus_online"], {"s": 8.0},
                         actual.owned["busy_gpu_hours"])
    # the two parts are the split's hours at their rates; no busy time, no idle part
    assert exact["parts"]["idle_servers"] == split_.idle * split_.cost_share
    if actual.owned["busy_gpu_hours"] is None:
        assert split_.idle == 0
    month = variance([row], [actual])["months"][0]
    assert sum(month["parts_cents"].values()) == month["total_cents"]


def test_server_events_for_the_replan():
    """The late lot is bought in its month delivered, at its price; a sale in its month."""
    rows = ROWS + [OwnedRow("2027-03", "h100", 0, sold=1, sale_price=50)]
    assert server_events(rows) == [
        {"month": "2027-01", "action": "buy", "count": 1, "type": None, "price": 1000.0,
         "install": 0.0},
        {"month": "2027-03", "action": "buy", "count": 1, "type": None, "price": 1100.0,
         "install": 0.0},
        {"month": "2027-03", "action": "sell", "count": 1, "type": "h100"}]
