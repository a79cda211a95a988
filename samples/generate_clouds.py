"""Generate Azure cost details, Google Cloud billing export and GPU busy-time samples.

    python samples/generate_clouds.py

Column lists: Azure from Microsoft's dataset schema pages (MicrosoftDocs/azure-docs,
articles/cost-management-billing/dataset-schema/cost-usage-details-mca.md version
2023-12-01-preview, 65 columns, and cost-usage-details-ea.md version 2024-08-01, 57 columns);
Google Cloud from the BigQuery standard usage cost export schema, flattened as a query writes
it to CSV (nested fields with dots, repeated records as JSON). The busy-time files follow the
DCGM exporter's metric names and nvidia-smi's --query-gpu CSV. Totals are in each docstring.
"""
from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SEED = 20261201

MCA = ("invoiceId previousInvoiceId billingAccountId billingAccountName billingProfileId "
       "billingProfileName invoiceSectionId invoiceSectionName resellerName resellerMpnId "
       "costCenter billingPeriodEndDate billingPeriodStartDate servicePeriodEndDate "
       "servicePeriodStartDate date serviceFamily productOrderId productOrderName "
       "consumedService meterId meterName meterCategory meterSubCategory meterRegion ProductId "
       "ProductName SubscriptionId subscriptionName publisherType publisherId publisherName "
       "resourceGroupName ResourceId resourceLocation location effectivePrice quantity "
       "unitOfMeasure chargeType billingCurrency pricingCurrency costInBillingCurrency "
       "costInPricingCurrency costInUsd paygCostInBillingCurrency paygCostInUsd "
       "exchangeRatePricingToBilling exchangeRateDate isAzureCreditEligible serviceInfo1 "
       "serviceInfo2 additionalInfo tags PayGPrice frequency term reservationId reservationName "
       "pricingModel unitPrice costAllocationRuleName benefitId benefitName provider").split()
EA = ("InvoiceSectionName AccountName AccountOwnerId SubscriptionId SubscriptionName "
      "ResourceGroup ResourceLocation Date ProductName MeterCategory MeterSubCategory MeterId "
      "MeterName MeterRegion UnitOfMeasure Quantity EffectivePrice CostInBillingCurrency "
      "CostCenter ConsumedService ResourceId Tags OfferId AdditionalInfo ServiceInfo1 "
      "ServiceInfo2 ResourceName ReservationId ReservationName UnitPrice ProductOrderId "
      "ProductOrderName Term PublisherType PublisherName ChargeType Frequency PricingModel "
      "AvailabilityZone BillingAccountId BillingAccountName BillingCurrencyCode "
      "BillingPeriodStartDate BillingPeriodEndDate BillingProfileId BillingProfileName "
      "InvoiceSectionId IsAzureCreditEligible PartNumber PayGPrice PlanName ServiceFamily "
      "CostAllocationRuleName benefitId benefitName AccountId ResourceLocationNormalized").split()
GCP = ("billing_account_id service.id service.description sku.id sku.description "
       "usage_start_time usage_end_time project.id project.name project.labels labels "
       "system_labels location.region cost currency currency_conversion_rate usage.amount "
       "usage.unit usage.amount_in_pricing_units usage.pricing_unit credits invoice.month "
       "cost_type").split()
RESERVATION = "/providers/Microsoft.Capacity/reservationOrders/7e3d/reservations/b2c3"


