"""The Excel plan (issue 5): sheets, defined names, formulas and values, charts, safety of text
and download names, the CLI writing it. Its recalculation by LibreOffice is in
tests/system/test_xlsx_recalculation.py.
"""
from __future__ import annotations

import io
import pathlib
import re
import subprocess
import sys
import zipfile

import numpy as np
import openpyxl
import pytest

from models.document import plan_document
from service.xlsx.export import safe_download_name
from service.xlsx.assumptions import scenario_rows
from service.xlsx.names import defined_name
from service.xlsx.strategy_sheet import FIRST, ROLLUP_LAST
from tests.support.xlsx_cases import (HOURLY, MONEY_HEADERS, case_plan, header_columns,
                                      injected_plan, plan_workbook, sheet_strategies)


# --- Structure, without LibreOffice -------------------------------------------------------

@pytest.fixture(scope="module")
def h100():
    plan = case_plan("h100")
    data = plan_workbook(plan)
    return plan, data, openpyxl.load_workbook(io.BytesIO(data))


def test_sheets_in_order(h100):
    plan, _, wb = h100
    extra = ["Sensitivity"] if plan.uncertainty is not None else []
    strategies = [s for name in plan.strategies
                  for s in (["Schedule", name] if name == "staged" else [name])]
    assert wb.sheetnames == ["Summary", "Assumptions", "Profile", *strategies, "Breakeven",
                             *extra]


def test_every_scenario_field_has_a_defined_name(h100):
    plan, _, wb = h100
    names = set(wb.defined_names)
    rows = scenario_rows(plan.scenario)
    assert {"owned_pue", "owned_electricity_price_per_kwh", "scenario_name",
            "commitments_1_discount", "owned_resale_fraction_by_year_2",
            "owned_resale_fraction_by_year", "proposed_committed_gpus_1y"} <= names
    for row in rows:
        assert defined_name(row.path) in names
    dumped = plan.scenario.model_dump()
    leaves = sum(1 for _ in _leaves(dumped)) - (0 if plan.scenario.owned.financing.kind ==
                                                "loan" else 0)
    assert len(rows) >= leaves


def _leaves(d):
    if isinstance(d, dict):
        for v in d.values():
            yield from _leaves(v)
    elif isinstance(d, (list, tuple)):
        for v in d:
            yield from _leaves(v)
    else:
        yield d


def test_money_columns_are_formulas_and_volumes_are_values(h100):
    plan, _, wb = h100
    for name in sheet_strategies(plan):
        ws = wb[name]
        cols = header_columns(ws)
        for header, c in cols.items():
            cell = ws.cell(FIRST + 1, c)
            if header in MONEY_HEADERS:
                assert cell.data_type == "f", (name, header)
            if header in ("Hours in month", "Owned [GPU-h]", "On demand [GPU-h]",
                          "Overhead [GPU-h]"):
                assert cell.data_type == "n", (name, header)
        assert ws.freeze_panes == "B1"      # the labels; the roll-up and the months scroll
        assert ws.page_setup.orientation == "landscape" and ws.page_setup.paperSize == 9
        # the figures and the yearly roll-up print (one page); the monthly table does not
        assert ws.print_area.endswith(f"${ROLLUP_LAST + 1}")
        assert FIRST > ROLLUP_LAST + 1
        assert ws.sheet_properties.pageSetUpPr.fitToPage
        assert ws.page_setup.fitToHeight in (None, 1)


def test_cached_values_are_the_engines(h100):
    plan, data, _ = h100
    wb = openpyxl.load_workbook(io.BytesIO(data), data_only=True)
    for name, r in sheet_strategies(plan).items():
        ws = wb[name]
        cols = header_columns(ws)
        got = [ws.cell(FIRST + 1 + m, cols["Total cost"]).value
               for m in range(len(r.total_by_month))]
        np.testing.assert_allclose(got, r.total_by_month, rtol=1e-15)
        assert ws["B6"].value == r.pv_cost


