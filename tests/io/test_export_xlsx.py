"""The Excel plan: structure, safety, and recalculation by LibreOffice (issue 5).

The LibreOffice tests convert every workbook in one soffice run with a private profile set to
always recalculate, then compare each formula cell with the engine's number.
"""
from __future__ import annotations

import fcntl
import io
import math
import os
import pathlib
import re
import subprocess
import sys
import zipfile

import numpy as np
import openpyxl
import pytest
import xlsxwriter
from openpyxl.utils.escape import unescape

from models.capacity import schedule_plan
from models.costs import COST_LINES, CREDIT_LINES, START_OF_MONTH_LINES
from models.document import plan_document
from models.plan import build_context, compute_plan, proposed_strategy
from models.schedules import schedule_json
from models.profile import UsageProfile
from models.scenario import Decision, Scenario
from service.export_xlsx import plan_xlsx_bytes, safe_download_name, write_plan_xlsx
from service.xlsx.assumptions import defined_name, scenario_rows
from service.xlsx.libreoffice import recalculate, soffice
from service.xlsx.strategy_sheet import FIRST, TABLE_HEADER_ROW, LINE_TITLES
from tests.support.xlsx_cases import CASES, HOURLY, case, case_plan

REL, ABS = 1e-9, 1e-7
INJECTIONS = ('=HYPERLINK("http://x","y")', "@SUM(A1)", "+cmd|' /C calc'!A0", "-2+3",
              "\tTAB=1+1", "\r=1+1")
MONEY_HEADERS = {LINE_TITLES[k] for k in COST_LINES + CREDIT_LINES} | {
    "Total cost", "Cumulative cost", "Discounted cost", "Discounted cumulative cost",
    "Paid at month start", "Paid at month end (net of credits)"}


def close(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=REL, abs_tol=ABS)
    return a == b


def read_cells(path: pathlib.Path, data_only: bool) -> dict[tuple[str, str], object]:
    """(sheet, coordinate) -> value of every cell outside the (value-only) Profile sheet."""
    wb = openpyxl.load_workbook(path, read_only=True, data_only=data_only)
    out = {(ws.title, c.coordinate): c.value for ws in wb.worksheets if ws.title != "Profile"
           for row in ws.iter_rows() for c in row if c.value is not None}
    wb.close()
    return out


def formula_cells(path: pathlib.Path) -> list[tuple[str, str]]:
    return [key for key, value in read_cells(path, False).items()
            if isinstance(value, str) and value.startswith("=")]


def header_columns(ws) -> dict[str, int]:
    return {ws.cell(TABLE_HEADER_ROW + 1, c).value: c for c in range(1, ws.max_column + 1)
            if ws.cell(TABLE_HEADER_ROW + 1, c).value}


def set_assumption(path_in: pathlib.Path, path_out: pathlib.Path, field: str, value) -> None:
    wb = openpyxl.load_workbook(path_in)
    ws = wb["Assumptions"]
    for row in ws.iter_rows():
        if row[0].value == field:
            row[2].value = value
            break
    else:
        raise AssertionError(f"no Assumptions row {field}")
    wb.save(path_out)


def injected_plan():
    scenario = Scenario(name=INJECTIONS[0])
    base = case("W1")[1]
    profile = UsageProfile(base.period, base.starts, base.steady, base.interruptible,
                           teams={text: 1.0 for text in INJECTIONS})
    return compute_plan(scenario.model_copy(update={"finance": case("W1")[0].finance}), profile)


# Changed assumptions checked against the engine: (case, field, new value, scenario section).
CHANGES = [("W1", "owned.electricity_price_per_kwh", 0.15, "owned"),
           ("loan_tax_replacement", "on_demand.price_per_gpu_hour", 5.25, "on_demand"),
           # the exchange rate is an input cell: changing it re-prices every converted line
           ("fx_cloud_schedule", "fx.rate", 1500.0, "fx"),
           ("fx_owned_loan", "fx.rate", 1.2, "fx")]


# A Schedule cell edited: one more server bought in this month of the growth sample's staged
# plan (a quarter where the engine bought none).
EDIT_MONTH, EDIT_BUY = "2028-01", 1


def edit_schedule(path_in: pathlib.Path, path_out: pathlib.Path, month: str, more: int) -> None:
    wb = openpyxl.load_workbook(path_in)
    for row in wb["Schedule"].iter_rows():
        if row[0].value == month:
            row[2].value = (row[2].value or 0) + more
            break
    else:
        raise AssertionError(f"no Schedule row {month}")
    wb.save(path_out)


