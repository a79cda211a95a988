"""`buyrent variance ... --xlsx OUT.xlsx` (issue 43, variance-sheet): the Plan vs actual
workbook beside the table or the document, in the language asked for, its formulas' cached
values the engine's exact figures; a refusal writes no workbook. LibreOffice's recalculation
of the same sheet: tests/system/test_variance_sheet_recalc.py."""
from __future__ import annotations

import json
from decimal import Decimal

import openpyxl
import pytest

from tests.support.cli_plan import buyrent, demo_plan_document
from tests.support.paths import SAMPLES

ACTUALS = sorted((SAMPLES / "actuals").glob("focus_1.3_*.csv"))


@pytest.fixture(scope="module")
def demo_plan(tmp_path_factory):
    return demo_plan_document(tmp_path_factory.mktemp("plan"))


def test_the_cli_writes_the_workbook_in_korean(demo_plan, tmp_path):
    out = tmp_path / "variance.xlsx"
    done = buyrent("variance", "--plan", str(demo_plan), *map(str, ACTUALS), "--strategy",
                   "cloud_only", "--json", "--xlsx", str(out), "--lang", "ko")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)                     # the document is printed as before
    formulas = openpyxl.load_workbook(out).active
    cached = openpyxl.load_workbook(out, data_only=True).active
    assert formulas.title == "차이" and "plan.json" in formulas.cell(1, 1).value
    rows = {formulas.cell(r, 1).value: r for r in range(1, formulas.max_row + 1)}
    total = rows["총 차이(실적 - 계획)"]
    # months in columns C to H, the year to date in I; every part a formula
    assert [formulas.cell(6, c).value for c in range(3, 9)] == [m["month"]
                                                              for m in doc["months"]]
    assert str(formulas.cell(total, 9).value).startswith("=SUM(")
    volume = rows["물량(작업 증감)"]
    assert str(formulas.cell(volume, 3).value).startswith("=IF(")
    for column, entry in zip(range(3, 10), doc["months"] + [doc["ytd"]]):
        assert round(Decimal(str(cached.cell(total, column).value)) * 100) == \
            entry["total_cents"]


def test_a_refusal_writes_no_workbook(demo_plan, tmp_path):
    out = tmp_path / "variance.xlsx"
    late = tmp_path / "late.csv"
    late.write_text(ACTUALS[0].read_text().replace("2027-01-01T", "2040-01-01T").replace(
        "2027-02-01T", "2040-02-01T"))
    done = buyrent("variance", "--plan", str(demo_plan), str(late), "--xlsx", str(out))
    assert done.returncode == 2 and "2040-01 is not a month of the plan" in done.stderr
    assert not out.exists()
