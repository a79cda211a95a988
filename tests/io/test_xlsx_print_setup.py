"""The print scale rule of service/xlsx/print_setup.py (issue 25): fit a print area to its page
only while the text stays at 8 pt or more, else print at 75 %; what prints of the robust
plan, the Schedule and the key assumptions (issue 39, item 3)."""
from __future__ import annotations

import io
import re

import openpyxl
import pytest

from service.xlsx.print_setup import (FONT_SIZE, MIN_SCALE, PAGE_HEIGHT, PAGE_WIDTH,
                                      column_points, fit)
from service.xlsx.schedule_sheet import summary_schedule
from tests.support.xlsx_cases import case_plan, plan_workbook


def test_page_is_a4_landscape_less_the_margins():
    # 841.9 - 72 x (0.4 + 0.4) = 784.3 pt wide; 595.3 - 72 x (0.5 + 0.6) - 14 = 502.1 pt tall
    assert PAGE_WIDTH == pytest.approx(784.3)
    assert PAGE_HEIGHT == pytest.approx(502.1)
    assert FONT_SIZE * MIN_SCALE / 100 >= 8.0           # 11 pt x 75 % = 8.25 pt


@pytest.mark.parametrize("width, expected", [(14, 77.25), (12, 66.75), (34, 182.25)])
def test_column_width_in_points(width, expected):
    # XlsxWriter: int(7 w + 0.5) + 5 pixels; 14 -> 103 px -> 77.25 pt, 34 -> 243 px
    assert column_points(width) == pytest.approx(expected)


@pytest.mark.parametrize("width, height, pages, scale", [
    (784.0, 502.0, 1, None),      # fits at 100 %
    (900.0, 600.0, 1, None),      # min(784.3/900, 502.1/600) = 0.837: fit
    (900.0, 700.0, 1, 75),        # 502.1/700 = 0.717 < 0.75: print at 75 %, two pages
    (900.0, 700.0, 2, None),      # two pages tall: 1004.2/700 > 1, width 0.871: fit
    (2000.0, 100.0, 1, 75),       # 784.3/2000 = 0.39: too wide to fit readably
])
def test_fit_only_while_readable(width, height, pages, scale):
    assert fit(width, height, pages) == scale


# --- what prints of the robust plan, the Schedule and the key assumptions (issue 39, item 3)

def _cell(ws, ref: str):
    """The value of a same-sheet reference such as ``=$C$26``."""
    return ws[ref.lstrip("=").replace("$", "")].value


def _print_rows(ws) -> tuple[int, int]:
    first, last = str(ws.print_area).split("!")[1].replace("$", "").split(":")
    return int("".join(ch for ch in first if ch.isdigit())), int(
        "".join(ch for ch in last if ch.isdigit()))


@pytest.fixture(scope="module")
def robust_book():
    plan = case_plan("robust")
    return plan, openpyxl.load_workbook(io.BytesIO(plan_workbook(plan)))


def test_scenarios_sheet_prints_the_decisions_that_are_not_zero_and_not_the_grids(robust_book):
    plan, wb = robust_book
    ws = wb["Scenarios"]
    rows = {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value}
    head = rows["Decisions that are not zero, by demand scenario (each number reads its "
                "scenario's block below)"]
    assert [ws.cell(head + 1, c).value for c in range(1, 6)] == [
        "Month", "Decision", "low", "mid", "high"]
    table = {}
    for r in range(head + 2, head + 6):
        refs = [ws.cell(r, c).value for c in (3, 4, 5)]
        assert all(re.fullmatch(r"=\$[A-Z]+\$\d+", ref) for ref in refs)   # live: the grid's
        table[(ws.cell(r, 1).value, ws.cell(r, 2).value)] = [_cell(ws, ref) for ref in refs]
    # hand-read from the three blocks: 5 servers in 2027-01 and 1 in 2027-07 in every
    # scenario (decided now), then 8 or 32 GPUs committed for a year in 2028-01 and 2 more
    # servers in 2028-07 where demand grows fastest; all else in the grids is zero
    # (the servers are the one type's, `owned`: issue 36)
    assert table == {("2027-01", "Buy owned [servers]"): [5, 5, 5],
                     ("2027-07", "Buy owned [servers]"): [1, 1, 1],
                     ("2028-01", "Commit 1y [GPUs, 12 months]"): [0, 8, 32],
                     ("2028-07", "Buy owned [servers]"): [0, 0, 2]}
    assert ws.cell(head + 6, 1).value is None
    # the print area ends with that table: the grids (inputs the scenarios' sheets read) are
    # on screen under it, whole
    first, last = _print_rows(ws)
    assert (first, last) == (1, head + 5)
    blocks = [r for v, r in rows.items() if str(v).startswith("Decisions of scenario")]
    assert len(blocks) == 3 and min(blocks) > last
    assert ws.cell(blocks[0] + 1, 3).value == "Buy servers"       # the types' sum
    assert ws.cell(blocks[0] + 1, 7).value == "Buy owned [servers]"
    assert ws.cell(blocks[0] + 2, 7).value == 5
    # each scenario's sheet stays on screen (its print area one empty cell); its PV, total
    # and cost per GPU-hour print in the Scenarios table
    for q in plan.ledger.robust:
        sheet = wb[f"robust {q.name}"]
        area = str(sheet.print_area).split("!")[1].replace("$", "")
        used = max(c.column for row in sheet.iter_rows() for c in row if c.value is not None)
        assert ":" not in area and sheet[area].value is None and sheet[area].column > used


