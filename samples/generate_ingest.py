"""Generate the ingest samples: real-export layouts and a finance-style workbook (fixed seed).

    python samples/generate_ingest.py

focus_sample.csv        FOCUS 1.0 export as AWS writes it (the spec's columns plus x_ columns):
                        two days, hourly: a p5.48xlarge on demand, a p4d.24xlarge under a Savings
                        Plan, g6e.12xlarge on spot, plus non-GPU rows (m5 instance, S3, transfer,
                        tax with NULLs) that ingest counts and skips. Tags are JSON.
aws_cur_sample.csv      the same kind of usage as a legacy Cost and Usage Report (hourly lines).
slurm_sacct_sample.txt  sacct --parsable2 --format=JobID,Start,End,AllocTRES,Partition,Account
                        for a week of a small GPU cluster: jobs, their .batch/.extern/.0 steps,
                        CPU-only jobs, a pending and a running job.
usage_sample.xlsx       a finance workbook: sheet "usage" with date cells and headers as people
                        type them (Date, GPU Hours, Workload, Team), and a "notes" sheet.
"""
from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import numpy as np
import pandas as pd
import xlsxwriter

from generate_focus import FOCUS_1_0  # run as a script: samples/ is on the path

HERE = Path(__file__).resolve().parent
SEED = 20261130

# FOCUS 1.0 columns (the specification's list, kept once in generate_focus.py) and AWS's x_ ones
FOCUS_COLUMNS = FOCUS_1_0 + ["x_CostCategories", "x_Operation", "x_ServiceCode", "x_UsageType"]