def write_and_recalculate(d: pathlib.Path, plans: dict) -> list[pathlib.Path]:
    files = []
    for name, plan in plans.items():
        files.append(d / f"{name}.xlsx")
        write_plan_xlsx(plan, files[-1])
    for name, field, value, _ in CHANGES:
        files.append(d / f"{name}-changed.xlsx")
        set_assumption(d / f"{name}.xlsx", files[-1], field, value)
    files.append(d / "growth-edited.xlsx")
    edit_schedule(d / "growth.xlsx", files[-1], EDIT_MONTH, EDIT_BUY)
    probe = d / "probe.xlsx"
    wb = xlsxwriter.Workbook(str(probe))
    ws = wb.add_worksheet()
    ws.write_number(0, 0, 2)
    ws.write_formula(0, 1, "=A1*21", None, 5)  # cached value deliberately wrong
    wb.close()
    files.append(probe)
    files.append(d / "injected.xlsx")
    write_plan_xlsx(injected_plan(), files[-1])
    recalculate(files, d / "recalculated")
    return files


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    """Every case exported, plus changed copies, a wrong-cache probe and an injection case,
    recalculated by one LibreOffice run (once per session, even under pytest-xdist)."""
    soffice()  # fails (not skips) when LibreOffice is missing
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent   # shared by the workers of one run
    d = base / "xlsx-recalculated"
    d.mkdir(exist_ok=True)
    plans = {name: case_plan(name) for name in CASES}
    with open(d / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = d / "done.txt"
        if done.exists():
            files = [d / line for line in done.read_text().split()]
        else:
            files = write_and_recalculate(d, plans)
            done.write_text("\n".join(f.name for f in files))
    return {"plans": plans, "src": {f.stem: f for f in files},
            "out": {f.stem: d / "recalculated" / f.name for f in files}}


@pytest.mark.libreoffice
def test_libreoffice_really_recalculates(recalculated):
    wb = openpyxl.load_workbook(recalculated["out"]["probe"], data_only=True)
    assert wb.active["B1"].value == 42  # not the stored 5


@pytest.mark.libreoffice
@pytest.mark.parametrize("name", CASES)
def test_every_formula_equals_engine_after_recalculation(recalculated, name):
    src, out = recalculated["src"][name], recalculated["out"][name]
    cached, recalc = read_cells(src, True), read_cells(out, True)
    cells = formula_cells(src)
    assert len(cells) > 1000
    wrong = [(key, cached.get(key), recalc.get(key)) for key in cells
             if not close(cached.get(key), recalc.get(key))]
    assert not wrong, wrong[:10]
    # ...and the cached values are the engine's numbers: check LibreOffice's against the plan.
    plan = recalculated["plans"][name]
    lo = openpyxl.load_workbook(out, data_only=True)
    summary = lo["Summary"]
    for name_, r in sheet_strategies(plan).items():
        ws = lo[name_]
        assert ws["B6"].value == pytest.approx(r.pv_cost, rel=REL)
        assert ws["B7"].value == pytest.approx(r.pv_cost, rel=REL)  # Excel NPV() route
        assert ws["B5"].value == pytest.approx(r.total_cost, rel=REL)
        assert ws["B9"].value == pytest.approx(r.cost_per_useful_gpu_hour, rel=REL)
        cols = header_columns(ws)
        for line in COST_LINES + CREDIT_LINES:
            got = [ws.cell(FIRST + 1 + m, cols[LINE_TITLES[line]]).value
                   for m in range(len(r.total_by_month))]
            np.testing.assert_allclose(got, r.lines[line], rtol=REL, atol=ABS, err_msg=line)
        got = [ws.cell(FIRST + 1 + m, cols["Discounted cumulative cost"]).value
               for m in range(len(r.total_by_month))]
        np.testing.assert_allclose(got, r.discounted_cumulative, rtol=REL, atol=ABS)
    rows = range(8, 8 + len(plan.strategies))
    pv = {summary.cell(r, 1).value: summary.cell(r, 5).value for r in rows}
    servers = {summary.cell(r, 1).value: summary.cell(r, 3).value for r in rows}
    assert set(pv) == set(plan.strategies)      # every strategy has a sheet the Summary reads
    for name_, r in sheet_strategies(plan).items():
        assert pv[name_] == pytest.approx(r.pv_cost, rel=REL)
        assert servers[name_] == r.servers


@pytest.mark.libreoffice
@pytest.mark.parametrize("name, field, value, section", CHANGES)
def test_changed_assumption_moves_money_as_the_engine_says(recalculated, name, field, value,
                                                           section):
    plan = recalculated["plans"][name]
    key = field.split(".", 1)[1]
    changed = plan.scenario.with_changes(**{section: {key: value}})
    ctx = build_context(changed, plan.profile)
    lo = openpyxl.load_workbook(recalculated["out"][f"{name}-changed"], data_only=True)
    moved = 0
    for name_, r in sheet_strategies(plan).items():
        # same capacity (a static decision, or the cohorts of a schedule), new prices
        expected = ctx.evaluate(name_, r.capacity if r.capacity is not None else r.plan)
        ws = lo[name_]
        assert ws["B6"].value == pytest.approx(expected.pv_cost, rel=REL)
        assert ws["B5"].value == pytest.approx(expected.total_cost, rel=REL)
        cols = header_columns(ws)
        for line in COST_LINES + CREDIT_LINES:
            got = [ws.cell(FIRST + 1 + m, cols[LINE_TITLES[line]]).value
                   for m in range(len(r.total_by_month))]
            np.testing.assert_allclose(got, expected.lines[line], rtol=REL, atol=ABS,
                                       err_msg=f"{name_} {line}")
        moved += not math.isclose(expected.pv_cost, r.pv_cost, rel_tol=1e-6)
    assert moved >= 1


# Cost lines a change of the schedule moves without touching the dispatch.
CASH_LINES = ("capex", "loan_payment", "maintenance", "space", "staff", "commitment_upfront",
              "commitment", "resale_credit", "tax_on_resale")


@pytest.mark.libreoffice
def test_editing_the_schedule_moves_the_staged_cash_as_the_engine_prices_it(recalculated):
    """One more server in a Schedule row: the staged sheet's lines and PV equal the engine's
    pricing of the edited schedule (models/capacity.schedule_plan, as proposed.schedule uses
    it) at the export's dispatch, to 1e-9. The engine costing the same schedule through
    proposed.schedule re-dispatches (the new server takes work from the cloud): its cash lines
    are the same to 1e-9, and the PVs differ by exactly what the dispatch changes."""
    plan = recalculated["plans"]["growth"]
    s, ctx, r = plan.scenario, plan.context, plan.strategies["staged"]
    by_month = {d.month: d for d in r.schedule}
    was = by_month.get(EDIT_MONTH, Decision(month=EDIT_MONTH))
    assert was.buy_servers == 0     # a quarter where the engine bought nothing
    by_month[EDIT_MONTH] = was.model_copy(update={"buy_servers": was.buy_servers + EDIT_BUY})
    edited = tuple(by_month[m] for m in sorted(by_month))
    cohorts = schedule_plan(s, edited, ctx.calendar.months[0], ctx.horizon, ctx.position,
                            r.plan.use_spot)
    lines, pv = ctx.price(cohorts, ctx.volumes(r.plan))      # the export's dispatch
    ws = openpyxl.load_workbook(recalculated["out"]["growth-edited"], data_only=True)["staged"]
    assert ws["B6"].value == pytest.approx(pv, rel=REL)
    assert ws["B6"].value > r.pv_cost + 1000                 # the purchase moved the PV
    cols = header_columns(ws)
    months = len(lines["capex"])
    for line in COST_LINES + CREDIT_LINES:
        got = [ws.cell(FIRST + 1 + m, cols[LINE_TITLES[line]]).value for m in range(months)]
        np.testing.assert_allclose(got, lines[line], rtol=REL, atol=ABS, err_msg=line)
    changed = s.with_changes(proposed={"schedule": schedule_json(edited)})
    engine = proposed_strategy(build_context(changed, plan.profile))
    for line in CASH_LINES:
        expected = np.zeros(months)
        expected[:len(engine.lines[line])] = engine.lines[line]
        np.testing.assert_allclose(lines[line], expected, rtol=REL, atol=ABS, err_msg=line)
    book = ctx.book
    dispatch_pv = sum(
        float(np.dot(lines[k][:months],
                     (book.start if k in START_OF_MONTH_LINES else book.end)[:months, 0]))
        * (-1 if k in CREDIT_LINES else 1) for k in COST_LINES + CREDIT_LINES
        if k not in CASH_LINES)
    engine_dispatch_pv = sum(
        float(np.dot(engine.lines[k], (book.start if k in START_OF_MONTH_LINES
                                       else book.end)[:len(engine.lines[k]), 0]))
        * (-1 if k in CREDIT_LINES else 1) for k in COST_LINES + CREDIT_LINES
        if k not in CASH_LINES)
    # tolerance: the workbook's 1e-9 of the PV (the difference itself is ~2 % of the PV)
    assert ws["B6"].value - engine.pv_cost == pytest.approx(dispatch_pv - engine_dispatch_pv,
                                                            abs=REL * pv)


@pytest.mark.libreoffice
def test_injected_text_stays_text_after_libreoffice(recalculated):
    for which in ("src", "out"):
        wb = openpyxl.load_workbook(recalculated[which]["injected"])
        assert wb["Summary"]["B2"].value == INJECTIONS[0]
        assert wb["Summary"]["B2"].data_type == "s"
        teams = {c.value: c.data_type for row in wb["Profile"].iter_rows(min_col=14, max_col=14)
                 for c in row if c.value is not None}
        # OOXML stores CR as _x000D_; openpyxl leaves the escape in place
        teams = {unescape(str(k)).replace("\r", "\n"): v for k, v in teams.items()}
        for text in INJECTIONS:
            assert teams.get(text.replace("\r", "\n")) == "s", (which, text, teams)


# --- Structure, without LibreOffice -------------------------------------------------------

@pytest.fixture(scope="module")
def h100():
    plan = case_plan("h100")
    data = plan_xlsx_bytes(plan)
    return plan, data, openpyxl.load_workbook(io.BytesIO(data))


def sheet_strategies(plan):
    """The strategies the workbook has a monthly sheet for: every one."""
    return dict(plan.strategies)


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
        assert ws.freeze_panes == f"B{FIRST + 1}"
        assert ws.page_setup.orientation == "landscape"
        assert ws.sheet_properties.pageSetUpPr.fitToPage
        assert ws.page_setup.fitToHeight == 0


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
    wb = openpyxl.load_workbook(io.BytesIO(plan_xlsx_bytes(plan, doc)))
    texts = [c.value for row in wb["Summary"].iter_rows() for c in row if c.value]
    assert "Buy one server: it pays back in 7 months." in texts
    assert "utilization / on_demand" in texts
    reasons = [c for row in wb["Summary"].iter_rows() for c in row if c.value == "=cmd"]
    assert reasons and reasons[0].data_type == "s"
    be = wb["Breakeven"]
    # the data behind the charts sits below the print area (charts and crossings on top)
    head = next(c for row in be.iter_rows() for c in row if c.value == "Hours used per year"
                and c.column == 1)
    assert be.cell(head.row + 2, 3).value == 13000
    assert head.row > int(be.print_area.rsplit("$", 1)[1])
    with zipfile.ZipFile(io.BytesIO(plan_xlsx_bytes(plan, doc))) as z:
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
    data = plan_xlsx_bytes(plan, doc)
    ws = openpyxl.load_workbook(io.BytesIO(data))["Sensitivity"]
    assert ws["A5"].value == "=Power price" and ws["A5"].data_type == "s"
    assert ws["H5"].value == 5.0
    cells = {c.value for row in ws.iter_rows() for c in row}
    assert {"Saving P90", 7.0, 0.6, "Draws"} <= cells
    doc.pop("uncertainty")
    assert "Sensitivity" not in openpyxl.load_workbook(
        io.BytesIO(plan_xlsx_bytes(plan, doc))).sheetnames


def test_injected_text_is_never_a_formula():
    data = plan_xlsx_bytes(injected_plan())
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
    done = subprocess.run([sys.executable, "-m", "service.cli", "plan", str(HOURLY),
                           "--xlsx", str(out)], capture_output=True, text=True,
                          cwd=pathlib.Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    wb = openpyxl.load_workbook(out, read_only=True)
    assert "Assumptions" in wb.sheetnames
    wb.close()


ALLOWED_FUNCTIONS = {"IF", "SUM", "MIN", "MAX", "INT", "MOD", "AND", "OR", "PMT", "FV", "NPV",
                     "SUMPRODUCT", "CHOOSE", "INDEX", "COUNT", "ISBLANK", "DATE", "YEAR",
                     "MONTH", "SUMIF", "VALUE", "LEFT", "MID"}


def test_formulas_use_only_classic_functions():
    """service.xlsx.cells.PlanWorksheet skips XlsxWriter's _xlfn. prefixing: that is only
    right while no formula calls a function introduced after Excel 2007."""
    for name in ("loan_tax_replacement", "W2", "schedule_loan_tax"):
        data = plan_xlsx_bytes(case_plan(name))
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            xml = "".join(z.read(n).decode() for n in z.namelist()
                          if n.startswith("xl/worksheets/") or n == "xl/workbook.xml")
        used = set(re.findall(r"([A-Z][A-Z0-9.]*)\(", " ".join(re.findall(r"<f>(.*?)</f>", xml))))
        assert used and used <= ALLOWED_FUNCTIONS, used - ALLOWED_FUNCTIONS


def test_cli_reports_an_unwritable_path(tmp_path):
    done = subprocess.run([sys.executable, "-m", "service.cli", "plan", "--xlsx",
                           str(tmp_path / "missing" / "plan.xlsx")], capture_output=True,
                          text=True, cwd=pathlib.Path(__file__).resolve().parents[2])
    assert done.returncode == 2
    assert "cannot write the workbook" in done.stderr and "Traceback" not in done.stderr
