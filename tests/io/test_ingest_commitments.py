"""FOCUS 1.3 Contract Commitment dataset -> position.commitments records (issue 14's shape)."""
from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from service.ingest import (CommitmentError, IngestError, attach_commitments_to_scenario,
                            read_contracts, read_upload, read_usage, validate_commitment)
from service.ingest.commitment_record import months_between
from service.ingest.contract_commitments import ContractResult
from tests.support.ingest_fixtures import SAMPLES, xlsx

SAMPLE = SAMPLES / "focus_1.3_contract_commitment_sample.csv"
COLUMNS = ["BillingCurrency", "ContractCommitmentId", "ContractId", "ContractPeriodStart",
           "ContractPeriodEnd", "ContractCommitmentPeriodStart", "ContractCommitmentPeriodEnd",
           "ContractCommitmentDescription", "ContractCommitmentType",
           "ContractCommitmentCategory", "ContractCommitmentUnit",
           "ContractCommitmentQuantity", "ContractCommitmentCost"]


def dataset(*rows: dict) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, restval="")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def term(**values) -> dict:
    base = {"BillingCurrency": "USD", "ContractCommitmentId": "c1", "ContractId": "k",
            "ContractPeriodStart": "2026-01-01T00:00:00Z",
            "ContractPeriodEnd": "2027-01-01T00:00:00Z",
            "ContractCommitmentPeriodStart": "2026-01-01T00:00:00Z",
            "ContractCommitmentPeriodEnd": "2027-01-01T00:00:00Z",
            "ContractCommitmentDescription": "p5.48xlarge reserved instance, No Upfront",
            "ContractCommitmentType": "Reserved Instance", "ContractCommitmentCategory": "Usage",
            "ContractCommitmentUnit": "Hours", "ContractCommitmentQuantity": "8760",
            "ContractCommitmentCost": "210240"}
    base.update(values)
    return base


def test_sample_records_exactly():
    result = read_contracts(SAMPLE.read_bytes(), SAMPLE.name)
    assert isinstance(result, ContractResult)
    # hand-checked in samples/generate_focus.py: gpus = GPU-hours / period hours,
    # price = cost / (gpus x period hours)
    assert result.commitments == [
        {"id": "CC-GCP-A3-1Y", "gpus": 16, "start": "2026-06", "term_months": 12,
         "price_per_gpu_hour": pytest.approx(2.40), "payment": "none"},
        {"id": "cud-l4-1y", "gpus": 4, "start": "2026-03", "term_months": 12,
         "price_per_gpu_hour": pytest.approx(0.35), "payment": "none"},
        {"id": "CC-GCP-H100-3Y", "gpus": 8, "start": "2026-07", "term_months": 36,
         "price_per_gpu_hour": pytest.approx(2.10), "payment": "partial"},
        {"id": "CC-GCP-G2-1Y", "gpus": 6, "start": "2026-02", "term_months": 12,
         "price_per_gpu_hour": pytest.approx(0.50), "payment": "all"}]
    for record in result.commitments:
        assert validate_commitment(record) is record
        assert type(record["price_per_gpu_hour"]) is float
    reasons = {s["id"]: s["reason"] for s in result.skipped}
    assert reasons == {
        "CC-GCP-SPEND-2026": "a spend commitment (an amount of money, not GPUs)",
        "CC-GCP-STORAGE": "its unit 'GiB-Months' is not time",
        "CC-GCP-N2-1Y": "it names no GPU instance type or GPU SKU we know",
        "CC-GCP-A2-NOCOST": "it has no cost, so its price per GPU-hour is unknown"}
    assert [s["row"] for s in result.skipped] == [6, 7, 8, 9]
    assert result.warnings == ["1 commitment states no payment terms (cud-l4-1y): read as paid "
                               "monthly, no upfront"]
    details = {d["id"]: d for d in result.summary["details"]}
    assert details["CC-GCP-H100-3Y"]["currency"] == "EUR"
    assert details["CC-GCP-A3-1Y"]["instance"] == "a3-highgpu-8g"
    assert result.summary["gpus"] == 34
    assert result.summary["currencies"] == ["EUR", "USD"]


def test_upload_of_a_contract_file_is_not_usage():
    with pytest.raises(IngestError, match="Contract Commitment dataset: the commitments"):
        read_usage(SAMPLE.read_bytes(), SAMPLE.name)
    assert isinstance(read_upload(SAMPLE.read_bytes(), SAMPLE.name), ContractResult)
    with pytest.raises(IngestError, match="not a FOCUS 1.3 Contract Commitment dataset"):
        read_contracts((SAMPLES / "focus_1.3_sample.csv").read_bytes(), "focus.csv")


def test_contract_commitments_in_a_workbook():
    rows = list(csv.reader(io.StringIO(SAMPLE.read_text())))
    result = read_contracts(xlsx({"commitments": rows}), "contracts.xlsx")
    assert [c["id"] for c in result.commitments] == ["CC-GCP-A3-1Y", "cud-l4-1y",
                                                     "CC-GCP-H100-3Y", "CC-GCP-G2-1Y"]


