"""Generate FOCUS 1.1, 1.2 and 1.3 samples and a 1.3 Contract Commitment dataset (fixed values).

    python samples/generate_focus.py

No public FOCUS 1.1-1.3 sample with a licence that allows copying was found (the FinOps
Foundation's FOCUS-Sample-Data repository holds 1.0 only; it is copied, CC BY 4.0, under
tests/data/finops-focus-sample-data/). These files are made from each version's column list,
taken from the specification (FinOps-Open-Cost-and-Usage-Spec/FOCUS_Spec, CC BY 4.0):
the "Column ID" of every specification/columns/*.md at tags v1.0
(f7f58a0a7e545258779839d4f2114819f278c6f3), v1.1 (6108d409686bfbfd74c118b2ab50f9fa1891b3ca) and
v1.2 (7296e3146fb931ee32b6496fa6e4200e7f4384f7); for 1.3 the columns 1.3 added to the Cost and
Usage dataset and the 13 columns of its Contract Commitment dataset page
(specification/datasets/contract_commitment/dataset.md). GPU rows are hand-checkable: see each
writer's docstring for the totals the tests expect.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent

FOCUS_1_0 = [
    "AvailabilityZone", "BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency",
    "BillingPeriodEnd", "BillingPeriodStart", "ChargeCategory", "ChargeClass",
    "ChargeDescription", "ChargeFrequency", "ChargePeriodEnd", "ChargePeriodStart",
    "CommitmentDiscountCategory", "CommitmentDiscountId", "CommitmentDiscountName",
    "CommitmentDiscountStatus", "CommitmentDiscountType", "ConsumedQuantity", "ConsumedUnit",
    "ContractedCost", "ContractedUnitPrice", "EffectiveCost", "InvoiceIssuerName", "ListCost",
    "ListUnitPrice", "PricingCategory", "PricingQuantity", "PricingUnit", "ProviderName",
    "PublisherName", "RegionId", "RegionName", "ResourceId", "ResourceName", "ResourceType",
    "ServiceCategory", "ServiceName", "SkuId", "SkuPriceId", "SubAccountId", "SubAccountName",
    "Tags"]
ADDED_1_1 = ["CapacityReservationId", "CapacityReservationStatus", "CommitmentDiscountQuantity",
             "CommitmentDiscountUnit", "ServiceSubcategory", "SkuMeter", "SkuPriceDetails"]
ADDED_1_2 = ["BillingAccountType", "InvoiceId", "PricingCurrency",
             "PricingCurrencyContractedUnitPrice", "PricingCurrencyEffectiveCost",
             "PricingCurrencyListUnitPrice", "SubAccountType"]
ADDED_1_3 = ["ServiceProviderName", "HostProviderName", "ContractApplied", "AllocatedMethodId",
             "AllocatedMethodDetails", "AllocatedResourceId", "AllocatedResourceName",
             "AllocatedTags"]
FOCUS_1_1 = sorted(FOCUS_1_0 + ADDED_1_1)
FOCUS_1_2 = sorted(FOCUS_1_1 + ADDED_1_2)
FOCUS_1_3 = sorted(FOCUS_1_2 + ADDED_1_3)
CONTRACT_COMMITMENT = [
    "BillingCurrency", "ContractCommitmentId", "ContractId", "ContractPeriodStart",
    "ContractPeriodEnd", "ContractCommitmentPeriodStart", "ContractCommitmentPeriodEnd",
    "ContractCommitmentDescription", "ContractCommitmentType", "ContractCommitmentCategory",
    "ContractCommitmentUnit", "ContractCommitmentQuantity", "ContractCommitmentCost"]


def iso(t: pd.Timestamp) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def write(name: str, columns: list[str], rows: list[dict]) -> None:
    with open(HERE / name, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, columns, restval="", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def rows_of(columns: list[str], start: str, periods: int, freq: str, add) -> list[dict]:
    rows = []
    step = pd.Timedelta(freq)
    for t in pd.date_range(start, periods=periods, freq=freq):
        for values in add(t):
            row = {c: "" for c in columns}
            row.update(ChargePeriodStart=iso(t), ChargePeriodEnd=iso(t + step),
                       ChargeCategory="Usage", ChargeFrequency="Usage-Based")
            row.update(values)
            rows.append(row)
    return rows


def focus_1_1() -> None:
    """AWS, 24 hours from 2026-04-01, hourly. Per hour: p5.48xlarge on demand (named only in
    SkuPriceDetails) 8 GPU-hours; p4d.24xlarge in a capacity reservation, on demand, 8; a
    g5.48xlarge reserved instance (committed) 8; from 08:00 to 19:00 two g6e.xlarge spot
    (named only in SkuMeter) 2. Totals: on demand 384, committed 192, spot 24. One unused
    capacity reservation row per hour (p4d, 12.5 USD) and S3 storage are not usage."""
    base = dict(BillingAccountId="123456789012", BillingAccountName="acme-payer",
                BillingCurrency="USD", BillingPeriodStart="2026-04-01T00:00:00Z",
                BillingPeriodEnd="2026-05-01T00:00:00Z", ProviderName="AWS",
                PublisherName="Amazon Web Services, Inc.",
                InvoiceIssuerName="Amazon Web Services, Inc.", RegionId="us-east-1",
                ServiceName="Amazon Elastic Compute Cloud", ServiceCategory="Compute",
                ServiceSubcategory="Virtual Machines", SubAccountId="210987654321")
    ec2 = dict(base, ResourceType="Instance", ConsumedUnit="Hours", PricingUnit="Hours",
               ChargeDescription="Instance usage")

    def add(t):
        yield dict(ec2, ResourceId="i-p5", SkuId="P5SKU", PricingCategory="Standard",
                   SkuPriceDetails=json.dumps({"InstanceType": "p5.48xlarge"}),
                   SkuMeter="Compute Usage", ConsumedQuantity="1", PricingQuantity="1",
                   BilledCost="55.04", EffectiveCost="55.04",
                   Tags=json.dumps({"user:team": "llm"}))
        yield dict(ec2, ResourceId="i-p4d", SkuId="P4DSKU", PricingCategory="Standard",
                   SkuMeter="BoxUsage:p4d.24xlarge", CapacityReservationId="cr-0p4d",
                   CapacityReservationStatus="Used", ConsumedQuantity="1",
                   PricingQuantity="1", BilledCost="32.77", EffectiveCost="32.77",
                   Tags=json.dumps({"user:team": "vision"}))
        yield dict(ec2, ResourceId="cr-0p4d", SkuId="P4DSKU", PricingCategory="Standard",
                   SkuMeter="Reservation:p4d.24xlarge", CapacityReservationId="cr-0p4d",
                   CapacityReservationStatus="Unused", PricingQuantity="0.5",
                   BilledCost="12.5", EffectiveCost="12.5")
        yield dict(ec2, ResourceId="i-g5", SkuId="G5SKU", PricingCategory="Committed",
                   SkuMeter="BoxUsage:g5.48xlarge", CommitmentDiscountId="ri-g5-0001",
                   CommitmentDiscountCategory="Usage", CommitmentDiscountType="Reserved Instance",
                   CommitmentDiscountStatus="Used", CommitmentDiscountQuantity="1",
                   CommitmentDiscountUnit="Hours", ConsumedQuantity="1", PricingQuantity="1",
                   BilledCost="0", EffectiveCost="10.2", Tags=json.dumps({"user:team": "serving"}))
        if 8 <= t.hour < 20:
            yield dict(ec2, ResourceId="i-spot", SkuId="G6ESKU", PricingCategory="Dynamic",
                       SkuMeter="SpotUsage:g6e.xlarge", ConsumedQuantity="2",
                       PricingQuantity="2", BilledCost="1.2", EffectiveCost="1.2", Tags="{}")
        yield dict(base, ServiceName="Amazon Simple Storage Service", ServiceCategory="Storage",
                   ServiceSubcategory="Object Storage", ResourceType="Bucket", SkuId="S3SKU",
                   ChargeDescription="Storage", ConsumedQuantity="1200", ConsumedUnit="GB-Mo",
                   PricingCategory="Standard", BilledCost="0.04", EffectiveCost="0.04")
    write("focus_1.1_sample.csv", FOCUS_1_1, rows_of(FOCUS_1_1, "2026-04-01", 24, "1h", add))


def focus_1_2() -> None:
    """Microsoft Azure, 7 days from 2026-05-01, daily rows. Per day: two ND96isr_H100_v5 on a
    reservation (committed) 48 VM-hours = 384 GPU-hours; one NC24ads_A100_v4 on demand priced
    in EUR (billed in USD) 24; one NV12ads_A10_v5 (a third of an A10) 24 VM-hours = 8; one
    NV36ads_A10_v5 on spot 10. Totals: committed 2688, on demand 224, spot 70. Each day an
    unused reservation row (6 hours of one ND96isr_H100_v5: 48 idle GPU-hours, 350 USD), a
    storage row and, on day 1, the reservation purchase are not usage."""
    base = dict(BillingAccountId="/providers/Microsoft.Billing/billingAccounts/acme",
                BillingAccountName="Acme", BillingAccountType="Billing Profile",
                BillingCurrency="USD", BillingPeriodStart="2026-05-01T00:00:00Z",
                BillingPeriodEnd="2026-06-01T00:00:00Z", InvoiceId="G012345678",
                ProviderName="Microsoft", PublisherName="Microsoft",
                InvoiceIssuerName="Microsoft", RegionId="eastus", RegionName="East US",
                SubAccountId="sub-ml", SubAccountName="ml-prod", SubAccountType="Subscription",
                ServiceName="Virtual Machines", ServiceCategory="Compute",
                ServiceSubcategory="Virtual Machines", PricingCurrency="USD")
    vm = dict(base, ResourceType="Virtual machine", ConsumedUnit="Hours", PricingUnit="1 Hour")
    reservation = ("/providers/Microsoft.Capacity/reservationOrders/6d2c/reservations/a1b2")

    def add(t):
        yield dict(vm, ResourceId="vm-nd-1", SkuId="ND96isr H100 v5",
                   SkuMeter="ND96isr H100 v5", PricingCategory="Committed",
                   ChargeDescription="ND96isr H100 v5 - Reservation", ConsumedQuantity="48",
                   PricingQuantity="48", CommitmentDiscountId=reservation,
                   CommitmentDiscountStatus="Used", CommitmentDiscountType="Reservation",
                   CommitmentDiscountCategory="Usage", BilledCost="0", EffectiveCost="2832",
                   PricingCurrencyEffectiveCost="2832", Tags=json.dumps({"team": "llm"}))
        yield dict(vm, ResourceId=reservation, SkuId="ND96isr H100 v5",
                   SkuMeter="ND96isr H100 v5", PricingCategory="Committed",
                   ChargeDescription="Unused reservation", PricingQuantity="6",
                   CommitmentDiscountId=reservation, CommitmentDiscountStatus="Unused",
                   CommitmentDiscountType="Reservation", BilledCost="0", EffectiveCost="350",
                   PricingCurrencyEffectiveCost="350")
        yield dict(vm, ResourceId="vm-nc-1", SkuId="NC24ads A100 v4", PricingCategory="Standard",
                   SkuPriceDetails=json.dumps({"InstanceType": "Standard_NC24ads_A100_v4"}),
                   ChargeDescription="NC24ads A100 v4", ConsumedQuantity="24",
                   PricingQuantity="24", BilledCost="88.15", EffectiveCost="88.15",
                   PricingCurrency="EUR", PricingCurrencyEffectiveCost="81.10",
                   Tags=json.dumps({"team": "vision"}))
        yield dict(vm, ResourceId="vm-nv-1", SkuId="NV12ads A10 v5", PricingCategory="Standard",
                   ChargeDescription="NV12ads A10 v5", ConsumedQuantity="24",
                   PricingQuantity="24", BilledCost="21.79", EffectiveCost="21.79",
                   PricingCurrencyEffectiveCost="21.79", Tags=json.dumps({"team": "vision"}))
        yield dict(vm, ResourceId="vm-nv-spot", SkuId="NV36ads A10 v5 Spot",
                   PricingCategory="Dynamic", ChargeDescription="NV36ads A10 v5 Spot",
                   ConsumedQuantity="10", PricingQuantity="10", BilledCost="8.0",
                   EffectiveCost="8.0", PricingCurrencyEffectiveCost="8.0", Tags="{}")
        yield dict(base, ServiceName="Storage", ServiceCategory="Storage",
                   ResourceType="Storage account", SkuId="Hot LRS", ChargeDescription="Hot LRS",
                   ConsumedQuantity="2048", ConsumedUnit="GB/Month", PricingCategory="Standard",
                   BilledCost="1.23", EffectiveCost="1.23", PricingCurrencyEffectiveCost="1.23")
        if t.day == 1:
            yield dict(base, ChargeCategory="Purchase", ChargeFrequency="One-Time",
                       ChargeDescription="Reservation purchase", ResourceId=reservation,
                       CommitmentDiscountId=reservation, BilledCost="25000",
                       EffectiveCost="0", PricingCurrencyEffectiveCost="0")
    write("focus_1.2_sample.csv", FOCUS_1_2, rows_of(FOCUS_1_2, "2026-05-01", 7, "1D", add))


def focus_1_3() -> None:
    """Google Cloud, 24 hours from 2026-06-01, hourly. Per hour: 16 H100 GPUs of two
    a3-highgpu-8g under contract commitment CC-GCP-A3-1Y (ContractApplied, no commitment
    discount id), split by allocation 10 to team llm and 6 to team vision (AllocatedTags); 4 L4
    GPUs under committed use discount cud-l4-1y; one A100 80GB GPU on demand; from 00:00 to
    11:00 two spot T4 GPUs. Totals: committed 480 (CC-GCP-A3-1Y 384, cud-l4-1y 96), on demand
    24, spot 24. The A3 vCPU rows name the machine type but are not GPU time."""
    base = dict(BillingAccountId="0A1B2C-3D4E5F-6A7B8C", BillingAccountName="acme",
                BillingAccountType="Billing Account", BillingCurrency="USD",
                BillingPeriodStart="2026-06-01T00:00:00Z", BillingPeriodEnd="2026-07-01T00:00:00Z",
                InvoiceId="5300000001", ProviderName="Google Cloud", PublisherName="Google Cloud",
                ServiceProviderName="Google Cloud", HostProviderName="Google Cloud",
                InvoiceIssuerName="Google LLC", RegionId="us-central1", SubAccountId="acme-ml",
                SubAccountName="acme-ml", SubAccountType="Project", ServiceName="Compute Engine",
                ServiceCategory="Compute", ServiceSubcategory="Virtual Machines",
                PricingCurrency="USD", ResourceType="GPU", ConsumedUnit="Hours",
                PricingUnit="Hours", Tags=json.dumps({"team": "platform"}))
    contract = json.dumps({"Elements": [{"ContractId": "CONTRACT-GCP-2026",
                                         "ContractCommitmentId": "CC-GCP-A3-1Y",
                                         "ContractCommitmentAppliedCost": 19.2}]})
    cud = json.dumps({"Elements": [{"ContractId": "CONTRACT-GCP-2026",
                                    "ContractCommitmentId": "cud-l4-1y",
                                    "ContractCommitmentAppliedCost": 1.4}]})

    def add(t):
        for team, gpus in (("llm", 10), ("vision", 6)):
            yield dict(base, SkuId="H100SKU", ChargeDescription="Nvidia H100 80GB GPU running "
                       "in Americas", PricingCategory="Committed", ConsumedQuantity=str(gpus),
                       PricingQuantity=str(gpus), BilledCost=f"{gpus * 2.4:.2f}",
                       EffectiveCost=f"{gpus * 2.4:.2f}", ContractApplied=contract,
                       AllocatedMethodId="split-by-namespace",
                       AllocatedMethodDetails=json.dumps({"Elements": [
                           {"AllocatedRatio": gpus / 16, "UsageQuantity": gpus,
                            "UsageUnit": "Hours"}]}),
                       AllocatedResourceId=f"gke-a3/{team}", AllocatedResourceName=team,
                       AllocatedTags=json.dumps({"team": team}))
        yield dict(base, SkuId="A3CORE", ChargeDescription="A3 Instance Core running in "
                   "Americas", SkuPriceDetails=json.dumps({"x_MachineType": "a3-highgpu-8g"}),
                   ResourceType="VM", PricingCategory="Standard", ConsumedQuantity="416",
                   PricingQuantity="416", BilledCost="12.0", EffectiveCost="12.0")
        yield dict(base, SkuId="L4SKU", ChargeDescription="Nvidia L4 GPU running in Americas",
                   PricingCategory="Committed", CommitmentDiscountId="cud-l4-1y",
                   CommitmentDiscountStatus="Used", CommitmentDiscountType="Committed Use",
                   ConsumedQuantity="4", PricingQuantity="4", BilledCost="1.4",
                   EffectiveCost="1.4", ContractApplied=cud)
        yield dict(base, SkuId="A100SKU", ChargeDescription="Nvidia Tesla A100 80GB GPU "
                   "running in Americas", PricingCategory="Standard", ConsumedQuantity="1",
                   PricingQuantity="1", BilledCost="3.93", EffectiveCost="3.93")
        if t.hour < 12:
            yield dict(base, SkuId="T4SPOT", ChargeDescription="Spot Preemptible Nvidia Tesla "
                       "T4 GPU running in Americas", PricingCategory="Dynamic",
                       ConsumedQuantity="2", PricingQuantity="2", BilledCost="0.28",
                       EffectiveCost="0.28")
        yield dict(base, ServiceName="Cloud Storage", ServiceCategory="Storage",
                   ResourceType="Bucket", SkuId="GCS", ChargeDescription="Standard Storage US "
                   "Multi-region", ConsumedQuantity="100", ConsumedUnit="GiB-Months",
                   PricingCategory="Standard", BilledCost="0.1", EffectiveCost="0.1")
    write("focus_1.3_sample.csv", FOCUS_1_3, rows_of(FOCUS_1_3, "2026-06-01", 24, "1h", add))


def contract_commitments() -> None:
    """Eight terms. GPU commitments: CC-GCP-A3-1Y (2 x a3-highgpu-8g for 1 year from 2026-06, 17,520
    instance-hours, 336,384 USD, No Upfront: 16 GPUs at 2.40), cud-l4-1y (35,040 GPU-hours of
    L4 for 1 year, 12,264 USD, payment not stated: 4 GPUs at 0.35), CC-GCP-H100-3Y (210,432
    GPU-hours over 3 years from 2026-07, 441,907.20 EUR, Partial Upfront: 8 GPUs at 2.10),
    CC-GCP-G2-1Y (26,280 hours of g2-standard-24, 2 GPUs each, from 2026-02-15, 26,280 USD, All
    Upfront: 6 GPUs at 0.50). Skipped: a spend commitment, a storage commitment, an n2 (no GPU)
    commitment and an a2 commitment without a cost."""
    contract = dict(ContractId="CONTRACT-GCP-2026", ContractPeriodStart="2026-01-01T00:00:00Z",
                    ContractPeriodEnd="2029-07-01T00:00:00Z", BillingCurrency="USD")

    def term(cid, start, end, category, unit, quantity, cost, ctype, description, **extra):
        return dict(contract, ContractCommitmentId=cid, ContractCommitmentPeriodStart=start,
                    ContractCommitmentPeriodEnd=end, ContractCommitmentCategory=category,
                    ContractCommitmentUnit=unit, ContractCommitmentQuantity=quantity,
                    ContractCommitmentCost=cost, ContractCommitmentType=ctype,
                    ContractCommitmentDescription=description, **extra)
    y26, y27 = "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"
    rows = [
        # from 2026-06: live for six months of a plan from 2027-01 (one that ended before
        # the plan starts is not held: issue 37); the usage sample's June 2026 hours apply it
        term("CC-GCP-A3-1Y", "2026-06-01T00:00:00Z", "2027-06-01T00:00:00Z", "Usage", "Hours",
             "17520.0", "336384.0",
             "Committed Use Discount", "a3-highgpu-8g, 2 VMs, 1 year, No Upfront"),
        term("cud-l4-1y", "2026-03-01T00:00:00Z", "2027-03-01T00:00:00Z", "Usage", "GPU-Hours",
             "35040.0", "12264.0", "Resource-based CUD", "Nvidia L4 GPU, 1 year"),
        term("CC-GCP-H100-3Y", "2026-07-01T00:00:00Z", "2029-07-01T00:00:00Z", "Usage",
             "GPU-Hours", "210432.0", "441907.2", "Reservation",
             "Nvidia H100 80GB GPU, 3 years, Partial Upfront", BillingCurrency="EUR"),
        term("CC-GCP-G2-1Y", "2026-02-15T00:00:00Z", "2027-02-15T00:00:00Z", "Usage", "Hours",
             "26280.0", "26280.0", "Committed Use Discount", "g2-standard-24 x3, All Upfront"),
        term("CC-GCP-SPEND-2026", y26, y27, "Spend", "", "", "500000.0",
             "Enterprise Minimum Spend", "Annual minimum spend"),
        term("CC-GCP-STORAGE", y26, y27, "Usage", "GiB-Months", "120000.0", "2400.0",
             "Storage Commitment", "Cloud Storage rate card"),
        term("CC-GCP-N2-1Y", y26, y27, "Usage", "Hours", "8760.0", "2803.2",
             "Committed Use Discount", "n2-standard-8, 1 year"),
        term("CC-GCP-A2-NOCOST", y26, y27, "Usage", "Hours", "8760.0", "",
             "Committed Use Discount", "a2-highgpu-1g, 1 year"),
    ]
    write("focus_1.3_contract_commitment_sample.csv", CONTRACT_COMMITMENT, rows)


if __name__ == "__main__":
    focus_1_1()
    focus_1_2()
    focus_1_3()
    contract_commitments()
