"""Small plans of issue 43's FOCUS export and FX part, shared by the engine, io and web tests
(tests/engine/test_owned_focus.py, test_variance_fx.py; tests/io/test_focus_export.py,
test_variance_fx_cli.py; tests/web/test_focus_owned.py, test_actuals_fx.py)."""
from __future__ import annotations

from tests.support.paths import SAMPLES

# Owned fleet, one type of 8 GPUs: owned cost 10,500 + 1,000 - 3,000 = 8,500 over 1,500 GPU-h
# (the tax shield is not an owned cost), 17/3 per GPU-hour (tests/engine/test_owned_focus.py).
OWNED_PLAN = [
    {"month": "2027-01", "capex": 10_000.0, "energy": 500.0, "owned_gpu_hours": 1000.0,
     "servers_online": 2.0},
    {"month": "2027-02", "energy": 400.0, "staff": 600.0, "owned_gpu_hours": 500.0,
     "servers_online": 2.0, "on_demand": 77.0},
    {"month": "2027-03", "resale_credit": 3000.0, "tax_shield": 999.0, "owned_gpu_hours": 0.0,
     "servers_online": 0.0},
]

# A plan in KRW whose cloud prices are in USD, 1,000 KRW per USD in 2027-01, +44 % a year (1,200
# in 2027-07), and its two months of on-demand work (tests/engine/test_variance_fx.py).
KRW = {"reporting": "KRW", "owned": "KRW", "cloud": "USD",
       "fx": {"foreign": "USD", "rate": 1000.0, "trend_annual": 0.44, "as_of": None}}
FX_PLAN = [{"month": "2027-01", "hours": 744.0, "on_demand_gpu_hours": 100.0,
            "on_demand": 400_000.0},
           {"month": "2027-07", "hours": 744.0, "on_demand_gpu_hours": 100.0,
            "on_demand": 480_000.0}]

# the sample bills of the demo plan's cloud_only strategy, and the seeded revision
BILLS = sorted((SAMPLES / "actuals").glob("focus_1.3_2027-0*.csv"))
R1 = "/scenarios/1/revisions/1"