def iso(t: pd.Timestamp) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def focus_rows(rng: np.random.Generator) -> list[dict]:
    hours = pd.date_range("2026-03-01", periods=48, freq="h")
    base = {c: "NULL" for c in FOCUS_COLUMNS}
    base.update(BillingAccountId="123456789012", BillingAccountName="acme-payer",
                BillingCurrency="USD", BillingPeriodStart="2026-03-01T00:00:00Z",
                BillingPeriodEnd="2026-04-01T00:00:00Z", InvoiceIssuerName="Amazon Web Services, Inc.",
                ProviderName="AWS", PublisherName="Amazon Web Services, Inc.",
                RegionId="us-east-1", RegionName="US East (N. Virginia)",
                SubAccountId="210987654321", SubAccountName="ml-platform", ChargeClass="",
                x_CostCategories="{}")
    rows = []

    def add(t, **values):
        row = dict(base, ChargePeriodStart=iso(t), ChargePeriodEnd=iso(t + pd.Timedelta("1h")),
                   ChargeFrequency="Usage-Based", ChargeCategory="Usage")
        row.update(values)
        rows.append(row)

    for t in hours:
        # one p5.48xlarge on demand, all day (training, team ml-research)
        add(t, AvailabilityZone="use1-az4", ServiceCategory="Compute",
            ServiceName="Amazon Elastic Compute Cloud", x_ServiceCode="AmazonEC2",
            ResourceType="Instance", ResourceId="i-0a1b2c3d4e5f60001",
            ChargeDescription="$55.04 per On Demand Linux p5.48xlarge Instance Hour",
            SkuId="8QK7M4ZPRV3YDJ2F", SkuPriceId="8QK7M4ZPRV3YDJ2F.JRTCKXETXF.6YS6EN2CT7",
            PricingCategory="Standard", ConsumedQuantity="1", ConsumedUnit="Hrs",
            PricingQuantity="1", PricingUnit="Hrs", ListUnitPrice="55.04", ListCost="55.04",
            ContractedUnitPrice="55.04", ContractedCost="55.04", BilledCost="55.04",
            EffectiveCost="55.04", x_UsageType="USE1-BoxUsage:p5.48xlarge",
            x_Operation="RunInstances", Tags=json.dumps({"user:team": "ml-research",
                                                         "user:env": "prod"}))
        # two p4d.24xlarge covered by a Savings Plan (serving)
        add(t, AvailabilityZone="use1-az6", ServiceCategory="Compute",
            ServiceName="Amazon Elastic Compute Cloud", x_ServiceCode="AmazonEC2",
            ResourceType="Instance", ResourceId="i-0a1b2c3d4e5f60002",
            ChargeDescription="Savings Plan covered usage: p4d.24xlarge Linux Instance Hour",
            SkuId="CX3FZ8V7ZJ9K2M1Q", PricingCategory="Committed",
            CommitmentDiscountCategory="Spend", CommitmentDiscountType="Compute Savings Plan",
            CommitmentDiscountStatus="Used",
            CommitmentDiscountId="arn:aws:savingsplans::123456789012:savingsplan/5e2c-0001",
            ConsumedQuantity="2", ConsumedUnit="Hrs", PricingQuantity="2", PricingUnit="Hrs",
            ListUnitPrice="32.77", ListCost="65.54", BilledCost="0", EffectiveCost="41.94",
            x_UsageType="USE1-BoxUsage:p4d.24xlarge", x_Operation="RunInstances",
            Tags=json.dumps({"user:team": "serving"}))
        # g6e.12xlarge spot, a few during the day (batch inference, no team tag)
        if 8 <= t.hour < 20:
            count = int(rng.integers(1, 4))
            add(t, AvailabilityZone="use1-az1", ServiceCategory="Compute",
                ServiceName="Amazon Elastic Compute Cloud", x_ServiceCode="AmazonEC2",
                ResourceType="Instance", ResourceId=f"i-0spot{t.hour:02d}",
                ChargeDescription="$4.12 per Spot Linux g6e.12xlarge Instance Hour",
                SkuId="ZP4YV9Q2HB7N3K5T", PricingCategory="Dynamic",
                ConsumedQuantity=str(count), ConsumedUnit="Hrs", PricingQuantity=str(count),
                PricingUnit="Hrs", BilledCost=f"{4.12 * count:.2f}",
                EffectiveCost=f"{4.12 * count:.2f}", x_UsageType="USE1-SpotUsage:g6e.12xlarge",
                x_Operation="RunInstances:SV001", Tags="{}")
        # a CPU instance and S3: not GPU usage
        add(t, ServiceCategory="Compute", ServiceName="Amazon Elastic Compute Cloud",
            x_ServiceCode="AmazonEC2", ResourceType="Instance", ResourceId="i-0cpu0001",
            ChargeDescription="$0.192 per On Demand Linux m5.xlarge Instance Hour",
            SkuId="XKDF8H2M5A9QWE3R", PricingCategory="Standard", ConsumedQuantity="3",
            ConsumedUnit="Hrs", BilledCost="0.576", EffectiveCost="0.576",
            x_UsageType="USE1-BoxUsage:m5.xlarge", Tags=json.dumps({"user:team": "web"}))
        add(t, ServiceCategory="Storage", ServiceName="Amazon Simple Storage Service",
            x_ServiceCode="AmazonS3", ResourceType="Bucket", ResourceId="acme-checkpoints",
            ChargeDescription="$0.023 per GB - first 50 TB / month of storage used",
            SkuId="WP9ANXZGBYYSGJEA", PricingCategory="Standard", ConsumedQuantity="2400.5",
            ConsumedUnit="GB-Mo", BilledCost="0.0766", EffectiveCost="0.0766",
            x_UsageType="TimedStorage-ByteHrs", Tags=json.dumps({"user:team": "ml-research"}))
    tax = dict(base, ChargeCategory="Tax", ChargeDescription="Tax for billing period",
               ChargePeriodStart="2026-03-01T00:00:00Z", ChargePeriodEnd="2026-04-01T00:00:00Z",
               ChargeFrequency="One-Time", BilledCost="412.18", EffectiveCost="412.18",
               ServiceName="Tax", ConsumedQuantity="NULL", ConsumedUnit="NULL", Tags="NULL")
    rows.append(tax)
    return rows


