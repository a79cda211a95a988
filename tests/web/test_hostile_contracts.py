"""Hostile FOCUS Contract Commitment files (issue 40, MEDIUM): 5 of 20 answered 500 (quantity
1e308 or NaN, cost 1e308, ids of 501 and 100,000 characters). Each is now refused by row and
column, or read with the commitment skipped and its reason, and nothing is saved; the page stays
small."""
from __future__ import annotations

import csv
import io

import pytest

from service.web.tables import Revision, UsageFile
from tests.support.client import count
from tests.support.ingest_fixtures import SAMPLES

CONTRACTS = SAMPLES / "focus_1.3_contract_commitment_sample.csv"


def variant(field: str, value: str) -> bytes:
    """The sample's first row with one field changed, as its only row."""
    lines = CONTRACTS.read_text().splitlines()
    columns = next(csv.reader([lines[0]]))
    row = next(csv.reader([lines[1]]))
    row[columns.index(field)] = value
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(columns)
    writer.writerow(row)
    return out.getvalue().encode()


CASES = {
    "quantity 1e308": ("ContractCommitmentQuantity", "1e308"),
    "quantity NaN": ("ContractCommitmentQuantity", "NaN"),
    "quantity inf": ("ContractCommitmentQuantity", "inf"),
    "quantity 1e20": ("ContractCommitmentQuantity", "1e20"),
    "cost 1e308": ("ContractCommitmentCost", "1e308"),
    "cost NaN": ("ContractCommitmentCost", "nan"),
    "id of 501 characters": ("ContractCommitmentId", "x" * 501),
    "id of 100,000 characters": ("ContractCommitmentId", "y" * 100_000),
}


@pytest.mark.parametrize("case", CASES)
def test_a_hostile_contract_file_is_answered_not_a_500(login, app, case):
    field, value = CASES[case]
    before = (count(app, UsageFile), count(app, Revision))
    response = login("ana").post("/scenarios/1/usage",
                                 {"usage": (io.BytesIO(variant(field, value)), "contracts.csv")},
                                 content_type="multipart/form-data")
    assert response.status_code in (200, 422), (case, response.status_code)
    html = response.get_data(as_text=True)
    assert len(html) < 200_000
    assert value[:2000] not in html or len(value) < 100
    assert (count(app, UsageFile), count(app, Revision)) == before


@pytest.mark.parametrize("case,column", [("quantity 1e308", "ContractCommitmentQuantity"),
                                         ("cost 1e308", "ContractCommitmentCost"),
                                         ("id of 100,000 characters", "ContractCommitmentId"),
                                         ("quantity 1e20", "ContractCommitmentQuantity")])
def test_the_refusal_names_the_row_and_column(login, case, column):
    field, value = CASES[case]
    response = login("ana").post("/scenarios/1/usage",
                                 {"usage": (io.BytesIO(variant(field, value)), "contracts.csv")},
                                 content_type="multipart/form-data")
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "row 2" in html and column in html, html[-3000:]


def test_a_contract_file_of_60000_rows_is_refused_at_once(login, app):
    lines = CONTRACTS.read_text().splitlines()
    body = "\n".join([lines[0]] + [lines[1].replace("CC-GCP-A3-1Y", f"CC-{i}")
                                    for i in range(60_000)]).encode()
    before = count(app, UsageFile)
    response = login("ana").post("/scenarios/1/usage",
                                 {"usage": (io.BytesIO(body), "contracts.csv")},
                                 content_type="multipart/form-data")
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "at most 2,000 rows" in html and len(html) < 200_000
    assert count(app, UsageFile) == before
