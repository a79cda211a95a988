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


COHORT_MONEY = ("Price per server", "Install per server", "Capex basis per server",
                "Loan principal per server", "Level loan payment per server", "Upfront per GPU")


@pytest.mark.parametrize("name, rate", [("h100", "#,##0.00"), ("seoul", "#,##0.00")])
def test_cohort_tables_show_money_whole_even_where_a_formula_derives_it(books, name, rate):
    """A cohort's price per server is a formula over the Assumptions sheet (its hardware price
    trend): shaded as derived, yet in the money format (it was "General": 421234567.891 won
    and no thousands separators); a contract's rate per GPU-hour in its cloud currency."""
    seen: dict[str, set[str]] = {}
    for ws in books[name].worksheets:
        heads = [c.row for c in ws["A"] if c.value == "Cohort"]
        for head in heads:
            columns = {ws.cell(head, c).value: c for c in range(3, 20) if ws.cell(head, c).value}
            for r in range(head + 1, ws.max_row + 1):
                if not ws.cell(r, 1).value:
                    break
                for label, c in columns.items():
                    if label in COHORT_MONEY or label.startswith("Rate per GPU-hour"):
                        seen.setdefault(label, set()).add(ws.cell(r, c).number_format)
    assert seen.get("Price per server") == {MONEY}, seen
    assert {h: f for h, f in seen.items() if h in COHORT_MONEY and f != {MONEY}} == {}
    assert seen.get("Rate per GPU-hour, ex VAT") == {rate}, seen
