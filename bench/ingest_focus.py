"""Ingest benchmark: a 1,000,000-row FOCUS 1.2 CSV through ``load_usage`` (target <= 3 s).

    python bench/ingest_focus.py [rows]

The file is generated in a temporary directory (fixed seed): all 57 FOCUS 1.2 columns, about
680 bytes a row (a unique ResourceId and JSON Tags and SkuPriceDetails on every row), one
month of hourly charges: 10 % GPU instance rows (on demand, committed with a commitment id,
spot, a quarter priced in EUR) and the rest storage, network and CPU rows. Prints the best of
three runs of ``load_usage`` (the CLI path: read the file, then every check of an upload, with
the row and byte limits raised for the size), its CPU time, the bare pyarrow read of the same
columns for comparison, and the load average of the machine.
"""
from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "samples"))
from generate_focus import FOCUS_1_2  # noqa: E402  (the spec's 1.2 column list)

from service.ingest import Limits, arrowcsv, focus, load_usage  # noqa: E402

RUNS = 3
TAGS = '"{""user:team"": ""vision"", ""env"": ""prod""}"'
TARGET_S = 3.0
KINDS = [  # (share, ChargeDescription, SkuPriceDetails instance, unit, pricing, GPUs per unit)
    (0.05, "$55.04 per On Demand Linux p5.48xlarge Instance Hour", "p5.48xlarge", "Hours",
     "Standard", 8),
    (0.03, "Savings Plan covered usage: p4d.24xlarge", "p4d.24xlarge", "Hours", "Committed", 8),
    (0.02, "$1.20 per Spot Linux g6e.xlarge Instance Hour", "g6e.xlarge", "Hours", "Dynamic", 1),
    (0.50, "$0.023 per GB-month of storage used", "", "GB-Mo", "Standard", 0),
    (0.25, "$0.09 per GB - data transfer out", "", "GB", "Standard", 0),
    (0.15, "$0.192 per On Demand Linux m5.xlarge Instance Hour", "m5.xlarge", "Hours",
     "Standard", 0)]


def generate(path: Path, rows: int, seed: int = 12) -> float:
    """Write the file; return the GPU-hours it holds."""
    rng = np.random.default_rng(seed)
    kind = rng.choice(len(KINDS), rows, p=[k[0] for k in KINDS])
    hour = rng.integers(0, 720, rows)
    quantity = np.round(rng.uniform(0.1, 4.0, rows), 6)
    cost = np.round(rng.uniform(0.0, 60.0, rows), 10)
    eur = rng.random(rows) < 0.25
    starts = (np.datetime64("2026-06-01T00", "h") + np.arange(721)).astype(str)
    index = {c: i for i, c in enumerate(FOCUS_1_2)}
    template = ["" for _ in FOCUS_1_2]
    fixed = dict(AvailabilityZone="use1-az1", BillingAccountId="123456789012",
                 BillingAccountName="acme", BillingAccountType="Billing Account",
                 BillingCurrency="USD", BillingPeriodStart="2026-06-01T00:00:00Z",
                 BillingPeriodEnd="2026-07-01T00:00:00Z", ChargeCategory="Usage",
                 ChargeFrequency="Usage-Based", InvoiceId="INV-2026-06",
                 InvoiceIssuerName="\"Amazon Web Services, Inc.\"", ProviderName="AWS",
                 PublisherName="\"Amazon Web Services, Inc.\"", RegionId="us-east-1",
                 RegionName="US East (N. Virginia)", ServiceCategory="Compute",
                 ServiceName="Amazon Elastic Compute Cloud", ServiceSubcategory="Virtual Machines",
                 SubAccountId="210987654321", SubAccountName="ml-prod", SubAccountType="Account")
    for key, value in fixed.items():
        template[index[key]] = value
    variable = ["ChargePeriodStart", "ChargePeriodEnd", "ChargeDescription", "ConsumedQuantity",
                "ConsumedUnit", "PricingCategory", "CommitmentDiscountId",
                "CommitmentDiscountStatus", "EffectiveCost", "BilledCost", "PricingCurrency",
                "PricingCurrencyEffectiveCost", "ResourceId", "SkuPriceDetails", "Tags"]
    for key in variable:
        template[index[key]] = "{" + key + "}"
    line = ",".join(template) + "\n"
    gpu_hours = 0.0
    with open(path, "w", encoding="utf-8") as out:
        out.write(",".join(FOCUS_1_2) + "\n")
        for i in range(rows):
            k = KINDS[kind[i]]
            committed = k[4] == "Committed"
            currency, priced = ("EUR", cost[i] * 0.92) if eur[i] else ("USD", cost[i])
            details = f'"{{""InstanceType"": ""{k[2]}""}}"' if k[2] else ""
            out.write(line.format(
                ChargePeriodStart=f"{starts[hour[i]]}:00:00Z",
                ChargePeriodEnd=f"{starts[hour[i] + 1]}:00:00Z", ChargeDescription=k[1],
                ConsumedQuantity=quantity[i], ConsumedUnit=k[3], PricingCategory=k[4],
                CommitmentDiscountId="arn:aws:savingsplans::1:savingsplan/sp-1" if committed
                else "", CommitmentDiscountStatus="Used" if committed else "",
                EffectiveCost=cost[i], BilledCost=cost[i], PricingCurrency=currency,
                PricingCurrencyEffectiveCost=round(priced, 10),
                ResourceId=f"arn:aws:ec2:us-east-1:123456789012:instance/i-{i:017x}",
                SkuPriceDetails=details, Tags=TAGS))
            gpu_hours += quantity[i] * k[5]
    return gpu_hours


def bare_arrow(path: Path) -> None:
    data = path.read_bytes()
    header = data[:data.index(b"\n")].decode().split(",")
    arrowcsv.read_columns(data, header, ",", path.name, LIMITS, focus.wanted, focus.NUMERIC)


LIMITS = Limits(max_bytes=2_000_000_000, max_rows=2_000_000)


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "focus_1.2.csv"
        t0 = time.perf_counter()
        expected = generate(path, rows)
        print(f"generated {rows:,} rows, {path.stat().st_size / 1e6:,.0f} MB in "
              f"{time.perf_counter() - t0:.1f} s")
        walls, cpus, bare = [], [], []
        for _ in range(RUNS):
            for fn, wall_out in ((lambda: bare_arrow(path), bare), (None, walls)):
                c0 = resource.getrusage(resource.RUSAGE_SELF)
                w0 = time.perf_counter()
                result = fn() if fn else load_usage(path, LIMITS)
                wall_out.append(time.perf_counter() - w0)
                c1 = resource.getrusage(resource.RUSAGE_SELF)
                if fn is None:
                    cpus.append(c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime)
                    assert abs(result.summary["gpu_hours"] - expected) < 1e-6 * expected
        best = int(np.argmin(walls))
        print(f"load_usage: best {walls[best]:.2f} s (runs {', '.join(f'{w:.2f}' for w in walls)}"
              f"), CPU {cpus[best]:.2f} s; target <= {TARGET_S:.0f} s: "
              f"{'met' if walls[best] <= TARGET_S else 'NOT met'}")
        print(f"the column read alone (arrowcsv.read_columns: pyarrow, no checks): best "
              f"{min(bare):.2f} s")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on "
              f"{os.cpu_count()} cores")


if __name__ == "__main__":
    main()
