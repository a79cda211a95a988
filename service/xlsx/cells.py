"""Cell helpers shared by every sheet: formats, safe text, column letters."""
from __future__ import annotations

import re
from typing import Any

from xlsxwriter.utility import xl_col_to_name
from xlsxwriter.worksheet import Worksheet
from service.i18n import DEFAULT, current_locale
from service.i18n.labels import strategy_label

FORMATS = {
    "title": {"bold": True, "font_size": 14},
    "bold": {"bold": True},
    "header": {"bold": True, "text_wrap": True, "valign": "top", "bg_color": "#DDEBF7",
               "border": 1},
    "group": {"bold": True, "italic": True, "font_color": "#44546A"},
    "note": {"italic": True, "font_color": "#595959", "text_wrap": True, "valign": "top"},
    "text": {},
    "wrap": {"text_wrap": True, "valign": "top"},
    "money": {"num_format": "#,##0.00"},
    "money_bold": {"num_format": "#,##0.00", "bold": True},
    "rate": {"num_format": "0.0000"},
    "hours": {"num_format": "#,##0.00"},
    "int": {"num_format": "0"},
    "number": {"num_format": "General"},
    "fraction": {"num_format": "0.000000"},
    "percent": {"num_format": "0.00%"},
    "date": {"num_format": "yyyy-mm-dd"},
    "datetime": {"num_format": "yyyy-mm-dd hh:mm"},
    "input": {"bg_color": "#FFF2CC", "border": 1, "num_format": "General"},
    "derived": {"bg_color": "#E2EFDA", "num_format": "General"},
}


def make_formats(workbook) -> dict[str, Any]:
    return {name: workbook.add_format(spec) for name, spec in FORMATS.items()}


def col(index: int) -> str:
    return xl_col_to_name(index)


def write_text(ws, row: int, column: int, value: Any, fmt=None) -> None:
    """Write any text as a string cell, never as a formula, URL or number.

    Text from users (scenario names, team names, offer ids, file names) may start with
    = + - @ tab or CR; write_string stores it verbatim as a shared string, so no spreadsheet
    program evaluates it.
    """
    ws.write_string(row, column, "" if value is None else str(value), fmt)


def write_value(ws, row: int, column: int, value: Any, fmt=None) -> None:
    """A scenario value: number, boolean, blank (None) or text, each with its own writer."""
    if value is None:
        ws.write_blank(row, column, None, fmt)
    elif isinstance(value, bool):
        ws.write_boolean(row, column, value, fmt)
    elif isinstance(value, (int, float)):
        ws.write_number(row, column, value, fmt)
    else:
        write_text(ws, row, column, value, fmt)


def sheet_ref(sheet: str, cell: str) -> str:
    """'Sheet'!$A$1 with the sheet name quoted (quotes doubled)."""
    return "'" + sheet.replace("'", "''") + "'!" + cell


class PlanWorksheet(Worksheet):
    """A worksheet that stores formulas as given.

    XlsxWriter runs about 30 regular expressions over every formula to prefix dynamic-array
    functions with _xlfn.; the plan's formulas use none of them (tests/io/test_export_xlsx.py
    checks every function name), and skipping the scan halves the time to write a plan.
    """

    def _prepare_formula(self, formula, expand_future_functions=False):
        return formula[1:] if formula.startswith("=") else formula


def strategy_sheet_name(name: str) -> str:
    """A strategy's sheet: its key in English workbooks (formulas and tests read those), its
    label in the reader's language otherwise (at most 31 characters, none of []:*?/\\)."""
    if current_locale() == DEFAULT:
        return name
    return re.sub(r"[\[\]:*?/\\]", " ", strategy_label(name))[:31]


def add_sheet(workbook, name: str):
    return workbook.add_worksheet(name, worksheet_class=PlanWorksheet)
