"""Six months of FOCUS 1.3 bills and of the owned fleet's actuals against the demo plan (issue
43), fixed seed.

    python samples/actuals/generate.py [PLAN.json]

PLAN.json is the demo scenario's plan document (``buyrent plan samples/usage_hourly.csv
--scenario samples/scenario_h100.json --json``); without it the plan is computed. The actuals
are set against its ``proposed`` strategy (8 owned servers, 16 GPUs of 1-year commitment, spot
and on demand), 2027-01 to 2027-06: one bill a month, one row per source a month (p5.48xlarge
instance-hours, 8 GPUs each), a storage row and an egress row that are not GPU usage; and one
owned actuals CSV
(``owned_2027-01_2027-06.csv``, service/owned_actuals.py). The story, which
tests/io/test_variance_cli.py checks against ``buyrent variance``:

- volume: 5 to 10 % more work than planned each month (seeded), so ``volume`` > 0;
- mix: a quarter of the committed work and 5 % of the spot work move to on demand, the
  dearest source, so ``mix`` > 0;
- idle commitment: the commitment is paid in full, so the committed hours not used are idle
  (FOCUS CommitmentDiscountStatus Unused rows), more than the plan's own: ``idle_commitments``
  > 0;
- price change: from 2027-04 on demand costs 12 % more per GPU-hour than planned (before it,
  the plan's rate), so ``price`` > 0 from April and about 0 before;
- data sent out: from 2027-03 a partner's copy of the training data makes egress half again
  the plan's (``other.egress`` > 0 from March, about 0 before); storage is billed as planned
  (``other.storage`` within a cent of 0);
- late delivery: 2 of the 8 servers arrive in March, paid on delivery (``timing.capex`` < 0 in
  January, > 0 in March); the work they would have done is bought on demand
  (``timing.delivery`` > 0 in January and February);
- idle servers: the servers online do 80 to 90 % (seeded) of the work the plan gives them at
  its utilisation, the rest on demand (``idle_servers`` > 0); their energy is the plan's model
  (idle power per server online, busy power per GPU-hour) and their space, staff and
  maintenance the plan's per server online.

The bills' baseline was ``cloud_only`` until the owned actuals came (a strategy that owns no
servers has nothing to be late or idle).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from generate_focus import FOCUS_1_3, iso  # noqa: E402  (samples/ is not a package)

SEED = 43
STRATEGY = "proposed"
MONTHS = ("2027-01", "2027-02", "2027-03", "2027-04", "2027-05", "2027-06")
PRICE_CHANGE = "2027-04"
GPUS = 8          # p5.48xlarge
LATE = 2          # servers delivered in DELIVERED instead of the plan's first month
DELIVERED = "2027-03"
OWNED_FILE = "owned_2027-01_2027-06.csv"
EGRESS_FROM = "2027-03"     # egress half again the plan's from this month
EGRESS_GROWTH = 1.5


def plan_document(path: str | None) -> dict:
    if path:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    root = HERE.parent.parent
    out = subprocess.run([sys.executable, "-m", "service.cli.main", "plan",
                          str(root / "samples/usage_hourly.csv"), "--scenario",
                          str(root / "samples/scenario_h100.json"), "--json"],
                         cwd=root, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def row(start: pd.Timestamp, end: pd.Timestamp, gpu_hours: float, cost: float,
        pricing: str, **extra) -> dict:
    hours = gpu_hours / GPUS
    base = {c: "" for c in FOCUS_1_3}
    base.update({
        "BillingAccountId": "111122223333", "BillingAccountName": "acme", "BillingCurrency": "USD",
        "BillingPeriodStart": iso(start), "BillingPeriodEnd": iso(end),
        "ChargePeriodStart": iso(start), "ChargePeriodEnd": iso(end), "ChargeCategory": "Usage",
        "ChargeFrequency": "Usage-Based", "ChargeDescription": "p5.48xlarge instance hours",
        "ConsumedQuantity": f"{hours:.6f}", "ConsumedUnit": "Hours",
        "PricingQuantity": f"{hours:.6f}", "PricingUnit": "Hours", "PricingCategory": pricing,
        "BilledCost": f"{cost:.2f}", "EffectiveCost": f"{cost:.2f}", "ListCost": f"{cost:.2f}",
        "ContractedCost": f"{cost:.2f}", "PricingCurrency": "USD",
        "PricingCurrencyEffectiveCost": f"{cost:.2f}", "ProviderName": "AWS",
        "ServiceProviderName": "AWS", "HostProviderName": "AWS", "PublisherName": "AWS",
        "InvoiceIssuerName": "AWS", "RegionId": "us-east-1", "RegionName": "US East (N. Virginia)",
        "ResourceType": "p5.48xlarge", "ServiceCategory": "Compute",
        "ServiceName": "Amazon Elastic Compute Cloud", "SkuId": "p5.48xlarge",
        "SubAccountId": "111122223333", "SubAccountName": "ml"})
    base.update(extra)
    return base


def storage_row(start: pd.Timestamp, end: pd.Timestamp, cost: float) -> dict:
    r = row(start, end, 0.0, cost, "Standard")
    r.update({"ChargeDescription": "S3 Standard storage", "ConsumedQuantity": "200000",
              "ConsumedUnit": "GB-Month", "PricingQuantity": "200000", "PricingUnit": "GB-Month",
              "ResourceType": "", "SkuId": "S3-Standard", "ServiceCategory": "Storage",
              "ServiceName": "Amazon Simple Storage Service"})
    return r


def egress_row(start: pd.Timestamp, end: pd.Timestamp, cost: float) -> dict:
    r = row(start, end, 0.0, cost, "Standard")
    r.update({"ChargeDescription": "Data Transfer Out to the internet", "ConsumedQuantity":
              f"{cost / 0.09:.3f}", "ConsumedUnit": "GB", "PricingQuantity": f"{cost / 0.09:.3f}",
              "PricingUnit": "GB", "ResourceType": "", "SkuId": "DataTransfer-Out-Bytes",
              "ServiceCategory": "Networking", "ServiceName": "AWS Data Transfer"})
    return r


def owned_month(p: dict, month: str, busy_share: float) -> tuple[float, float]:
    """Servers online and their busy GPU-hours in a month of the story."""
    online = p["servers_online"] - (LATE if month < DELIVERED else 0)
    planned = p["owned_gpu_hours"] * online / p["servers_online"]
    return online, planned * busy_share


def story(doc: dict) -> tuple[dict[str, list[dict]], list[dict]]:
    """The bills by month and the owned actuals' rows."""
    rng = np.random.default_rng(SEED)
    rows = {r["month"]: r for r in doc["strategies"][STRATEGY]["monthly"]}
    owned_section = doc["scenario"]["owned"]
    out, owned = {}, []
    last_od_rate = None
    for month in MONTHS:
        p = rows[month]
        start = pd.Timestamp(month + "-01", tz="UTC")
        end = start + pd.offsets.MonthBegin(1)
        q = {s: p[f"{s}_gpu_hours"] for s in ("on_demand", "spot", "committed", "owned")}
        work = sum(q.values()) * (1.05 + 0.05 * rng.random())
        online, busy = owned_month(p, month, 0.8 + 0.1 * rng.random())
        used = 0.75 * q["committed"]
        spot = 0.95 * q["spot"]
        od = work - used - spot - busy
        capacity = p["committed_gpus"] * p["hours"]
        rate_c = p["commitment"] / capacity
        if q["on_demand"] > 0:     # a month the plan buys no on demand: the last month's rate
            last_od_rate = p["on_demand"] / q["on_demand"]
        rate_od = last_od_rate * (1.12 if month >= PRICE_CHANGE else 1.0)
        rate_spot = p["spot"] / q["spot"] if q["spot"] > 0 else 0.0   # February plans none
        commitment = {"CommitmentDiscountId": "arn:aws:savingsplans::111122223333:p5-1y",
                      "CommitmentDiscountName": "p5 1-year", "CommitmentDiscountType":
                      "Savings Plan", "CommitmentDiscountCategory": "Spend"}
        out[month] = [row(start, end, od, od * rate_od, "Standard")] + ([
            row(start, end, spot, spot * rate_spot, "Dynamic")] if spot > 0 else []) + [
            row(start, end, used, used * rate_c, "Committed", CommitmentDiscountStatus="Used",
                **commitment),
            row(start, end, capacity - used, (capacity - used) * rate_c, "Committed",
                CommitmentDiscountStatus="Unused", **commitment),
            storage_row(start, end, p["storage"]),
            egress_row(start, end, p["egress"] * (EGRESS_GROWTH if month >= EGRESS_FROM
                                                  else 1.0)),
        ]
        owned.append(owned_row(p, owned_section, month, online, busy))
    return out, owned


