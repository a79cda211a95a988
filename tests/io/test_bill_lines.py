"""A bill's storage, egress and support rows against the plan's lines (issue 43): each format's
rows that are not GPU usage, named by service/ingest/bill_lines.py and summed by month in
service/actuals.py. Every figure below is added up by hand from the rows written here."""
from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

import pytest

from models.variance import variance
from service.actuals import read_bills
from service.i18n import using_locale
from service.i18n.ingest_refusals import translate
from service.ingest.core import IngestError


def write(path: Path, rows: list[dict]) -> Path:
    columns = list(dict.fromkeys(k for r in rows for k in r))
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.DictWriter(f, columns)
        out.writeheader()
        out.writerows([{c: r.get(c, "") for c in columns} for r in rows])
    return path


def focus(start="2027-01-01T00:00:00Z", end="2027-02-01T00:00:00Z", **cells) -> dict:
    row = {"ChargePeriodStart": start, "ChargePeriodEnd": end, "ChargeCategory": "Usage",
           "ConsumedQuantity": "", "ConsumedUnit": "", "PricingCategory": "Standard",
           "BillingCurrency": "USD", "ServiceCategory": "", "ServiceSubcategory": "",
           "ServiceName": "", "ChargeDescription": "", "SkuId": "", "EffectiveCost": ""}
    row.update(cells)
    return row


FEB = ("2027-02-01T00:00:00Z", "2027-03-01T00:00:00Z")
FOCUS_ROWS = [
    # GPU usage: 10 p5.48xlarge hours, 8 GPUs each = 80 GPU-hours on demand
    focus(ConsumedQuantity="10", ConsumedUnit="Hours", ServiceCategory="Compute",
          ChargeDescription="p5.48xlarge instance hours", SkuId="p5.48xlarge",
          EffectiveCost="983.20"),
    focus(ServiceCategory="Storage", ServiceName="Amazon Simple Storage Service",
          ChargeDescription="S3 Standard storage", EffectiveCost="100.25"),
    focus(ChargeCategory="Credit", ServiceCategory="Storage",
          ChargeDescription="S3 storage credit", EffectiveCost="-0.25"),
    # S3's data sent out is egress, not storage
    focus(ServiceCategory="Storage", ServiceName="Amazon Simple Storage Service",
          ChargeDescription="DataTransfer-Out-Bytes", EffectiveCost="30.10"),
    focus(ServiceCategory="Networking", ServiceName="AWS Data Transfer",
          ChargeDescription="Data Transfer Out to the internet", EffectiveCost="9.90"),
    # networking that is not data sent out, a CPU instance and tax: no plan line
    focus(ServiceCategory="Networking", ChargeDescription="NAT Gateway hours",
          EffectiveCost="7.77"),
    focus(ConsumedQuantity="5", ConsumedUnit="Hours", ServiceCategory="Compute",
          ChargeDescription="m7i.large instance hours", SkuId="m7i.large", EffectiveCost="20"),
    focus(ChargeCategory="Tax", ServiceCategory="Storage", ChargeDescription="sales tax",
          EffectiveCost="12.34"),
    focus(ChargeCategory="Purchase", ServiceCategory="Management and Governance",
          ServiceSubcategory="Support", ServiceName="AWS Support (Business)",
          EffectiveCost="150.00"),
    # February: storage only
    focus(*FEB, ServiceCategory="Storage", ChargeDescription="S3 Standard storage",
          EffectiveCost="50.00"),
]


def test_focus_storage_egress_and_support_rows_are_their_lines(tmp_path):
    months = read_bills([write(tmp_path / "focus.csv", FOCUS_ROWS)], "USD")
    assert [m.month for m in months] == ["2027-01", "2027-02"]
    jan, feb = months
    # storage 100.25 - 0.25; egress 30.10 + 9.90; the NAT gateway, CPU and tax rows not read
    assert jan.costs == pytest.approx({"on_demand": 983.20, "spot": 0.0, "commitment": 0.0,
                                       "storage": 100.00, "egress": 40.00,
                                       "cloud_support": 150.00}, abs=1e-9)
    assert jan.gpu_hours == {"on_demand": 80.0, "spot": 0.0, "committed": 0.0}
    # a month with only storage rows gives storage and leaves the GPU lines as planned
    assert feb.costs == {"storage": 50.0} and feb.gpu_hours == {}


