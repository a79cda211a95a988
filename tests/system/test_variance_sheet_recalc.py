"""The Plan vs actual workbook's Variance sheet recalculated by LibreOffice headless (issue 43):
every part, the sum of the parts, the total, the plan and the actual of every month and of
the year to date equal the engine's exact figures (models/variance.py) to 1e-9 of a currency
unit, on the hand-checked case, on a case through every branch of the formulas (a year's end
included) and on the demo plan against the six sample bills (in Korean); and an actual edited
in the sheet moves the parts as the engine says, so the formulas are live.

The edge case by hand (tests/support/variance_sheet_cases.py)
-------------------------------------------------------------
2027-11: on demand plan 100 GPU-h for 400 (rate 4); spot 50 planned without GPU-hours (rate:
the rate paid, 45 / 30 = 1.5); 2 GPUs x 720 h committed for 1440 with none used (rate 1, the
plan's idle 1440, as planned). Q = 100, Q' = 150, mean rate 4: volume = 50 x 4 = 200; at plan
rates 120 x 4 + 30 x 1.5 = 525, mix = 525 - 600 = -75; price = 500 - 480 = 20; capex -1000;
resale credit 150 against 200: +50; other.spot -50. Plan 2690, actual 1835, total -855.
2027-12: no planned work (Q = 0): volume 0, mix = 10 x 4 = 40, storage +2, total 42.
2028-01: mean rate 850 / 350 = 17/7; volume 10 x 17/7 = 170/7; mix = 840 - 360 x 17/7 =
-240/7; price = (210 - 200) + (600 - 640) = -30; capex +1000; tax shield 25 against 30: +5;
total 965. 2028-02: on demand 5.5 x 33.3 = 183.15 against 150, total 33.15. Year to date
(2028-01 to 2028-02): 998.15.
"""
from __future__ import annotations

import json
import pathlib
from fractions import Fraction

import openpyxl
import pytest

from models.variance import MonthActuals, month_variance
from service.actuals import read_bills
from service.i18n import using_locale
from service.xlsx.libreoffice import recalculate
from service.xlsx.variance_sheet import variance_workbook
from tests.support.cli_plan import demo_plan_document
from tests.support.paths import SAMPLES
from tests.support.variance_cases import ACTUALS, PLAN
from tests.support.variance_sheet_cases import EDGE_ACTUALS, EDGE_PLAN

TOLERANCE = Fraction(1, 10**9)      # of a currency unit
BILLS = sorted((SAMPLES / "actuals").glob("focus_1.3_*.csv"))
EDITED = 700.0       # the hand case's January on-demand cost, 660 in the bills


def demo_cloud_only(directory: pathlib.Path) -> list[dict]:
    doc = json.loads(demo_plan_document(directory).read_text(encoding="utf-8"))
    return doc["strategies"]["cloud_only"]["monthly"]


def edited_hand_actuals() -> list[MonthActuals]:
    jan, feb = ACTUALS
    return [MonthActuals(jan.month, {**jan.costs, "on_demand": EDITED}, dict(jan.gpu_hours),
                         jan.idle_commitment_cost), feb]


@pytest.fixture(scope="module")
def sheets(tmp_path_factory):
    """Each case written, then all recalculated in one soffice run: case -> (layout, the
    recalculated sheet, the sheet as written, plan rows, actuals)."""
    d = tmp_path_factory.mktemp("variance-sheet")
    demo = demo_cloud_only(d)
    cases = {"hand": (PLAN, ACTUALS, "en"), "edge": (EDGE_PLAN, EDGE_ACTUALS, "en"),
             "demo": (demo, read_bills([str(p) for p in BILLS], "USD"), "ko")}
    layouts, files = {}, []
    for name, (plan, actuals, lang) in cases.items():
        with using_locale(lang):
            layouts[name] = variance_workbook(plan, actuals, "cloud_only", "USD", name,
                                              str(d / f"{name}.xlsx"))
        files.append(d / f"{name}.xlsx")
    # the January on-demand cost edited in the sheet: its formulas must follow
    wb = openpyxl.load_workbook(d / "hand.xlsx")
    layout = layouts["hand"]
    wb.active.cell(layout.rows["actual_line:on_demand"] + 1,
                   layout.columns["2027-01"] + 1).value = EDITED
    wb.save(d / "edited.xlsx")
    files.append(d / "edited.xlsx")
    layouts["edited"] = layout
    cases["edited"] = (PLAN, edited_hand_actuals(), "en")
    out = recalculate(files, d / "recalculated")
    return {name: (layouts[name], openpyxl.load_workbook(path, data_only=True).active,
                   cases[name][0], cases[name][1])
            for name, path in zip(cases, out)}


