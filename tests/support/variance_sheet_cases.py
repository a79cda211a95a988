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
"""
from __future__ import annotations

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
