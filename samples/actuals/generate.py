"""Six months of FOCUS 1.3 bills against the demo plan (issue 43), fixed seed.

    python samples/actuals/generate.py [PLAN.json]

PLAN.json is the demo scenario's plan document (``buyrent plan samples/usage_hourly.csv
--scenario samples/scenario_h100.json --json``); without it the plan is computed. The bills are
set against its ``cloud_only`` strategy (commitments, spot and on demand), 2027-01 to 2027-06,
one file a month, one row per source a month (p5.48xlarge instance-hours, 8 GPUs each) and a
storage row that is not GPU usage. The story, which tests/io/test_variance_samples.py checks
against ``buyrent variance``:

- volume: 5 to 10 % more work than planned each month (seeded), so ``volume`` > 0;
- mix: a quarter of the committed work and 5 % of the spot work move to on demand, the
  dearest source, so ``mix`` > 0;
- idle commitment: the commitment is paid in full, so the committed hours not used are idle
  (FOCUS CommitmentDiscountStatus Unused rows), more than the plan's own: ``idle_commitments``
  > 0;
- price change: from 2027-04 on demand costs 12 % more per GPU-hour than planned (before it,
  the plan's rate), so ``price`` > 0 from April and about 0 before.
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
STRATEGY = "cloud_only"
MONTHS = ("2027-01", "2027-02", "2027-03", "2027-04", "2027-05", "2027-06")
PRICE_CHANGE = "2027-04"
GPUS = 8          # p5.48xlarge


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


def bills(doc: dict) -> dict[str, list[dict]]:
    rng = np.random.default_rng(SEED)
    rows = {r["month"]: r for r in doc["strategies"][STRATEGY]["monthly"]}
    out = {}
    for month in MONTHS:
        p = rows[month]
        start = pd.Timestamp(month + "-01", tz="UTC")
        end = start + pd.offsets.MonthBegin(1)
        q = {s: p[f"{s}_gpu_hours"] for s in ("on_demand", "spot", "committed")}
        work = sum(q.values()) * (1.05 + 0.05 * rng.random())
        used = 0.75 * q["committed"]
        spot = 0.95 * q["spot"]
        od = work - used - spot
        capacity = p["committed_gpus"] * p["hours"]
        rate_c = p["commitment"] / capacity
        rate_od = p["on_demand"] / q["on_demand"] * (1.12 if month >= PRICE_CHANGE else 1.0)
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
        ]
    return out


def write(doc: dict, folder: Path = HERE) -> list[Path]:
    """One FOCUS 1.3 CSV a month in ``folder``; their paths."""
    paths = []
    for month, rows in bills(doc).items():
        paths.append(folder / f"focus_1.3_{month}.csv")
        pd.DataFrame(rows, columns=FOCUS_1_3).to_csv(paths[-1], index=False,
                                                     lineterminator="\n")
    return paths


def main(argv: list[str]) -> None:
    write(plan_document(argv[0] if argv else None))


if __name__ == "__main__":
    main(sys.argv[1:])