def test_charts_are_native(h100):
    plan, data, _ = h100
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        charts = [n for n in z.namelist() if n.startswith("xl/charts/chart")]
        xml = "".join(z.read(n).decode() for n in charts)
    assert len(charts) >= 3   # cumulative, stacked monthly, load duration (+ screening)
    assert "<c:lineChart>" in xml and 'c:grouping val="stacked"' in xml
    assert "<c:scatterChart>" in xml


def test_document_sections_are_used_when_present():
    plan = case_plan("W1")
    doc = plan_document(plan)
    doc.pop("uncertainty", None)   # its two charts are counted in the Sensitivity test
    doc.update({
        "breakeven": {"utilization": {"on_demand": 0.41, "1y": 0.7},
                      "payback_month": {"optimal": 7, "proposed": None},
                      "reasons": ["=cmd"]},
        "explanation": "Buy one server: it pays back in 7 months.",
        "charts": {"screening": {"hours_per_year": [0, 4380, 8760],
                                 "curves": {"owned": [50000, 55000, 60000],
                                            "on_demand": [0, 13000, 26000]},
                                 "crossings": [{"sources": ["owned", "on_demand"],
                                                "hours_per_year": 7000, "utilization": 0.8,
                                                "cost_per_gpu_year": 58000}]},
                   "load_duration": {"fraction_of_hours": [0.0, 0.5, 1.0],
                                     "gpus": [8, 6, 4], "levels": {"committed": 0, "owned": 7.76}}},
    })
    wb = openpyxl.load_workbook(io.BytesIO(plan_workbook(plan, doc)))
    texts = [c.value for row in wb["Summary"].iter_rows() for c in row if c.value]
    assert "Buy one server: it pays back in 7 months." in texts
    assert "utilization breakeven · on demand" in texts       # words, not the keys
    assert not any("utilization / on_demand" in str(x) for x in texts)
    reasons = [c for row in wb["Summary"].iter_rows() for c in row if c.value == "=cmd"]
    assert reasons and reasons[0].data_type == "s"
    be = wb["Breakeven"]
    # the data behind the charts sits below the print area (charts and crossings on top)
    head = next(c for row in be.iter_rows() for c in row if c.value == "Hours used per year"
                and c.column == 1)
    assert be.cell(head.row + 2, 3).value == 13000
    assert head.row > int(be.print_area.rsplit("$", 1)[1])
    with zipfile.ZipFile(io.BytesIO(plan_workbook(plan, doc))) as z:
        assert sum(n.startswith("xl/charts/chart") for n in z.namelist()) == 4


def test_sensitivity_sheet_holds_the_tornado_and_monte_carlo():
    plan = case_plan("W1")
    doc = plan_document(plan)
    doc["uncertainty"] = {
        "draws": 10, "judged": "optimal", "baseline": "cloud_only",
        "tornado_baseline": "on_demand", "saving_p10": -5.0, "saving_p50": 1.0,
        "saving_p90": 7.0, "saving_mean": 1.5, "probability_buy_cheaper": 0.6,
        "histogram": {"edges": [-10.0, 0.0, 10.0], "counts": [4, 6]},
        "tornado": [{"assumption": "power", "label": "=Power price", "unit": "per kWh",
                     "base": 0.08, "low": 0.05, "high": 0.2, "saving_low": 3.0,
                     "saving_high": -2.0, "swing": 5.0}]}
    data = plan_workbook(plan, doc)
    ws = openpyxl.load_workbook(io.BytesIO(data))["Sensitivity"]
    assert ws["A5"].value == "=Power price" and ws["A5"].data_type == "s"
    assert ws["H5"].value == 5.0
    cells = {c.value for row in ws.iter_rows() for c in row}
    assert {"Saving P90", 7.0, 0.6, "Draws"} <= cells
    doc.pop("uncertainty")
    assert "Sensitivity" not in openpyxl.load_workbook(
        io.BytesIO(plan_workbook(plan, doc))).sheetnames