def test_schedule_prints_nothing_when_the_summary_says_it_in_sentences(robust_book):
    plan, wb = robust_book
    assert summary_schedule(plan.document) == "staged"
    ws = wb["Schedule"]
    area = str(ws.print_area).split("!")[1].replace("$", "")
    assert ":" not in area and ws[area].value is None
    first = plan.ledger.strategies["staged"].schedule_rows[0]
    assert ws["G7"].value == first.buy_by_type["owned"]          # on screen: the type's cell


@pytest.fixture(scope="module")
def fx_owned_plan():
    return case_plan("fx_owned_loan")


@pytest.mark.parametrize("lang, server, space, cloud", [
    ("en", "EUR per server", "EUR per kW-month of maximum power", "USD per GPU-hour"),
    ("ko", "서버당 EUR", "최대 전력 kW·월당 EUR", "GPU 시간당 USD")])
def test_key_assumptions_print_percents_and_units_in_the_market_currency(
        fx_owned_plan, lang, server, space, cloud):
    # FX_OWNED_LOAN: reported in USD, owned costs in EUR; discount rate 9 %, offer 1y 40 %
    book = openpyxl.load_workbook(io.BytesIO(plan_workbook(fx_owned_plan, lang=lang)))
    ws = book.worksheets[1]                     # Assumptions (가정)
    key = {ws.cell(r, 11).value: (ws.cell(r, 11), ws.cell(r, 12).value)
           for r in range(4, ws.max_row + 1) if ws.cell(r, 11).value}
    rate, unit = key["=finance_discount_rate_annual"]
    assert rate.number_format == "0%" and unit == ("per year" if lang == "en" else "연간")
    offer, unit = key["=commitments_1_discount"]
    assert offer.number_format == "0%"
    assert unit == ("of on-demand price" if lang == "en" else "온디맨드 가격 대비")
    assert key["=owned_server_price"][1] == server
    assert key["=owned_space_price_per_kw_month"][1] == space
    assert key["=on_demand_price_per_gpu_hour"][1] == cloud
    assert key["=fx_rate"][1] == ("USD per EUR" if lang == "en" else "EUR 1단위당 USD")
    units = [u for _c, u in key.values() if u]
    assert not [u for u in units if "currency" in u or "fraction" in u or "금액" in u]
    # an option prints as its word alone ("none option", "cash cash or loan" were printed)
    options = {formula: unit for formula, (_c, unit) in key.items()
               if not formula.removeprefix("=").isidentifier()}
    assert options and not any(options.values()), options
    # the unit column is wide enough for the longest unit (Carlito: a letter per character)
    assert ws.column_dimensions["L"].width >= max(len(u) for u in units)


def test_a_percent_with_hundredths_keeps_them():
    from service.xlsx.assumptions import percent_format
    fmt = {"key_percent": "0%", "key_percent_fine": "0.0#%"}
    assert [percent_format(fmt, v) for v in (0.1, 0.41, -0.1, 0.0825, 0.0)] == [
        "0%", "0%", "0%", "0.0#%", "0%"]
