"""FOCUS 1.0 billing exports: GPU instance-hours, pricing categories, tags, skipped rows."""
from __future__ import annotations

import csv
import io
import json

import pytest
from numpy.testing import assert_allclose

from service.ingest import IngestError, read_usage
from tests.support.ingest_fixtures import SAMPLES, xlsx

COLUMNS = ["ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory", "ChargeDescription",
           "ConsumedQuantity", "ConsumedUnit", "PricingCategory", "ResourceType", "ServiceName",
           "SkuId", "Tags", "x_UsageType", "BilledCost"]


def focus(*rows: dict) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, restval="NULL")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def gpu_row(hour: int, qty: str = "1", usage_type: str = "USE1-BoxUsage:p5.48xlarge",
            pricing: str = "Standard", tags: str = "{}", **extra) -> dict:
    row = {"ChargePeriodStart": f"2026-03-01T{hour:02d}:00:00Z",
           "ChargePeriodEnd": f"2026-03-01T{hour + 1:02d}:00:00Z", "ChargeCategory": "Usage",
           "ChargeDescription": "Instance hour", "ConsumedQuantity": qty, "ConsumedUnit": "Hrs",
           "PricingCategory": pricing, "ResourceType": "Instance",
           "ServiceName": "Amazon Elastic Compute Cloud", "SkuId": "SKU1", "Tags": tags,
           "x_UsageType": usage_type, "BilledCost": "1.0"}
    row.update(extra)
    return row


def test_gpu_hours_from_instance_hours():
    # 1 p5.48xlarge (8 GPUs) + 2 g6e.12xlarge (4 GPUs) = 16 GPU-hours in hour 0
    data = focus(gpu_row(0), gpu_row(0, "2", "USE1-BoxUsage:g6e.12xlarge"), gpu_row(1, "0.5"))
    result = read_usage(data, "focus.csv")
    assert result.summary["format"] == "focus"
    assert result.profile.period == "hour"
    assert_allclose(result.profile.steady, [16, 4])


def test_pricing_categories_and_spot_as_interruptible():
    data = focus(gpu_row(0, pricing="Standard"), gpu_row(0, pricing="Committed"),
                 gpu_row(0, pricing="Dynamic"))
    result = read_usage(data, "focus.csv")
    assert result.summary["pricing_categories"] == {"on_demand": 8.0, "committed": 8.0,
                                                    "spot": 8.0}
    assert_allclose(result.profile.interruptible, [8])
    assert_allclose(result.profile.steady, [16])


def test_team_from_json_tags():
    data = focus(gpu_row(0, tags=json.dumps({"user:team": "vision", "env": "prod"})),
                 gpu_row(0, tags=json.dumps({"Team": "nlp"})), gpu_row(0, tags="NULL"))
    assert read_usage(data, "focus.csv").profile.teams == {"vision": 8.0, "nlp": 8.0,
                                                           "(no team)": 8.0}


def test_non_gpu_rows_counted_and_skipped():
    data = focus(gpu_row(0),
                 gpu_row(0, usage_type="USE1-BoxUsage:m5.xlarge"),          # CPU instance
                 gpu_row(0, ConsumedUnit="GB-Mo"),                          # storage unit
                 gpu_row(0, ChargeCategory="Tax", ConsumedQuantity="NULL"),  # tax, NULLs
                 gpu_row(0, ChargeCategory="Purchase"))                     # upfront fee
    result = read_usage(data, "focus.csv")
    assert result.summary["skipped_rows"] == 4
    assert result.summary["rows"] == 5
    assert result.profile.gpu_hours == 8.0
    assert any("4 rows are not GPU instance usage" in w for w in result.warnings)


def test_instance_type_in_description_or_sku():
    data = focus(gpu_row(0, usage_type="NULL",
                         ChargeDescription="$55.04 per On Demand Linux p5.48xlarge Instance Hour"),
                 gpu_row(0, usage_type="NULL", SkuId="Standard_ND96isr_H100_v5"))
    assert read_usage(data, "focus.csv").profile.gpu_hours == 16.0


def test_bad_quantity_on_gpu_row_named():
    with pytest.raises(IngestError, match=r"row 3, column 'ConsumedQuantity': expected a "
                                          r"quantity >= 0, got '-1'") as info:
        read_usage(focus(gpu_row(0), gpu_row(1, "-1")), "focus.csv")
    assert info.value.problems[0]["row"] == 3


def test_bad_time_on_gpu_row_named():
    with pytest.raises(IngestError, match=r"row 2, column 'ChargePeriodStart': cannot read "
                                          r"'yesterday'"):
        read_usage(focus(gpu_row(0, ChargePeriodStart="yesterday")), "focus.csv")


def test_no_gpu_rows():
    with pytest.raises(IngestError, match="no GPU instance usage found in this FOCUS 1.0 export"):
        read_usage(focus(gpu_row(0, usage_type="USE1-BoxUsage:m5.xlarge")), "focus.csv")


def test_missing_focus_column():
    data = b"ChargePeriodStart,ConsumedQuantity\n2026-03-01T00:00:00Z,1\n"
    with pytest.raises(IngestError, match="lacks the columns ChargePeriodEnd, ConsumedUnit"):
        read_usage(data, "focus.csv")


def test_daily_charge_periods():
    rows = [gpu_row(0, "24", ChargePeriodStart=f"2026-03-0{d}T00:00:00Z",
                    ChargePeriodEnd=f"2026-03-0{d + 1}T00:00:00Z") for d in (1, 2)]
    result = read_usage(focus(*rows), "focus.csv")
    assert result.profile.period == "day"
    assert_allclose(result.profile.steady, [192, 192])


def test_focus_in_a_workbook():
    rows = [COLUMNS] + [[gpu_row(h)[c] for c in COLUMNS] for h in range(3)]
    result = read_usage(xlsx({"focus": rows}), "focus.xlsx")
    assert result.summary["format"] == "focus"
    assert_allclose(result.profile.steady, [8, 8, 8])


def test_sample():
    result = read_usage((SAMPLES / "focus_sample.csv").read_bytes(), "focus_sample.csv")
    summary = result.summary
    # 48 h of: 1 p5.48xlarge (8 GPUs, on demand) + 2 p4d.24xlarge (16, committed) + spot g6e
    assert summary["pricing_categories"]["on_demand"] == 48 * 8
    assert summary["pricing_categories"]["committed"] == 48 * 16
    assert summary["pricing_categories"]["spot"] > 0
    assert summary["skipped_rows"] == 48 * 2 + 1          # m5 + S3 each hour, one tax row
    assert summary["periods"] == 48
    assert result.profile.teams["ml-research"] == 48 * 8
