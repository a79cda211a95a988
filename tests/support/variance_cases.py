"""The hand-checked variance case (2 months, 3 sources) that tests/engine/test_variance.py
explains in its docstring and tests/engine/test_forecast.py extends; pure engine data."""
from __future__ import annotations

from models.lines import COST_LINES, CREDIT_LINES
from models.variance import MonthActuals


def plan_row(month, od=(0.0, 0.0), spot=(0.0, 0.0), committed=(0.0, 0.0, 0.0, 0.0), **lines):
    """od, spot: (GPU-hours, cost); committed: (GPU-hours used, GPUs, hours, cost)."""
    row = {n: 0.0 for n in COST_LINES + CREDIT_LINES}
    row.update(month=month, on_demand_gpu_hours=od[0], on_demand=od[1], spot_gpu_hours=spot[0],
               spot=spot[1], committed_gpu_hours=committed[0], committed_gpus=committed[1],
               hours=committed[2], commitment=committed[3], owned_gpu_hours=0.0)
    row.update(lines)
    row["total_cost"] = (sum(row[n] for n in COST_LINES) - sum(row[n] for n in CREDIT_LINES))
    return row


PLAN = [plan_row("2027-01", od=(100, 400), spot=(200, 300), committed=(400, 1, 500, 1000),
                 storage=50),
        plan_row("2027-02", od=(50, 200), committed=(400, 1, 400, 800))]
ACTUALS = [
    MonthActuals("2027-01", costs={"on_demand": 660, "spot": 270, "commitment": 1000,
                                   "storage": 60},
                 gpu_hours={"on_demand": 150, "spot": 180, "committed": 350, "owned": 0},
                 idle_commitment_cost=300),
    MonthActuals("2027-02", costs={"on_demand": 160, "spot": 120, "commitment": 800},
                 gpu_hours={"on_demand": 40, "spot": 60, "committed": 380, "owned": 0},
                 idle_commitment_cost=40)]