def test_the_lines_read_make_their_variance_and_the_rest_stay_as_planned(tmp_path):
    months = read_bills([write(tmp_path / "focus.csv", FOCUS_ROWS)], "USD")
    plan = [{"month": "2027-01", "hours": 744.0, "on_demand_gpu_hours": 80.0,
             "on_demand": 983.20, "storage": 90.0, "egress": 40.0, "cloud_support": 0.0,
             "energy": 10.0},
            {"month": "2027-02", "hours": 672.0, "on_demand_gpu_hours": 80.0,
             "on_demand": 983.20, "storage": 60.0, "egress": 5.0}]
    doc = variance(plan, months)
    moved = [{k: v for k, v in e["parts"].items() if Decimal(v)} for e in doc["months"]]
    jan, feb = doc["months"]
    # storage 100 - 90, support 150 - 0, egress as planned; nothing else moved
    assert moved[0] == {"other.storage": "10.00", "other.cloud_support": "150.00"}
    assert jan["total"] == "160.00"
    # February: storage 50 - 60; on demand and egress as planned (the bill has no such rows)
    assert moved[1] == {"other.storage": "-10.00"} and feb["total"] == "-10.00"
    assert {"egress", "on_demand", "gpu_hours.on_demand"} <= set(feb["as_planned"])
    assert "storage" not in feb["as_planned"]
    assert {k: v for k, v in doc["ytd"]["parts"].items() if Decimal(v)} == {
        "other.cloud_support": "150.00"}


AWS_HEAD = {"lineItem/UsageStartDate": "2027-01-01T00:00:00Z",
            "lineItem/UsageEndDate": "2027-02-01T00:00:00Z", "lineItem/LineItemType": "Usage",
            "lineItem/CurrencyCode": "USD", "product/instanceType": "", "lineItem/UsageType": "",
            "lineItem/ProductCode": "", "product/productFamily": "", "product/ProductName": "",
            "lineItem/UsageAmount": "1", "lineItem/UnblendedCost": ""}


def aws(**cells) -> dict:
    return {**AWS_HEAD, **{k.replace("__", "/"): v for k, v in cells.items()}}


def test_aws_cur_rows(tmp_path):
    rows = [
        aws(product__instanceType="p5.48xlarge", lineItem__UsageType="USE1-BoxUsage:p5.48xlarge",
            lineItem__ProductCode="AmazonEC2", lineItem__UsageAmount="2",
            lineItem__UnblendedCost="196.64"),
        aws(lineItem__ProductCode="AmazonS3", lineItem__UsageType="USE1-TimedStorage-ByteHrs",
            product__productFamily="Storage", lineItem__UnblendedCost="40.00"),
        aws(lineItem__ProductCode="AmazonEC2", lineItem__UsageType="USE1-EBS:VolumeUsage.gp3",
            product__productFamily="Storage", lineItem__UnblendedCost="2.50"),
        aws(lineItem__ProductCode="AmazonEC2", lineItem__UsageType="USE1-EBS:SnapshotUsage",
            product__productFamily="Storage Snapshot", lineItem__UnblendedCost="0.50"),
        aws(lineItem__ProductCode="AmazonS3", lineItem__UsageType="USE1-DataTransfer-Out-Bytes",
            product__productFamily="Data Transfer", lineItem__UnblendedCost="18.00"),
        aws(lineItem__ProductCode="AWSDataTransfer", lineItem__UsageType="USE1-APN1-AWS-Out-Bytes",
            product__productFamily="Data Transfer", lineItem__UnblendedCost="2.00"),
        aws(lineItem__ProductCode="AWSSupportBusiness", lineItem__LineItemType="Fee",
            product__ProductName="AWS Support (Business)", lineItem__UnblendedCost="100.00"),
        aws(lineItem__ProductCode="AmazonS3", lineItem__LineItemType="Tax",
            lineItem__UnblendedCost="5.00"),
        aws(lineItem__ProductCode="AmazonRDS", lineItem__UsageType="USE1-InstanceUsage:db.r6g",
            product__productFamily="Database Instance", lineItem__UnblendedCost="70.00"),
    ]
    [jan] = read_bills([write(tmp_path / "cur.csv", rows)], "USD")
    # storage 40 + 2.50 + 0.50; egress 18 + 2; support 100; tax and the database not read
    assert jan.costs == pytest.approx({"on_demand": 196.64, "spot": 0.0, "commitment": 0.0,
                                       "storage": 43.00, "egress": 20.00,
                                       "cloud_support": 100.00}, abs=1e-9)
    assert jan.gpu_hours["on_demand"] == 16.0


def azure(**cells) -> dict:
    row = {"date": "01/15/2027", "chargeType": "Usage", "pricingModel": "OnDemand",
           "meterCategory": "", "meterSubCategory": "", "meterName": "", "quantity": "1",
           "unitOfMeasure": "1 Hour", "costInBillingCurrency": "", "billingCurrency": "USD"}
    row.update(cells)
    return row