def owned_row(p: dict, o: dict, month: str, online: float, busy: float) -> dict:
    """One month of the owned actuals CSV: energy in kWh by the plan's power model, space,
    staff and maintenance at the plan's cost per server online, the late servers' purchase."""
    kwh = (online * o["power_kw_idle"] * p["hours"]
           + busy * (o["power_kw_max"] - o["power_kw_idle"]) / o["gpus_per_server"]) * o["pue"]
    per = {n: p[n] / p["servers_online"] for n in ("space", "staff", "maintenance")}
    each = o["server_price"] + o["install_cost_per_server"]
    bought = {MONTHS[0]: p["servers_online"] - LATE, DELIVERED: LATE}.get(month, 0)
    return {"month": month, "server_type": "", "servers_online": f"{online:g}",
            "busy_gpu_hours": f"{busy:.1f}", "energy_kwh": f"{kwh:.1f}", "energy_cost": "",
            **{n: f"{online * v:.2f}" for n, v in per.items()},
            "purchased": f"{bought:g}" if bought else "",
            "purchase_price": f"{each:.2f}" if bought else "",
            "delivered": month if bought else "", "sold": "", "sale_price": ""}


def bills(doc: dict) -> dict[str, list[dict]]:
    return story(doc)[0]


def write(doc: dict, folder: Path = HERE) -> list[Path]:
    """One FOCUS 1.3 CSV a month and the owned actuals CSV in ``folder``; their paths (the
    bills first)."""
    paths = []
    monthly, owned = story(doc)
    for month, rows in monthly.items():
        paths.append(folder / f"focus_1.3_{month}.csv")
        pd.DataFrame(rows, columns=FOCUS_1_3).to_csv(paths[-1], index=False,
                                                     lineterminator="\n")
    paths.append(folder / OWNED_FILE)
    pd.DataFrame(owned, columns=list(owned[0])).to_csv(paths[-1], index=False,
                                                       lineterminator="\n")
    return paths


def main(argv: list[str]) -> None:
    write(plan_document(argv[0] if argv else None))


if __name__ == "__main__":
    main(sys.argv[1:])
