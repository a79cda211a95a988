"""Number formats of the workbook follow the currency (issue 25): totals and monthly amounts
whole, prices per GPU-hour with the currency's ISO 4217 minor units (cents on dollars, none on
won), exchange rates with their four decimals whatever the currency."""
from __future__ import annotations

import io

import openpyxl
import pytest

from service.xlsx.cells import per_unit
from service.xlsx.strategy_sheet import ROLLUP, ROLLUP_FIRST, TABLE_HEADER_ROW
from service.xlsx.summary import TABLE_ROW
from tests.support.xlsx_cases import case_plan, plan_workbook

MONEY = "#,##0;-#,##0;-"     # whole, a zero printed as a dash


@pytest.mark.parametrize("currency, extra, pattern", [
    ("USD", 0, "#,##0.00"),      # 2 minor units: cents
    ("KRW", 0, "#,##0"),         # 0 minor units: won
    ("JPY", 0, "#,##0"),
    ("KWD", 0, "#,##0.000"),     # 3 minor units: fils
    ("USD", 2, "#,##0.0000"),    # a price per kWh: two decimals more
    ("KRW", 2, "#,##0.00"),
])
def test_price_per_unit_format_has_the_currency_minor_units(currency, extra, pattern):
    assert per_unit(currency, extra) == pattern


@pytest.fixture(scope="module")
def books():
    """The sample in dollars and the Seoul sample (won, its cloud in dollars)."""
    return {name: openpyxl.load_workbook(io.BytesIO(plan_workbook(case_plan(name))))
            for name in ("h100", "seoul")}


def _summary_formats(ws) -> dict[str, str]:
    row = TABLE_ROW + 2
    heads = {ws.cell(TABLE_ROW + 1, c).value: ws.cell(row, c).number_format
             for c in range(1, 14)}
    return {key: fmt for head, fmt in heads.items() for key in ("PV cost", "Total cost",
                                                                  "Cost per useful GPU-hour, "
                                                                  "levelized")
            if head and head.startswith(key)}


@pytest.mark.parametrize("name, rate", [("h100", "#,##0.00"), ("seoul", "#,##0")])
def test_summary_totals_are_whole_and_hourly_costs_follow_the_currency(books, name, rate):
    formats = _summary_formats(books[name]["Summary"])
    assert formats == {"PV cost": MONEY, "Total cost": MONEY,
                       "Cost per useful GPU-hour, levelized": rate}


@pytest.mark.parametrize("name", ["h100", "seoul"])
def test_strategy_sheet_amounts_are_whole_and_exchange_rates_keep_decimals(books, name):
    ws = books[name]["optimal"]
    heads = {ws.cell(TABLE_HEADER_ROW + 1, c).value: c for c in range(1, ws.max_column + 1)}
    first = TABLE_HEADER_ROW + 2
    assert ws.cell(first, heads["Total cost"]).number_format.startswith("#,##0;")
    assert ws.cell(first, heads["On demand"]).number_format == MONEY
    fx = [h for h in heads if h and h.startswith("Exchange rate, cloud prices")][0]
    assert ws.cell(first, heads[fx]).number_format == "#,##0.0000"
    total = ROLLUP_FIRST + 1 + [k for k, _h, _t in ROLLUP].index("total")
    assert ws.cell(total, 2).number_format.startswith("#,##0;")   # the roll-up: whole too
    assert ws["B9"].number_format == ("#,##0.00" if name == "h100" else "#,##0")  # per GPU-h
