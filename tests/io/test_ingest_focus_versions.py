"""FOCUS 1.0-1.3: the version from the columns, committed / on demand / spot with commitment ids,
idle commitments, currencies, 1.3 ContractApplied and AllocatedTags; the real 1.0 sample."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from service.ingest import IngestError, focus_columns, read_usage
from tests.support.ingest_fixtures import SAMPLES

REAL = Path(__file__).resolve().parents[1] / "data" / "finops-focus-sample-data" / "FOCUS-1.0" / \
    "focus_sample.csv"


def sample(name: str):
    return read_usage((SAMPLES / name).read_bytes(), name)


def focus_csv(columns: list[str], rows: list[dict]) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, restval="")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


@pytest.mark.parametrize("extra, version", [
    ([], "1.0"),
    (["SkuMeter"], "1.0"),                                      # one added column promotes none
    (["SkuMeter", "ServiceSubcategory"], "1.1"),
    (["SkuMeter", "ServiceSubcategory", "InvoiceId", "PricingCurrency"], "1.2"),
    (["InvoiceId", "BillingAccountType", "ServiceProviderName", "HostProviderName"], "1.3"),
])
def test_version_from_columns(extra, version):
    found, _ = focus_columns.version(["ChargePeriodStart", "ConsumedQuantity"] + extra)
    assert found == version


def test_real_focus_1_0_sample():
    # FinOps Foundation sample (CC BY 4.0): AWS rows of 8 g5.4xlarge (1 A10G) instance-hours
    # totalling 6.283056, and 2 g3.4xlarge (1 M60) rows of 1 and 0.686667 hours.
    result = read_usage(REAL.read_bytes(), REAL.name)
    s = result.summary
    assert s["focus_version"] == "1.0"
    assert s["rows"] == 1000
    assert s["skipped_rows"] == 990
    assert_allclose(s["gpu_hours"], 6.283056 + 1 + 0.686667)
    assert s["providers"] == pytest.approx({"AWS": 6.283056 + 1.686667})
    assert s["gpu_cost"]["USD"]["on_demand"] > 0


def test_focus_1_1_sample():
    s = sample("focus_1.1_sample.csv").summary
    assert s["focus_version"] == "1.1"
    assert set(s["focus_columns"]["1.1"]) == set(focus_columns.ADDED["1.1"])
    assert s["pricing_categories"] == {"on_demand": 384.0, "committed": 192.0, "spot": 24.0}
    assert s["commitments"] == {"ri-g5-0001": 192.0}
    assert s["idle_capacity_reservation_cost"] == {"USD": pytest.approx(24 * 12.5)}
    assert s["teams"] == {"llm": 192.0, "vision": 192.0, "serving": 192.0, "(no team)": 24.0}


def test_focus_1_2_sample_currencies_and_idle_commitments():
    result = sample("focus_1.2_sample.csv")
    s = result.summary
    assert s["focus_version"] == "1.2" and s["period"] == "day"
    assert s["pricing_categories"] == pytest.approx({"on_demand": 224.0, "committed": 2688.0,
                                                     "spot": 70.0})
    # the A100 is priced in EUR (billed in USD): its cost stays in EUR
    assert s["gpu_cost"]["EUR"] == {"on_demand": pytest.approx(7 * 81.10)}
    assert s["price_per_gpu_hour"]["EUR"]["on_demand"] == pytest.approx(81.10 / 24)
    assert s["gpu_cost"]["USD"]["on_demand"] == pytest.approx(7 * 21.79)
    reservation = "/providers/Microsoft.Capacity/reservationOrders/6d2c/reservations/a1b2"
    assert s["commitments"] == {reservation: 2688.0}
    assert s["idle_commitment_cost"] == {"USD": pytest.approx(7 * 350)}
    assert s["idle_commitments"][reservation] == {"currency": "USD", "cost": 2450.0,
                                                 "gpu_hours": 7 * 6 * 8.0}
    assert any("idle commitment cost" in w for w in result.warnings)
    assert any("2 currencies (USD, EUR)" in w for w in result.warnings)
    # unused commitment hours are not usage
    assert_allclose(result.profile.steady + result.profile.interruptible, [426.0] * 7)


def test_focus_1_3_sample_contracts_and_allocation():
    result = sample("focus_1.3_sample.csv")
    s = result.summary
    assert s["focus_version"] == "1.3"
    assert s["pricing_categories"] == {"on_demand": 24.0, "committed": 480.0, "spot": 24.0}
    # H100 rows carry no CommitmentDiscountId: their commitment is the ContractApplied one
    assert s["commitments"] == {"CC-GCP-A3-1Y": 384.0, "cud-l4-1y": 96.0}
    assert s["contract_commitments"] == {"CC-GCP-A3-1Y": 384.0, "cud-l4-1y": 96.0}
    # AllocatedTags split the H100 charge 10/6; other rows keep their Tags team
    assert s["teams"] == {"llm": 240.0, "vision": 144.0, "platform": 144.0}
    assert s["providers"] == {"Google Cloud": 528.0}


def test_1_3_vcpu_rows_naming_the_machine_type_are_not_gpu_time():
    # an A3 "Instance Core" row names a3-highgpu-8g (8 GPUs) but is the VM's vCPUs
    s = sample("focus_1.3_sample.csv").summary
    assert s["gpu_hours"] == 528.0


COLUMNS = ["ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory", "ChargeDescription",
           "ConsumedQuantity", "ConsumedUnit", "PricingCategory", "CommitmentDiscountId",
           "CommitmentDiscountStatus", "BillingCurrency", "EffectiveCost", "PricingCurrency",
           "PricingCurrencyEffectiveCost", "InvoiceId", "BillingAccountType"]


def row(hour=0, **values):
    base = {"ChargePeriodStart": f"2026-03-01T{hour:02d}:00:00Z",
            "ChargePeriodEnd": f"2026-03-01T{hour + 1:02d}:00:00Z", "ChargeCategory": "Usage",
            "ChargeDescription": "p5.48xlarge", "ConsumedQuantity": "1", "ConsumedUnit": "Hours",
            "PricingCategory": "Standard", "BillingCurrency": "USD", "EffectiveCost": "55",
            "PricingCurrency": "USD", "PricingCurrencyEffectiveCost": "55",
            "InvoiceId": "INV1", "BillingAccountType": "Account"}
    base.update(values)
    return base


def test_pricing_currency_rows_keep_their_currency():
    data = focus_csv(COLUMNS, [row(), row(1, PricingCurrency="KRW",
                                          PricingCurrencyEffectiveCost="80000")])
    s = read_usage(data, "f.csv").summary
    assert s["gpu_cost"] == {"USD": {"on_demand": 55.0}, "KRW": {"on_demand": 80000.0}}
    assert s["price_per_gpu_hour"]["KRW"]["on_demand"] == 10000.0


def test_committed_usage_without_id_and_unused_commitments():
    data = focus_csv(COLUMNS, [
        row(PricingCategory="Committed"),
        row(PricingCategory="Committed", CommitmentDiscountId="sp-1",
            CommitmentDiscountStatus="Used"),
        row(PricingCategory="Committed", CommitmentDiscountId="sp-1",
            CommitmentDiscountStatus="Unused", ConsumedQuantity="", EffectiveCost="20",
            PricingCurrencyEffectiveCost="20")])
    s = read_usage(data, "f.csv").summary
    assert s["commitments"] == {"(no id)": 8.0, "sp-1": 8.0}
    assert s["idle_commitments"] == {"sp-1": {"currency": "USD", "cost": 20.0}}


def test_gpu_hours_and_seconds_units():
    data = focus_csv(COLUMNS, [
        row(ChargeDescription="Nvidia Tesla T4 GPU running in Americas", ConsumedUnit="seconds",
            ConsumedQuantity="7200"),
        row(ChargeDescription="p5.48xlarge", ConsumedUnit="GPU-Hours", ConsumedQuantity="3")])
    assert read_usage(data, "f.csv").summary["gpu_hours"] == 5.0


@pytest.mark.parametrize("bad, message", [
    ({"ChargePeriodStart": "not a time"}, r"row 2, column 'ChargePeriodStart': cannot read "
                                          r"'not a time' as a date-time"),
    ({"ConsumedQuantity": "-2"}, r"row 2, column 'ConsumedQuantity': expected a quantity >= 0, "
                                 r"got '-2'"),
    ({"ConsumedQuantity": "lots"}, r"row 2, column 'ConsumedQuantity': expected a quantity "
                                   r">= 0, got 'lots'"),
    ({"ConsumedQuantity": ""}, r"row 2, column 'ConsumedQuantity': missing quantity"),
    ({"ChargePeriodEnd": "NULL"}, r"row 2, column 'ChargePeriodEnd': missing date-time"),
])
def test_malformed_gpu_rows_named_by_row_and_column(bad, message):
    data = focus_csv(COLUMNS, [row(**bad), row(1)])
    with pytest.raises(IngestError, match=message) as info:
        read_usage(data, "f.csv")
    assert info.value.problems[0]["row"] == 2


def test_bad_cells_on_rows_that_are_not_gpu_usage_are_ignored():
    data = focus_csv(COLUMNS, [row(ChargeDescription="S3", ConsumedQuantity="lots"), row()])
    assert read_usage(data, "f.csv").summary["gpu_hours"] == 8.0


def test_broken_line_named_and_blank_lines_keep_row_numbers():
    text = focus_csv(COLUMNS, [row(), row(1)]).decode()
    lines = text.splitlines()
    broken = "\n".join(lines[:2] + [lines[2] + ",extra,fields"]) + "\n"
    with pytest.raises(IngestError, match=r"row 3.*fields"):
        read_usage(broken.encode(), "f.csv")
    blank = "\n".join(lines[:2] + ["", lines[2].replace(",1,Hours", ",-1,Hours")]) + "\n"
    with pytest.raises(IngestError, match=r"row 4, column 'ConsumedQuantity'"):
        read_usage(blank.encode(), "f.csv")


@pytest.mark.parametrize("name", ["focus_1.1_sample.csv", "focus_1.2_sample.csv",
                                  "focus_1.3_sample.csv"])
def test_missing_required_column_is_a_column_error(name):
    rows = list(csv.reader(io.StringIO((SAMPLES / name).read_text())))[:4]
    drop = rows[0].index("ConsumedUnit")
    out = io.StringIO()
    csv.writer(out).writerows([r[:drop] + r[drop + 1:] for r in rows])
    with pytest.raises(IngestError, match="lacks the columns ConsumedUnit") as info:
        read_usage(out.getvalue().encode(), name)
    assert info.value.problems[0]["row"] == 1


def test_same_column_twice_is_refused():
    data = focus_csv(COLUMNS + ["consumedunit"], [row()])
    with pytest.raises(IngestError, match="same column twice"):
        read_usage(data, "f.csv")


def test_contract_applied_forms():
    cells = [json.dumps({"Elements": [{"ContractCommitmentId": "a"}]}),
             json.dumps([{"ContractCommitmentID": "b"}]), "not json", ""]
    import pandas as pd
    assert list(focus_columns.contract_ids(pd.Series(cells, dtype="category"))) == \
        ["a", "b", "", ""]


def test_daily_and_hourly_profiles_sum_what_the_rows_say():
    result = sample("focus_1.3_sample.csv")
    assert result.profile.period == "hour"
    hourly = result.profile.steady + result.profile.interruptible
    assert_allclose(hourly[:12], 16 + 4 + 1 + 2)
    assert_allclose(hourly[12:], 16 + 4 + 1)
    assert np.all(result.profile.interruptible[:12] == 2)


@pytest.mark.parametrize("name", ["focus_1.2_sample.csv", "usage_daily.csv", "usage_sample.xlsx",
                                  "slurm_sacct_sample.txt", "usage_busy_sample.zip",
                                  "focus_1.3_contract_commitment_sample.csv"])
def test_large_files_are_mapped_and_read_alike(monkeypatch, name):
    import service.ingest as ingest
    from service.ingest import load_usage, read_upload
    expected = read_upload((SAMPLES / name).read_bytes(), name)
    monkeypatch.setattr(ingest, "MAP_FROM", 0)              # map every file
    if name.startswith("focus_1.3_contract"):
        with pytest.raises(IngestError, match="Contract Commitment dataset"):
            load_usage(SAMPLES / name)
        return
    assert load_usage(SAMPLES / name).summary == expected.summary