def test_azure_rows(tmp_path):
    rows = [
        azure(meterCategory="Virtual Machines", meterSubCategory="NDisrH100v5 Series",
              meterName="ND96isr H100 v5", quantity="3", costInBillingCurrency="98.19"),
        azure(meterCategory="Storage", meterSubCategory="Premium SSD Managed Disks",
              meterName="P30 LRS Disk", unitOfMeasure="1/Month", costInBillingCurrency="135.17"),
        azure(meterCategory="Bandwidth", meterSubCategory="Rtn Preference: MGN",
              meterName="Standard Data Transfer Out", unitOfMeasure="1 GB",
              costInBillingCurrency="8.70"),
        azure(meterCategory="Azure Support", meterName="Professional Direct",
              chargeType="Purchase", unitOfMeasure="1/Month", costInBillingCurrency="1000"),
        azure(meterCategory="Storage", chargeType="Tax", costInBillingCurrency="9.99"),
        azure(meterCategory="SQL Database", meterName="vCore", costInBillingCurrency="44"),
    ]
    [jan] = read_bills([write(tmp_path / "azure.csv", rows)], "USD")
    assert jan.costs == pytest.approx({"on_demand": 98.19, "spot": 0.0, "commitment": 0.0,
                                       "storage": 135.17, "egress": 8.70,
                                       "cloud_support": 1000.0}, abs=1e-9)
    assert jan.gpu_hours["on_demand"] == 24.0     # 3 hours x 8 H100


def gcp(**cells) -> dict:
    row = {"usage_start_time": "2027-01-03 00:00:00 UTC",
           "usage_end_time": "2027-01-03 01:00:00 UTC", "service.description": "Compute Engine",
           "sku.description": "", "usage.amount": "3600", "usage.unit": "seconds", "cost": "",
           "currency": "USD", "cost_type": "regular"}
    row.update(cells)
    return row


def test_google_cloud_rows(tmp_path):
    rows = [
        gcp(**{"sku.description": "Nvidia Tesla A100 GPU running in Americas", "cost": "2.93"}),
        gcp(**{"sku.description": "A2 Instance Core running in Americas", "cost": "1.00"}),
        gcp(**{"service.description": "Cloud Storage",
               "sku.description": "Standard Storage US Multi-region", "cost": "26.00"}),
        gcp(**{"sku.description": "Balanced PD Capacity", "cost": "10.00"}),
        gcp(**{"service.description": "Cloud Storage",
               "sku.description": "Network Internet Egress from Americas to Americas",
               "cost": "12.00"}),
        gcp(**{"sku.description": "Network Internet Egress from Americas to APAC",
               "cost": "3.00"}),
        gcp(**{"service.description": "Support", "sku.description": "Enhanced Support",
               "cost": "500.00"}),
        gcp(**{"service.description": "Cloud Storage", "sku.description": "Standard Storage",
               "cost_type": "tax", "cost": "4.00"}),
    ]
    [jan] = read_bills([write(tmp_path / "gcp.csv", rows)], "USD")
    # the A2 core row is not GPU time and no plan line
    assert jan.costs == pytest.approx({"on_demand": 2.93, "spot": 0.0, "commitment": 0.0,
                                       "storage": 36.00, "egress": 15.00,
                                       "cloud_support": 500.00}, abs=1e-9)


def test_a_line_row_without_a_date_or_a_number_is_refused_by_row_and_column(tmp_path):
    rows = [FOCUS_ROWS[0],
            focus(start="soon", ServiceCategory="Storage", ChargeDescription="S3",
                  EffectiveCost="1"),
            focus(ServiceCategory="Networking", ChargeDescription="Data Transfer Out",
                  EffectiveCost="n/a"),
            focus(ServiceCategory="Networking", ChargeDescription="NAT Gateway hours",
                  start="", EffectiveCost="n/a")]       # no plan line: not read, not refused
    with pytest.raises(IngestError) as refused:
        read_bills([write(tmp_path / "bad.csv", rows)], "USD")
    assert refused.value.problems == [
        {"row": 3, "column": "ChargePeriodStart", "message": "a storage row without a date-time"},
        {"row": 4, "column": "EffectiveCost", "message": "the cost is not a number"}]
    with using_locale("ko"):          # each line's refusal is in the Korean catalog
        for text in ("a storage row without a date-time", "an egress row without a date-time",
                     "a cloud support row without a date-time"):
            said = translate(text)
            assert said and said != text and "row" not in said


def test_a_line_row_in_the_plans_foreign_currency_counts_at_the_plans_rate(tmp_path):
    """A KRW plan whose cloud is in USD at 1,000 KRW per USD (tests/support/focus_fx_cases.py):
    a storage row of 10 USD is 10,000 KRW of storage; stated as billed 11,000 KRW, the
    1,000 KRW more is the month's fx."""
    from models.variance_fx import PlanMoney
    from tests.support.focus_fx_cases import KRW
    rows = [focus(ServiceCategory="Storage", ChargeDescription="S3", BillingCurrency="KRW",
                  EffectiveCost="11000", PricingCurrency="USD",
                  PricingCurrencyEffectiveCost="10")]
    [jan] = read_bills([write(tmp_path / "krw.csv", rows)], "KRW", money=PlanMoney(KRW, "2027-01"))
    assert jan.costs == {"storage": pytest.approx(10_000.0)}
    assert jan.fx_cost == pytest.approx(1_000.0)
