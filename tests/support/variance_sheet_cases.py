"""Cases of the Variance sheet (service/xlsx/variance_sheet.py) beside the hand-checked one of
tests/support/variance_cases.py: every branch of the engine's formulas in four months over a
year's end (pure engine data).

- 2027-11: spot cost planned without GPU-hours (other.spot), spot work bought though none was
  planned (its rate is the rate paid), a commitment with no GPU-hours used (the plan's idle is
  the whole line) not given by the actuals (as planned), a server purchase planned and not
  made (timing.capex), a resale credit smaller than planned (timing.resale_credit, a credit).
- 2027-12: no planned work at all (Q = 0: volume 0, all of the work at plan rates is mix).
- 2028-01: the late purchase made, more committed GPU-hours used than the capacity planned, a
  smaller tax shield (other.tax_shield).
- 2028-02: on demand given as a rate and GPU-hours (cost = rate x GPU-hours), the rest as
  planned. The year to date is 2028-01 to 2028-02.

And a case of the owned fleet's actuals with an FX part (OWNED_PLAN, owned_actuals()), below.
"""
from __future__ import annotations

from models.lines import COST_LINES, CREDIT_LINES
from models.owned_actuals import Fleet, OwnedRow, merge, month_actuals
from models.variance import MonthActuals
from tests.support.variance_cases import plan_row

EDGE_PLAN = [
    plan_row("2027-11", od=(100, 400), spot=(0, 50), committed=(0, 2, 720, 1440),
             capex=1000, resale_credit=200),
    plan_row("2027-12", storage=10),
    plan_row("2028-01", od=(50, 250), committed=(300, 1, 300, 600), tax_shield=30),
    plan_row("2028-02", od=(30, 150), committed=(250, 1, 300, 600)),
]
EDGE_ACTUALS = [
    MonthActuals("2027-11", costs={"on_demand": 500, "spot": 45, "capex": 0,
                                   "resale_credit": 150},
                 gpu_hours={"on_demand": 120, "spot": 30}),
    MonthActuals("2027-12", costs={"on_demand": 40, "storage": 12},
                 gpu_hours={"on_demand": 10}),
    MonthActuals("2028-01", costs={"on_demand": 210, "commitment": 600, "capex": 1000,
                                   "tax_shield": 25},
                 gpu_hours={"on_demand": 40, "committed": 320}, idle_commitment_cost=0),
    MonthActuals("2028-02", gpu_hours={"on_demand": 33.3}, rates={"on_demand": 5.5}),
]


# The owned fleet and FX case (tests/system/test_variance_sheet_recalc.py explains it): the
# hand case of tests/engine/test_owned_variance.py, its three months with an fx part added in
# January and March, then April with bills only (no owned actuals: no owned parts) and May
# with no owned capacity planned and one server online early (C = 0: L = -a_o).
OWNED_FLEET = Fleet(first_month="2027-01", kwh_price=0.1, power_inflation=0.0,
                    gpus_per_server={"server": 2.0})


def owned_plan_row(month, capex=0.0, servers=2.0, owned_hours=300.0):
    row = {n: 0.0 for n in COST_LINES + CREDIT_LINES}
    row.update(month=month, hours=100.0, servers_online=servers, owned_gpu_hours=owned_hours,
               on_demand_gpu_hours=100.0, on_demand=400.0, spot_gpu_hours=0.0,
               committed_gpu_hours=0.0, committed_gpus=0.0, energy=100.0, space=60.0,
               maintenance=30.0, staff=10.0, capex=capex)
    return row


OWNED_PLAN = [owned_plan_row("2027-01", capex=2000.0), owned_plan_row("2027-02"),
              owned_plan_row("2027-03"), owned_plan_row("2027-04"),
              owned_plan_row("2027-05", servers=0.0, owned_hours=0.0)]
OWNED_ROWS = [
    OwnedRow("2027-01", "server", 1, busy_gpu_hours=120, energy_kwh=500, space=30, staff=10,
             maintenance=15, purchased=1, purchase_price=1000, delivered="2027-01"),
    OwnedRow("2027-02", "server", 1, energy_cost=60, space=30, staff=10, maintenance=15),
    OwnedRow("2027-03", "server", 2, busy_gpu_hours=250, energy_kwh=1000, space=60, staff=10,
             maintenance=30, purchased=1, purchase_price=1100, delivered="2027-03"),
    OwnedRow("2027-05", "server", 1, busy_gpu_hours=80),
]
OWNED_BILLS = [
    MonthActuals("2027-01", costs={"on_demand": 880.0}, gpu_hours={"on_demand": 220.0},
                 fx_cost=12.5),
    MonthActuals("2027-02", costs={"on_demand": 1000.0}, gpu_hours={"on_demand": 250.0}),
    MonthActuals("2027-03", costs={"on_demand": 660.0}, gpu_hours={"on_demand": 150.0},
                 fx_cost=-7.25),
    MonthActuals("2027-04", costs={"on_demand": 400.0}, gpu_hours={"on_demand": 100.0},
                 fx_cost=3.0),
    MonthActuals("2027-05", costs={"on_demand": 80.0}, gpu_hours={"on_demand": 20.0}),
]


def owned_actuals() -> list[MonthActuals]:
    """The bills with the owned fleet's actuals of their month (models.owned_actuals.merge)."""
    owned = {a.month: a for a in month_actuals(OWNED_ROWS, OWNED_FLEET)}
    return [merge(b, owned.get(b.month)) for b in OWNED_BILLS]