def write(name: str, columns: list[str], rows: list[dict]) -> None:
    with open(HERE / name, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, columns, restval="", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def vm(size: str, series: str) -> dict:
    """The meter and product text Azure writes for a VM size."""
    name = size.replace("Standard_", "").replace("_", " ")
    return {"meterName": name, "meterCategory": "Virtual Machines",
            "meterSubCategory": f"{series} Series", "ProductName":
            f"Virtual Machines {series} Series - {name} - US East",
            "additionalInfo": json.dumps({"ServiceType": size, "UsageType": "ComputeHR"})}


def azure_actual() -> None:
    """MCA actual cost, 7 days from 2026-05-01 (dates month/day/year). Per day: two
    ND96isr_H100_v5 on a reservation (cost 0 in actual cost) 384 GPU-hours committed; one
    NC24ads_A100_v4 on demand, priced in EUR, 24; one NV36ads_A10_v5 on demand metered in
    "10 Hours" units (2.4 units) 24; one NC4as_T4_v3 spot 12. Totals: committed 2688, on demand
    336, spot 84. Not usage: the reservation purchase (day 1), the Windows licence meter of the
    NC24ads VM, and storage."""
    rows = []
    for day in pd.date_range("2026-05-01", periods=7, freq="D"):
        base = {"date": day.strftime("%m/%d/%Y"), "billingCurrency": "USD",
                "pricingCurrency": "USD", "chargeType": "Usage", "billingAccountId": "acme",
                "SubscriptionId": "sub-ml", "provider": "Azure", "frequency": "UsageBased"}
        rows += [
            dict(base, **vm("Standard_ND96isr_H100_v5", "NDisrH100v5"), quantity="48",
                 unitOfMeasure="1 Hour", pricingModel="Reservation", reservationId=RESERVATION,
                 costInBillingCurrency="0", costInPricingCurrency="0",
                 tags=json.dumps({"team": "llm"})),
            dict(base, **vm("Standard_NC24ads_A100_v4", "NCadsA100v4"), quantity="24",
                 unitOfMeasure="1 Hour", pricingModel="OnDemand", pricingCurrency="EUR",
                 costInBillingCurrency="88.15", costInPricingCurrency="81.10",
                 tags=json.dumps({"team": "vision"})),
            dict(base, **vm("Standard_NV36ads_A10_v5", "NVadsA10v5"), quantity="2.4",
                 unitOfMeasure="10 Hours", pricingModel="OnDemand",
                 costInBillingCurrency="76.80", costInPricingCurrency="76.80",
                 tags=json.dumps({"team": "vision"})),
            dict(base, **dict(vm("Standard_NC4as_T4_v3", "NCasT4v3"),
                              meterName="NC4as T4 v3 Spot"), quantity="12",
                 unitOfMeasure="1 Hour", pricingModel="Spot",
                 costInBillingCurrency="0.76", costInPricingCurrency="0.76", tags=""),
            dict(base, **dict(vm("Standard_NC24ads_A100_v4", "NCadsA100v4"),
                              meterCategory="Virtual Machines Licenses"), quantity="24",
                 unitOfMeasure="1 Hour", pricingModel="OnDemand", costInBillingCurrency="4.42",
                 costInPricingCurrency="4.42", tags=json.dumps({"team": "vision"})),
            dict(base, meterName="Hot LRS Data Stored", meterCategory="Storage",
                 meterSubCategory="Tiered Block Blob", quantity="2048",
                 unitOfMeasure="1 GB/Month", pricingModel="OnDemand",
                 costInBillingCurrency="1.23", costInPricingCurrency="1.23", tags="")]
        if day.day == 1:
            rows.append(dict(base, chargeType="Purchase", pricingModel="Reservation",
                             frequency="OneTime", reservationId=RESERVATION, quantity="1",
                             unitOfMeasure="1 Hour", costInBillingCurrency="25000",
                             costInPricingCurrency="25000"))
    write("azure_cost_details_actual_sample.csv", MCA, rows)


def azure_amortized() -> None:
    """EA amortized cost, same 7 days, ISO dates, tags without braces. Per day: the two
    reserved ND96isr_H100_v5 with their amortized cost (committed 384); one NC24ads_A100_v4 on
    demand (24); an UnusedReservation row of 6 hours of one ND96isr_H100_v5 (48 idle GPU-hours,
    350 USD). Totals: committed 2688, on demand 168; idle 2450 USD, 336 GPU-hours."""
    rows = []
    for day in pd.date_range("2026-05-01", periods=7, freq="D"):
        base = {"Date": day.strftime("%Y-%m-%d"), "BillingCurrencyCode": "USD",
                "ChargeType": "Usage", "BillingAccountId": "12345678",
                "SubscriptionId": "sub-ml", "Frequency": "UsageBased"}
        nd = {k[0].upper() + k[1:]: v for k, v in vm("Standard_ND96isr_H100_v5",
                                                    "NDisrH100v5").items()}
        nc = {k[0].upper() + k[1:]: v for k, v in vm("Standard_NC24ads_A100_v4",
                                                    "NCadsA100v4").items()}
        rows += [
            dict(base, **nd, Quantity="48", UnitOfMeasure="1 Hour", PricingModel="Reservation",
                 ReservationId=RESERVATION, CostInBillingCurrency="2832",
                 Tags='"team": "llm","env": "prod"'),
            dict(base, **nd, ChargeType="UnusedReservation", Quantity="6",
                 UnitOfMeasure="1 Hour", PricingModel="Reservation", ReservationId=RESERVATION,
                 CostInBillingCurrency="350", Tags=""),
            dict(base, **nc, Quantity="24", UnitOfMeasure="1 Hour", PricingModel="On Demand",
                 CostInBillingCurrency="88.15", Tags='"team": "vision"')]
    write("azure_cost_details_amortized_sample.csv", EA, rows)


def gcp_export() -> None:
    """24 hours from 2026-06-01, GPU SKUs in seconds. Per hour: 16 H100 GPUs with a committed
    use discount credit (committed 16, team llm); 2 T4 GPUs on demand (team vision); from 00:00
    to 11:00 four spot L4 GPUs (team vision). Totals: committed 384, on demand 48, spot 48.
    Not usage: A3 vCPU rows (their system labels name a3-highgpu-8g), the H100 commitment fee,
    Cloud Storage and the tax row."""
    rows = []
    labels = lambda team: json.dumps([{"key": "team", "value": team}])
    machine = json.dumps([{"key": "compute.googleapis.com/machine_spec",
                           "value": "a3-highgpu-8g"}])
    cud = json.dumps([{"name": "Committed use discount: GPU", "amount": -19.2,
                       "full_name": "Committed use discount: GPU", "id": "commitments/cud-h100-1y",
                       "type": "COMMITTED_USAGE_DISCOUNT"}])
    for t in pd.date_range("2026-06-01", periods=24, freq="h"):
        base = {"billing_account_id": "0A1B2C-3D4E5F-6A7B8C", "service.id": "6F81-5844-456A",
                "service.description": "Compute Engine", "project.id": "acme-ml",
                "project.name": "acme-ml", "project.labels": "[]", "location.region":
                "us-central1", "currency": "USD", "currency_conversion_rate": "1",
                "usage_start_time": f"{t:%Y-%m-%d %H:%M:%S} UTC",
                "usage_end_time": f"{t + pd.Timedelta('1h'):%Y-%m-%d %H:%M:%S} UTC",
                "invoice.month": "202606", "cost_type": "regular", "credits": "[]",
                "usage.unit": "seconds", "usage.pricing_unit": "hour", "labels": "[]",
                "system_labels": "[]"}

        def gpu(sku, gpus, cost, **extra):
            return dict(base, **{"sku.description": sku, "usage.amount": str(gpus * 3600),
                                 "usage.amount_in_pricing_units": str(gpus), "cost": cost},
                        **extra)
        rows += [gpu("Nvidia H100 80GB GPU running in Americas", 16, "156.74",
                     labels=labels("llm"), credits=cud, **{"sku.id": "H100"}),
                 gpu("A3 Instance Core running in Americas", 416, "12.0", system_labels=machine,
                     labels=labels("llm")),
                 gpu("Nvidia Tesla T4 GPU running in Americas", 2, "0.70", labels=labels("vision")),
                 gpu("Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year", 16, "45.0"),
                 dict(base, **{"service.description": "Cloud Storage", "sku.description":
                               "Standard Storage US Multi-region", "usage.amount": "3.6e14",
                               "usage.unit": "byte-seconds", "cost": "0.10"})]
        if t.hour < 12:
            rows.append(gpu("Spot Preemptible Nvidia L4 GPU running in Americas", 4, "0.90",
                            labels=labels("vision")))
    rows.append(dict(rows[0], **{"sku.description": "Tax", "cost_type": "tax", "cost": "120.0",
                                 "usage.amount": "0", "credits": "[]", "labels": "[]"}))
    write("gcp_billing_export_sample.csv", GCP, rows)


def busy_level(team: str, hour: int) -> float:
    """How busy the GPUs of a team are: llm 0.85, vision 0.80, both 0.35 from 10:00 to 19:59 on
    the first day (a shared dataset on network storage starved the input pipelines)."""
    if 10 <= hour < 20:
        return 0.35
    return 0.85 if team == "llm" else 0.80


def busy_samples() -> None:
    """48 hours from 2026-03-02 of two 8-GPU hosts (llm on gpu-a, vision on gpu-b), one sample
    every 15 minutes: usage_busy_hourly.csv bills 8 GPU-hours per team per hour;
    dcgm_busy_sample.csv has both hosts for 48 hours (engine-active ratio, with a team
    column); dcgm_exporter_sample.prom the llm host for 24 hours (Prometheus text with
    timestamps); nvidia_smi_sample.csv the vision host for 24 hours (percent). Each value is
    the team's level +- 0.02 (uniform noise, fixed seed). usage_busy_sample.zip bundles the
    usage table with the DCGM CSV."""
    rng = np.random.default_rng(SEED)
    hours = pd.date_range("2026-03-02", periods=48, freq="h")
    usage = ["timestamp,gpu_hours,team"] + [f"{t:%Y-%m-%dT%H:%M},8,{team}" for t in hours
                                             for team in ("llm", "vision")]
    (HERE / "usage_busy_hourly.csv").write_text("\n".join(usage) + "\n", encoding="utf-8")
    stamps = pd.date_range("2026-03-02", periods=48 * 4, freq="15min")
    dcgm = ["timestamp,host,gpu,team,DCGM_FI_PROF_GR_ENGINE_ACTIVE"]
    prom = ["# HELP DCGM_FI_PROF_GR_ENGINE_ACTIVE Ratio of time the graphics engine is active.",
            "# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge"]
    smi = ["timestamp, index, utilization.gpu [%]"]
    for t in stamps:
        hour = int((t - stamps[0]) / pd.Timedelta("1h"))
        for host, team in (("gpu-a", "llm"), ("gpu-b", "vision")):
            for g in range(8):
                v = min(1.0, max(0.0, busy_level(team, hour) + rng.uniform(-0.02, 0.02)))
                dcgm.append(f"{t:%Y-%m-%dT%H:%M:%SZ},{host},{g},{team},{v:.3f}")
                if hour < 24 and team == "llm":
                    prom.append(f'DCGM_FI_PROF_GR_ENGINE_ACTIVE{{gpu="{g}",UUID="GPU-a{g:07d}",'
                                f'device="nvidia{g}",modelName="NVIDIA H100 80GB HBM3",'
                                f'Hostname="{host}",namespace="llm"}} {v:.3f} '
                                f'{int(t.timestamp() * 1000)}')
                if hour < 24 and team == "vision":
                    smi.append(f"{t:%Y/%m/%d %H:%M:%S}.000, {g}, {round(v * 100)} %")
    for name, lines in (("dcgm_busy_sample.csv", dcgm), ("dcgm_exporter_sample.prom", prom),
                        ("nvidia_smi_sample.csv", smi)):
        (HERE / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ("usage_busy_hourly.csv", "dcgm_busy_sample.csv"):
            info = zipfile.ZipInfo(name, date_time=(2026, 12, 1, 0, 0, 0))  # same bytes each run
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, (HERE / name).read_bytes())
    (HERE / "usage_busy_sample.zip").write_bytes(out.getvalue())


if __name__ == "__main__":
    azure_actual()
    azure_amortized()
    gcp_export()
    busy_samples()