def test_injected_text_is_never_a_formula():
    data = plan_workbook(injected_plan())
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        sheets = "".join(z.read(n).decode() for n in z.namelist()
                         if n.startswith("xl/worksheets/"))
        strings = z.read("xl/sharedStrings.xml").decode()
    formulas = " ".join(re.findall(r"<f>(.*?)</f>", sheets))
    assert "HYPERLINK" not in formulas and "cmd|" not in formulas  # no <f> with user text
    assert "HYPERLINK" not in re.sub(r"<oddFooter>.*?</oddFooter>", "", sheets)
    # the printed footer names the scenario as text (header/footer text is never evaluated)
    assert "HYPERLINK(&quot;http://x&quot;" in strings or 'HYPERLINK("http://x"' in strings


@pytest.mark.parametrize("name, revision, expected", [
    ("8x H100 vs AWS p5", 3, "buyrent-plan-8x-h100-vs-aws-p5-r3.xlsx"),
    ('=HYPERLINK("http://x","y")', None, "buyrent-plan-hyperlink-http-x-y.xlsx"),
    ("../../etc/passwd\r\nX-Header: 1", "a/b", "buyrent-plan-etc-passwd-x-header-1-ra-b.xlsx"),
    ("Café München", "", "buyrent-plan-cafe-munchen.xlsx"),
    ("", None, "buyrent-plan-scenario.xlsx"),
    ("日本語", 12, "buyrent-plan-scenario-r12.xlsx"),
])
def test_safe_download_name(name, revision, expected):
    got = safe_download_name(name, revision)
    assert got == expected
    assert re.fullmatch(r"[a-z0-9.-]+\.xlsx", got) and len(got) < 100


def test_cli_writes_the_workbook(tmp_path):
    out = tmp_path / "plan.xlsx"
    done = subprocess.run([sys.executable, "-m", "service.cli.main", "plan", str(HOURLY),
                           "--xlsx", str(out)], capture_output=True, text=True,
                          cwd=pathlib.Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    wb = openpyxl.load_workbook(out, read_only=True)
    assert "Assumptions" in wb.sheetnames
    wb.close()


ALLOWED_FUNCTIONS = {"IF", "SUM", "MIN", "MAX", "INT", "MOD", "AND", "OR", "PMT", "FV", "NPV",
                     "SUMPRODUCT", "CHOOSE", "INDEX", "COUNT", "ISBLANK", "DATE", "YEAR",
                     "MONTH", "SUMIF", "VALUE", "LEFT", "MID",
                     "EXP", "TANH"}   # Excel's since its first versions: the spot billing factor


def test_formulas_use_only_classic_functions():
    """service.xlsx.cells.PlanWorksheet skips XlsxWriter's _xlfn. prefixing: that is only
    right while no formula calls a function introduced after Excel 2007."""
    for name in ("loan_tax_replacement", "W2", "schedule_loan_tax"):
        data = plan_workbook(case_plan(name))
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            xml = "".join(z.read(n).decode() for n in z.namelist()
                          if n.startswith("xl/worksheets/") or n == "xl/workbook.xml")
        used = set(re.findall(r"([A-Z][A-Z0-9.]*)\(", " ".join(re.findall(r"<f>(.*?)</f>", xml))))
        assert used and used <= ALLOWED_FUNCTIONS, used - ALLOWED_FUNCTIONS


def test_cli_reports_an_unwritable_path(tmp_path):
    done = subprocess.run([sys.executable, "-m", "service.cli.main", "plan", "--xlsx",
                           str(tmp_path / "missing" / "plan.xlsx")], capture_output=True,
                          text=True, cwd=pathlib.Path(__file__).resolve().parents[2])
    assert done.returncode == 2
    assert "cannot write the workbook" in done.stderr and "Traceback" not in done.stderr


def test_a_fleet_of_several_server_types_gets_its_workbook():
    # issue 26: each server cohort is priced with its type's rows (tests/io/test_xlsx_fleet.py
    # reads them; tests/system/test_xlsx_recalculation.py recalculates them against the engine)
    plan = case_plan("generations")
    wb = openpyxl.load_workbook(io.BytesIO(plan_workbook(plan)), read_only=True)
    assert {"Assumptions", "Schedule", "staged"} <= set(wb.sheetnames)
    wb.close()