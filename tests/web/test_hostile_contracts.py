"""Hostile FOCUS Contract Commitment files (issue 40, MEDIUM): 5 of 20 answered 500 (quantity
1e308 or NaN, cost 1e308, ids of 501 and 100,000 characters). Each is now refused by row and
column, or read with the commitment skipped and its reason, and nothing is saved; the page stays
small."""
from __future__ import annotations

import csv
import html
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


# The rest of the corpus of 20 hostile files (issue 40, item 7): each is refused, 422, by row
# and column where it has one, in English and in Korean, and nothing is saved.
def whole(*rows: str) -> bytes:
    return "\n".join(rows).encode()


LINES = CONTRACTS.read_text().splitlines()
REFUSED = {
    # case: (file bytes, row, column)
    "quantity negative": (variant("ContractCommitmentQuantity", "-5"), 2,
                          "ContractCommitmentQuantity"),
    "quantity inf": (variant("ContractCommitmentQuantity", "inf"), 2,
                     "ContractCommitmentQuantity"),
    "cost negative": (variant("ContractCommitmentCost", "-1"), 2, "ContractCommitmentCost"),
    "cost inf": (variant("ContractCommitmentCost", "inf"), 2, "ContractCommitmentCost"),
    "cost not a number": (variant("ContractCommitmentCost", "abc"), 2,
                          "ContractCommitmentCost"),
    "id of 501 characters": (variant("ContractCommitmentId", "x" * 501), 2,
                             "ContractCommitmentId"),
    "id empty": (variant("ContractCommitmentId", ""), 2, "ContractCommitmentId"),
    "id repeated": (whole(LINES[0], LINES[1], LINES[1]), 3, "ContractCommitmentId"),
    "start not a date": (variant("ContractCommitmentPeriodStart", "not a date"), 2,
                         "ContractCommitmentPeriodStart"),
    "ends before it starts": (variant("ContractCommitmentPeriodEnd", "2020-01-01T00:00:00Z"),
                              2, "ContractCommitmentPeriodEnd"),
    "a header and no rows": ((LINES[0] + "\n").encode(), 1, None),
    "empty": (b"", None, None),
    "latin-1, not UTF-8": (variant("ContractCommitmentDescription", "caf\xe9").decode()
                           .encode("latin-1"), None, None),
    "UTF-16 without a byte-order mark": ("\n".join(LINES[:2]).encode("utf-16-le"), None,
                                         None),
    "2,001 rows": (whole(LINES[0], *(LINES[1].replace("CC-GCP-A3-1Y", f"CC-{i}")
                                     for i in range(2001))), None, None),
}
WORDS = {"a header and no rows": ("the file has a header but no data rows",
                                  "파일에 헤더만 있고 데이터 행이 없습니다"),
         "empty": ("the file is empty", "파일이 비어 있습니다"),
         "latin-1, not UTF-8": ("not UTF-8 text", "UTF-8"),
         "UTF-16 without a byte-order mark": ("binary data", "이진 데이터"),
         "2,001 rows": ("at most 2,000 rows", "최대 2,000행(약정 기간마다 한 행)입니다. 이 파일은 "
                                              "2,001행입니다")}


@pytest.mark.parametrize("case", REFUSED)
def test_each_hostile_contract_file_is_refused_by_row_and_column_in_both_languages(
        login, app, case):
    data, row, column = REFUSED[case]
    client = login("ana")
    before = (count(app, UsageFile), count(app, Revision))
    pages = {}
    for lang in ("en", "ko"):
        response = client.client.post("/scenarios/1/usage",
                                      data={"usage": (io.BytesIO(data), "contracts.csv"),
                                            "csrf_token": client.token()},
                                      content_type="multipart/form-data",
                                      headers={"Accept-Language": lang})
        assert response.status_code == 422, (case, lang, response.status_code)
        pages[lang] = html.unescape(response.get_data(as_text=True))
        assert len(pages[lang]) < 200_000
    english, korean = pages["en"], pages["ko"]
    if row is not None:
        place = f"row {row}, column '{column}'" if column else f"row {row}"
        assert place in english, (case, english[-3000:])
        assert (f"{row}행, '{column}' 열" if column else f"{row}행") in korean, korean[-3000:]
    if case in WORDS:
        assert WORDS[case][0] in english, english[-3000:]
        assert WORDS[case][1] in korean, korean[-3000:]
    assert "Nothing was saved" in english and "저장" in korean
    assert (count(app, UsageFile), count(app, Revision)) == before


def test_a_formula_in_a_contract_id_is_text_never_a_formula(login, app):
    """``=cmd|' /C calc'!A0`` as a commitment id is a label: shown as text on the page (read,
    nothing saved); every download escapes such a cell (service/plans/usage_download.py, the
    workbook's strings_to_formulas=False)."""
    value = "=cmd|' /C calc'!A0"
    before = (count(app, UsageFile), count(app, Revision))
    response = login("ana").post("/scenarios/1/usage",
                                 {"usage": (io.BytesIO(variant("ContractCommitmentId", value)),
                                            "contracts.csv")},
                                 content_type="multipart/form-data")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert value not in page and html.unescape(page).count(value) >= 1   # escaped, shown
    assert (count(app, UsageFile), count(app, Revision)) == before