def write_focus(rng) -> None:
    with open(HERE / "focus_sample.csv", "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, FOCUS_COLUMNS, quoting=csv.QUOTE_MINIMAL)
        writer.writeheader()
        writer.writerows(focus_rows(rng))


CUR_COLUMNS = [
    "identity/LineItemId", "identity/TimeInterval", "bill/PayerAccountId",
    "bill/BillingPeriodStartDate", "lineItem/UsageAccountId", "lineItem/LineItemType",
    "lineItem/UsageStartDate", "lineItem/UsageEndDate", "lineItem/ProductCode",
    "lineItem/UsageType", "lineItem/Operation", "lineItem/AvailabilityZone",
    "lineItem/ResourceId", "lineItem/UsageAmount", "lineItem/UnblendedRate",
    "lineItem/UnblendedCost", "lineItem/LineItemDescription", "product/instanceType",
    "product/productFamily", "product/region", "pricing/term", "pricing/unit",
    "reservation/ReservationARN", "savingsPlan/SavingsPlanARN", "resourceTags/user:team"]


def write_cur(rng) -> None:
    hours = pd.date_range("2026-03-01", periods=72, freq="h")
    rows = []

    def add(t, **values):
        row = {c: "" for c in CUR_COLUMNS}
        end = t + pd.Timedelta("1h")
        row.update({"identity/LineItemId": f"li{len(rows):06d}",
                    "identity/TimeInterval": f"{iso(t)}/{iso(end)}",
                    "bill/PayerAccountId": "123456789012",
                    "bill/BillingPeriodStartDate": "2026-03-01T00:00:00Z",
                    "lineItem/UsageAccountId": "210987654321",
                    "lineItem/UsageStartDate": iso(t), "lineItem/UsageEndDate": iso(end),
                    "product/region": "us-east-1"})
        row.update(values)
        rows.append(row)

    for t in hours:
        add(t, **{"lineItem/LineItemType": "Usage", "lineItem/ProductCode": "AmazonEC2",
                  "lineItem/UsageType": "USE1-BoxUsage:p5.48xlarge",
                  "lineItem/Operation": "RunInstances", "lineItem/AvailabilityZone": "us-east-1a",
                  "lineItem/ResourceId": "i-0p5000000000001", "lineItem/UsageAmount": "1.0",
                  "lineItem/UnblendedRate": "55.04", "lineItem/UnblendedCost": "55.04",
                  "lineItem/LineItemDescription": "$55.04 per On Demand Linux p5.48xlarge Instance Hour",
                  "product/instanceType": "p5.48xlarge", "product/productFamily": "Compute Instance",
                  "pricing/term": "OnDemand", "pricing/unit": "Hrs",
                  "resourceTags/user:team": "ml-research"})
        add(t, **{"lineItem/LineItemType": "DiscountedUsage", "lineItem/ProductCode": "AmazonEC2",
                  "lineItem/UsageType": "USE1-BoxUsage:g5.48xlarge",
                  "lineItem/Operation": "RunInstances", "lineItem/AvailabilityZone": "us-east-1b",
                  "lineItem/ResourceId": "i-0g5000000000001", "lineItem/UsageAmount": "2.0",
                  "lineItem/UnblendedRate": "0.0", "lineItem/UnblendedCost": "0.0",
                  "lineItem/LineItemDescription": "USD 0.0 hourly fee per Linux/UNIX (Amazon VPC), g5.48xlarge instance",
                  "product/instanceType": "g5.48xlarge", "product/productFamily": "Compute Instance",
                  "pricing/term": "Reserved", "pricing/unit": "Hrs",
                  "reservation/ReservationARN": "arn:aws:ec2:us-east-1:123456789012:reserved-instances/4b1f-0001",
                  "resourceTags/user:team": "serving"})
        if t.hour % 6 < 3:
            add(t, **{"lineItem/LineItemType": "Usage", "lineItem/ProductCode": "AmazonEC2",
                      "lineItem/UsageType": "USE1-SpotUsage:g6.xlarge",
                      "lineItem/Operation": "RunInstances:SV002",
                      "lineItem/ResourceId": f"i-0spot{t.hour:04d}",
                      "lineItem/UsageAmount": f"{rng.uniform(0.4, 1.0):.4f}",
                      "lineItem/UnblendedRate": "0.3122", "lineItem/UnblendedCost": "0.25",
                      "lineItem/LineItemDescription": "$0.3122 per Spot Linux g6.xlarge Instance Hour",
                      "product/instanceType": "g6.xlarge", "product/productFamily": "Compute Instance",
                      "pricing/term": "", "pricing/unit": "Hrs",
                      "resourceTags/user:team": "research"})
        add(t, **{"lineItem/LineItemType": "Usage", "lineItem/ProductCode": "AmazonEC2",
                  "lineItem/UsageType": "USE1-EBS:VolumeUsage.gp3", "lineItem/Operation": "CreateVolume-Gp3",
                  "lineItem/ResourceId": "vol-0abc", "lineItem/UsageAmount": "2.688172",
                  "lineItem/UnblendedRate": "0.08", "lineItem/UnblendedCost": "0.215",
                  "lineItem/LineItemDescription": "$0.08 per GB-month of General Purpose (gp3) provisioned storage",
                  "product/productFamily": "Storage", "pricing/term": "OnDemand",
                  "pricing/unit": "GB-Mo", "resourceTags/user:team": "ml-research"})
    add(hours[0], **{"lineItem/LineItemType": "Tax", "lineItem/ProductCode": "AmazonEC2",
                     "lineItem/UsageAmount": "1.0", "lineItem/UnblendedCost": "301.22",
                     "lineItem/LineItemDescription": "Tax for product code AmazonEC2"})
    pd.DataFrame(rows, columns=CUR_COLUMNS).to_csv(HERE / "aws_cur_sample.csv", index=False)


def write_sacct(rng) -> None:
    lines = ["JobID|Start|End|AllocTRES|Partition|Account"]
    start = pd.Timestamp("2026-03-02T08:00:00")
    job = 481200
    for _ in range(40):
        begin = start + pd.Timedelta(minutes=int(rng.integers(0, 7 * 24 * 60)))
        length = pd.Timedelta(minutes=int(rng.integers(10, 36 * 60)))
        gpus = int(rng.choice([0, 1, 2, 4, 8, 8, 16]))
        account, partition = [("llm-train", "gpu-h100"), ("vision", "gpu-a100"),
                              ("inference", "gpu-l40s"), ("bio", "cpu")][int(rng.integers(0, 4))]
        if gpus == 0:
            partition = "cpu"
        elif partition == "cpu":
            partition = "gpu-a100"
        nodes = max(1, gpus // 8)
        tres = f"billing={max(gpus, 1) * 16},cpu={max(gpus, 1) * 16}," + \
            (f"gres/gpu={gpus}," if gpus else "") + f"mem={max(gpus, 1) * 128}G,node={nodes}"
        end = begin + length
        fmt = "%Y-%m-%dT%H:%M:%S"
        lines.append(f"{job}|{begin:{fmt}}|{end:{fmt}}|{tres}|{partition}|{account}")
        lines.append(f"{job}.batch|{begin:{fmt}}|{end:{fmt}}|{tres.replace('billing', 'x').split(',', 1)[1]}||{account}")
        lines.append(f"{job}.extern|{begin:{fmt}}|{end:{fmt}}|{tres}||{account}")
        job += int(rng.integers(1, 40))
    lines.append(f"{job}|Unknown|Unknown||gpu-h100|llm-train")                      # pending
    lines.append(f"{job + 1}|2026-03-09T07:10:00|Unknown|billing=128,cpu=128,gres/gpu:h100=8,"
                 "mem=1000G,node=1|gpu-h100|llm-train")                            # running
    (HERE / "slurm_sacct_sample.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_xlsx(rng) -> None:
    days = pd.date_range("2026-01-01", "2026-03-31", freq="D")
    book = xlsxwriter.Workbook(HERE / "usage_sample.xlsx")
    book.set_properties({"created": dt.datetime(2026, 11, 30)})   # same bytes on every run
    notes = book.add_worksheet("notes")
    notes.write(0, 0, "GPU usage export from the finance dashboard, Q1 2026.")
    notes.write(1, 0, "Serving is steady; training runs are checkpointed (interruptible).")
    sheet = book.add_worksheet("usage")
    bold = book.add_format({"bold": True})
    date = book.add_format({"num_format": "yyyy-mm-dd"})
    sheet.write_row(0, 0, ["Date", "GPU Hours", "Workload", "Team"], bold)
    r = 1
    for day in days:
        weekend = day.day_of_week >= 5
        serving = round(float(24 * (44 + rng.normal(0, 3)) * (0.7 if weekend else 1.0)), 1)
        sheet.write_datetime(r, 0, day.to_pydatetime(), date)
        sheet.write_row(r, 1, [serving, "steady", "serving"])
        r += 1
        if rng.random() < 0.45:
            sheet.write_datetime(r, 0, day.to_pydatetime(), date)
            sheet.write_row(r, 1, [float(24 * int(rng.choice([32, 64, 128]))), "interruptible",
                                   "research"])
            r += 1
    sheet.set_column(0, 0, 12)
    sheet.set_column(1, 3, 13)
    book.close()


if __name__ == "__main__":
    rng = np.random.default_rng(SEED)
    write_focus(rng)
    write_cur(rng)
    write_sacct(rng)
    write_xlsx(rng)