def engine(plan, actuals) -> tuple[list[dict], dict]:
    """The engine's exact months and year to date (models.variance: the year of the last
    month; its parts the sums of the months')."""
    rows = {r["month"]: r for r in plan}
    months = [month_variance(rows[a.month], a) for a in sorted(actuals, key=lambda a: a.month)]
    year = months[-1]["month"][:4]
    in_year = [m for m in months if m["month"][:4] == year]
    ytd = {k: sum((m[k] for m in in_year), Fraction(0)) for k in ("plan", "actual", "total")}
    ytd["parts"] = {p: sum((m["parts"][p] for m in in_year), Fraction(0))
                    for p in months[-1]["parts"]}
    return months, ytd


def compare(layout, ws, plan, actuals) -> tuple[int, Fraction]:
    """Every part, sum, total, plan and actual of the sheet against the engine; the count of
    cells compared and the largest difference."""
    months, ytd = engine(plan, actuals)
    columns = [(layout.columns[m["month"]], m) for m in months] + [(layout.columns["ytd"], ytd)]
    worst, compared = Fraction(0), 0
    for column, exact in columns:
        expected = {f"part:{p}": v for p, v in exact["parts"].items() if p in layout.parts}
        # the one part with no row is 0 by construction (service/xlsx/variance_sheet.NO_ROW)
        assert all(v == 0 for p, v in exact["parts"].items() if p not in layout.parts)
        expected.update(plan_total=exact["plan"], actual_total=exact["actual"],
                        total=exact["total"], parts_sum=exact["total"], check=Fraction(0))
        for key, value in expected.items():
            got = ws.cell(layout.rows[key] + 1, column + 1).value
            assert isinstance(got, (int, float)), (key, column, got)   # a number, no error
            diff = abs(Fraction(got) - value)
            assert diff <= TOLERANCE, (key, column, got, float(value))
            worst = max(worst, diff)
            compared += 1
    return compared, worst


@pytest.mark.parametrize("case", ["hand", "edge", "demo", "edited"])
def test_every_part_recalculated_equals_the_engine(sheets, case):
    layout, ws, plan, actuals = sheets[case]
    compared, worst = compare(layout, ws, plan, actuals)
    assert compared == (len(actuals) + 1) * (len(layout.parts) + 5)
    print(f"{case}: {compared} cells, largest difference {float(worst):.3g}")


def cell(sheets, case, key, column):
    layout, ws, _p, _a = sheets[case]
    return ws.cell(layout.rows[key] + 1, layout.columns[column] + 1).value


def test_the_hand_cases_figures_by_hand(sheets):
    """The docstrings' numbers (tests/engine/test_variance.py for the hand case)."""
    def near(case, key, column, value):
        assert abs(cell(sheets, case, key, column) - value) < 1e-9, (case, key, column)
    near("hand", "part:volume", "2027-01", -300 / 7)
    near("hand", "part:mix", "2027-01", 790 / 7)
    near("hand", "part:idle_commitments", "ytd", 140)
    near("hand", "total", "ytd", 320)
    near("edge", "part:mix", "2027-11", -75)
    near("edge", "part:timing.resale_credit", "2027-11", 50)
    near("edge", "part:other.spot", "2027-11", -50)
    near("edge", "total", "2027-11", -855)
    near("edge", "part:volume", "2027-12", 0)
    near("edge", "part:mix", "2027-12", 40)
    near("edge", "part:volume", "2028-01", 170 / 7)
    near("edge", "part:mix", "2028-01", -240 / 7)
    near("edge", "part:other.tax_shield", "2028-01", 5)
    near("edge", "total", "ytd", 998.15)
    # January's on-demand cost 660 -> 700 in the sheet: price 60 -> 100, total 240 -> 280
    near("edited", "part:price", "2027-01", 100)
    near("edited", "total", "2027-01", 280)
    near("edited", "total", "ytd", 360)


def test_as_planned_cells_are_formulas_over_the_plan_and_the_sheet_says_it_is_exact(sheets,
                                                                                  tmp_path):
    """A line the actuals do not give takes the plan's cell; the sheet says its parts are
    exact and the service rounds them by cumulative rounding; Korean words in Korean."""
    path = tmp_path / "edge.xlsx"
    with using_locale("en"):
        layout = variance_workbook(EDGE_PLAN, EDGE_ACTUALS, "cloud_only", "USD", "edge", path)
    ws = openpyxl.load_workbook(path).active
    storage = ws.cell(layout.rows["actual_line:storage"] + 1, layout.columns["2028-02"] + 1)
    assert storage.value == f"={storage.column_letter}{layout.rows['plan_line:storage'] + 1}"
    idle = ws.cell(layout.rows["actual_idle"] + 1, layout.columns["2028-02"] + 1).value
    assert idle.startswith("=") and str(layout.rows["plan_idle"] + 1) in idle
    notes = " ".join(str(ws.cell(r, 1).value) for r in range(1, 5))
    assert "exactly" in notes and "cumulative rounding" in notes
    _l, ko, _p, _a = sheets["demo"]
    assert ko.title == "차이"
    words = " ".join(str(ko.cell(r, 1).value) for r in range(1, 5))
    assert "누적 반올림" in words and "계획 대비 실적" in words