@pytest.mark.parametrize("values, message", [
    ({"ContractCommitmentId": ""}, r"row 2, column 'ContractCommitmentId': missing commitment"),
    ({"ContractCommitmentPeriodStart": "soon"}, r"row 2, column "
                                                r"'ContractCommitmentPeriodStart': cannot read"),
    ({"ContractCommitmentPeriodEnd": "2025-06-01T00:00:00Z"}, r"row 2, column "
                                                              r"'ContractCommitmentPeriodEnd': "
                                                              r"the commitment period ends"),
    ({"ContractCommitmentCategory": "Both"}, r"column 'ContractCommitmentCategory': expected "
                                             r"Spend or Usage, got 'Both'"),
    ({"ContractCommitmentUnit": ""}, r"column 'ContractCommitmentUnit': a quantity needs"),
    ({"ContractCommitmentQuantity": "", "ContractCommitmentCost": ""},
     r"column 'ContractCommitmentCost': neither a quantity nor a cost"),
    ({"ContractCommitmentQuantity": "-5"}, r"column 'ContractCommitmentQuantity': expected a "
                                           r"quantity >= 0, got '-5'"),
    ({"ContractCommitmentCost": "free"}, r"column 'ContractCommitmentCost': expected a cost "
                                         r">= 0, got 'free'"),
])
def test_malformed_rows_named(values, message):
    with pytest.raises(IngestError, match=message) as info:
        read_contracts(dataset(term(**values)), "c.csv")
    assert info.value.problems[0]["row"] == 2


def test_duplicate_id_names_both_rows():
    with pytest.raises(IngestError, match=r"row 3, column 'ContractCommitmentId': commitment id "
                                          r"'c1' repeats row 2"):
        read_contracts(dataset(term(), term()), "c.csv")


def test_missing_column():
    text = SAMPLE.read_text().replace("ContractCommitmentCategory,", "Category,")
    with pytest.raises(IngestError, match="lacks the columns ContractCommitmentCategory"):
        read_contracts(text.encode(), "c.csv")


def test_rounding_to_whole_gpus_warns():
    # 8760 p5 hours (8 GPUs) over 2026 = 8 GPUs exactly; 9000 hours = 8.22 GPUs -> 8, warned
    result = read_contracts(dataset(term(), term(ContractCommitmentId="c2",
                                                 ContractCommitmentQuantity="9000")), "c.csv")
    assert [c["gpus"] for c in result.commitments] == [8, 8]
    assert result.commitments[0]["price_per_gpu_hour"] == pytest.approx(3.0)
    assert result.commitments[0]["payment"] == "none"
    assert any("c2: commits 8.22 GPUs on average over its term; read as 8" in w
               for w in result.warnings)


def test_payment_model_column_wins():
    data = dataset(term()).decode().splitlines()
    data[0] += ",ContractCommitmentPaymentModel"
    data[1] += ",All Upfront"
    result = read_contracts("\n".join(data).encode(), "c.csv")
    assert result.commitments[0]["payment"] == "all"


def test_fewer_than_one_gpu_is_skipped():
    result = read_contracts(dataset(term(ContractCommitmentQuantity="100")), "c.csv")
    assert result.commitments == []
    assert "fewer than one GPU" in result.skipped[0]["reason"]


@pytest.mark.parametrize("start, end, months", [
    ("2026-01-01", "2027-01-01", 12), ("2026-03-02", "2027-03-02", 12),
    ("2026-07-01", "2029-07-01", 36), ("2026-01-31", "2026-02-28", 1),
    ("2026-01-15", "2026-04-20", 3)])
def test_months_between(start, end, months):
    assert months_between(np.datetime64(start), np.datetime64(end)) == months


GOOD = {"id": "aws-3y", "gpus": 16, "start": "2025-07", "term_months": 36,
        "price_per_gpu_hour": 2.10, "payment": "none"}


@pytest.mark.parametrize("change, message", [
    ({"gpus": 0}, "gpus must be a whole number"), ({"gpus": 2.0}, "gpus must be a whole"),
    ({"gpus": True}, "gpus must be a whole"), ({"start": "2025-7"}, "start must be a month"),
    ({"start": "2025-13"}, "start must be a month"), ({"term_months": 0}, "term_months must"),
    ({"price_per_gpu_hour": 2}, "price_per_gpu_hour must be"),
    ({"price_per_gpu_hour": float("nan")}, "price_per_gpu_hour must be"),
    ({"payment": "upfront"}, "payment must be none, partial or all"), ({"id": ""}, "id must"),
])
def test_record_shape_is_checked(change, message):
    with pytest.raises(CommitmentError, match=message):
        validate_commitment(dict(GOOD, **change))


def test_record_keys_are_exact():
    assert validate_commitment(dict(GOOD, currency="USD")) == dict(GOOD, currency="USD")
    with pytest.raises(CommitmentError, match="currency must be an ISO 4217"):
        validate_commitment(dict(GOOD, currency="usd"))
    with pytest.raises(CommitmentError, match="exactly the keys"):
        validate_commitment(dict(GOOD, bank="x"))
    with pytest.raises(CommitmentError, match="exactly the keys"):
        validate_commitment({k: v for k, v in GOOD.items() if k != "payment"})


def test_attach_to_scenario_json():
    scenario = {"finance": {"horizon_months": 60},
                "position": {"servers": [{"count": 4}],
                             "commitments": [dict(GOOD), dict(GOOD, id="keep")]}}
    new = dict(GOOD, gpus=32)
    out = attach_commitments_to_scenario(scenario, [new, dict(GOOD, id="added")])
    assert out["position"]["commitments"] == [new, dict(GOOD, id="keep"),
                                              dict(GOOD, id="added")]
    assert out["position"]["servers"] == [{"count": 4}]
    assert out["finance"] == {"horizon_months": 60}
    assert scenario["position"]["commitments"][0]["gpus"] == 16     # the input is not changed
    assert attach_commitments_to_scenario({}, [GOOD]) == {"position": {"commitments": [GOOD]}}
    with pytest.raises(CommitmentError):
        attach_commitments_to_scenario({}, [dict(GOOD, gpus=-1)])
