"""Cell helpers shared by every sheet: formats, safe text, column letters."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from babel.numbers import get_currency_precision
from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell_fast
from xlsxwriter.worksheet import CellFormulaTuple, Worksheet
from service.i18n import DEFAULT, current_locale
from service.i18n.labels import strategy_label

FORMATS = {
    "title": {"bold": True, "font_size": 14, "valign": "top"},
    "bold": {"bold": True, "valign": "top"},
    "header": {"bold": True, "text_wrap": True, "valign": "top", "bg_color": "#DDEBF7",
               "border": 1},
    "header_right": {"bold": True, "text_wrap": True, "valign": "top", "align": "right",
                     "bg_color": "#DDEBF7", "border": 1},
    "group": {"bold": True, "italic": True, "font_color": "#44546A", "valign": "top"},
    "bold_wrap": {"bold": True, "text_wrap": True, "valign": "top"},
    "right": {"align": "right", "valign": "top"},
    "percent_left": {"num_format": "0.00%", "align": "left", "valign": "top"},
    "note": {"italic": True, "font_color": "#595959", "text_wrap": True, "valign": "top"},
    "text": {"valign": "top"},
    "wrap": {"text_wrap": True, "valign": "top"},
    # money: totals and monthly amounts whole, per-hour prices ("rate") with the minor
    # units of their currency (make_formats); a zero prints as a dash
    "money": {"num_format": "#,##0;-#,##0;-", "valign": "top"},
    "money_bold": {"num_format": "#,##0;-#,##0;-", "bold": True, "valign": "top"},
    "rate": {"num_format": "#,##0.00", "valign": "top"},
    "rate_cloud": {"num_format": "#,##0.00", "valign": "top"},
    "unit_price": {"num_format": "#,##0.0000", "valign": "top"},
    "fx": {"num_format": "#,##0.0000", "valign": "top"},
    "hours": {"num_format": "#,##0.00", "valign": "top"},
    "count": {"num_format": "#,##0;-#,##0;-", "valign": "top"},
    "int": {"num_format": "0", "valign": "top"},
    "number": {"num_format": "General", "valign": "top"},
    "fraction": {"num_format": "0.000000", "valign": "top"},
    "percent": {"num_format": "0.00%", "valign": "top"},
    "date": {"num_format": "yyyy-mm-dd", "valign": "top"},
    "datetime": {"num_format": "yyyy-mm-dd hh:mm", "valign": "top"},
    "input": {"bg_color": "#FFF2CC", "border": 1, "num_format": "General", "valign": "top"},
    "input_percent": {"bg_color": "#FFF2CC", "border": 1, "num_format": "0.00%",
                      "valign": "top"},
    "key_number": {"num_format": "#,##0.####", "align": "right", "valign": "top"},
    "key_text": {"align": "right", "valign": "top"},
    # a fraction among the key assumptions, printed as the percent it is
    "key_percent": {"num_format": "0%", "align": "right", "valign": "top"},
    "key_percent_fine": {"num_format": "0.0#%", "align": "right", "valign": "top"},
    "derived": {"bg_color": "#E2EFDA", "num_format": "General", "valign": "top"},
}

# the number formats a derived cell can take (make_formats: "derived_<name>")
DERIVED = ("money", "rate", "rate_cloud", "hours", "int", "fraction")


def decimals(currency: str) -> int:
    """The minor units of ``currency`` (ISO 4217, through CLDR): 2 for USD, 0 for KRW and JPY,
    3 for KWD."""
    return get_currency_precision(currency)


def per_unit(currency: str, extra: int = 0) -> str:
    """The number format of a price per unit in ``currency``: its minor units (cents on a
    dollar price per GPU-hour, none on won), plus ``extra`` decimals."""
    digits = decimals(currency) + extra
    return "#,##0" + ("." + "0" * digits if digits else "")


def make_formats(workbook, currency: str = "USD", cloud_currency: str | None = None
                 ) -> dict[str, Any]:
    """The workbook's formats; prices per GPU-hour follow the reporting currency (``rate``)
    and the cloud market's own currency (``rate_cloud``: a contract's rate before
    conversion), prices per kWh keep two decimals more."""
    specs = {**FORMATS, "rate": {"num_format": per_unit(currency), "valign": "top"},
             "rate_cloud": {"num_format": per_unit(cloud_currency or currency),
                            "valign": "top"},
             "unit_price": {"num_format": per_unit(currency, 2), "valign": "top"}}
    # a derived cell (a formula over the inputs, shaded) in the number format of what it
    # holds: a cohort's price per server is money, whole like every amount, not "General"
    # with its decimals (derived_money, derived_rate_cloud, ...)
    specs.update({f"derived_{name}": {**specs[name], "bg_color": FORMATS["derived"]["bg_color"]}
                  for name in DERIVED})
    return {name: workbook.add_format(spec) for name, spec in specs.items()}


@lru_cache(maxsize=None)
def col(index: int) -> str:
    """Column letters of a 0-based index; cached: a plan's sheets ask for the same few hundred
    columns about 400,000 times (issue 38)."""
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


# XlsxWriter's version whose private formula writers PlanWorksheet replaces; the tests
# (tests/io/test_xlsx_writer_speed.py) pin the replaced methods' source to this version and
# compare the XML PlanWorksheet writes with XlsxWriter's own, byte for byte
XLSXWRITER_VERSION = "3.3.1"


def _data(text):
    """XlsxWriter's XMLwriter._escape_data: & < > escaped in text; anything else as it is
    (XlsxWriter scans for any of "&<>\n with a regular expression first: the same result)."""
    if isinstance(text, str) and ("&" in text or "<" in text or ">" in text):
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text


class PlanWorksheet(Worksheet):
    """A worksheet that stores formulas as given and writes them out with less work.

    XlsxWriter runs about 30 regular expressions over every formula to prefix dynamic-array
    functions with _xlfn.; the plan's formulas use none of them (tests/io/test_export_xlsx.py
    checks every function name), and skipping the scan halves the time to write a plan.
    For the same reason the dynamic-array check of ``_write_formula`` (one regular-expression
    search of each formula for ~40 function names: 16 % of a demo plan's workbook job, issue
    38) is left out, and a formula cell with a format and a number as its cached value (nearly
    every cell of a plan) is written in one f-string, the same bytes as ``_write_cell``.
    """

    def _prepare_formula(self, formula, expand_future_functions=False):
        return formula[1:] if formula.startswith("=") else formula

    def _write_formula(self, row, col, formula, cell_format=None, value=0):
        # Worksheet._write_formula of XlsxWriter 3.3.1 without its re_dynamic_function search
        if self._check_dimensions(row, col):
            return -1
        if formula is None or formula == "":
            return super()._write_formula(row, col, formula, cell_format, value)  # its warning
        if formula.startswith("{") and formula.endswith("}"):
            return self._write_array_formula(row, col, row, col, formula, cell_format, value)
        formula = self._prepare_formula(formula)
        if self.constant_memory and row > self.previous_row:
            self._write_single_row(row)
        self.table[row][col] = CellFormulaTuple(formula, cell_format, value)
        return 0

    def write_formula_rows(self, first_row, first_col, formulas, formats, values) -> None:
        """Formulas in a block of cells: ``formulas[i][j]`` at (first_row + i, first_col + j)
        in format ``formats[j]`` caching ``values[i][j]``; what write_formula of each cell
        stores, with the block's bounds checked once (a plan writes ~170,000 formulas in such
        blocks: its monthly columns and cohort columns, issue 38)."""
        if not formulas or not formulas[0]:
            return
        last_row, last_col = first_row + len(formulas) - 1, first_col + len(formulas[0]) - 1
        if self.constant_memory or self._check_dimensions(first_row, first_col) \
                or self._check_dimensions(last_row, last_col):
            raise ValueError(f"cannot write a formula block at ({first_row}, {first_col})")
        table = self.table
        for i, (line, cached) in enumerate(zip(formulas, values, strict=True)):
            cells = table[first_row + i]
            for j, (formula, cell_format, value) in enumerate(
                    zip(line, formats, cached, strict=True)):
                if not formula or formula[0] == "{":   # write_formula's own warning or array
                    self._write_formula(first_row + i, first_col + j, formula, cell_format,
                                        value)
                else:
                    cells[first_col + j] = CellFormulaTuple(
                        formula[1:] if formula[0] == "=" else formula, cell_format, value)

    def _write_cell(self, row, col, cell):
        # Worksheet._write_cell's formula branch for a formatted cell caching a number: the
        # attributes r and s (a cell reference and an index: nothing to escape), the formula
        # escaped, the number as str() writes it; every other cell goes the usual way
        if cell.__class__ is CellFormulaTuple and cell.format is not None \
                and cell.value.__class__ in (float, int):
            self.fh.write(f'<c r="{xl_rowcol_to_cell_fast(row, col)}" '
                          f's="{cell.format._get_xf_index()}"><f>{_data(cell.formula)}</f>'
                          f"<v>{cell.value}</v></c>")
        else:
            super()._write_cell(row, col, cell)


def strategy_sheet_name(name: str) -> str:
    """A strategy's sheet: its key in English workbooks (formulas and tests read those), its
    label in the reader's language otherwise (at most 31 characters, none of []:*?/\\)."""
    if current_locale() == DEFAULT:
        return name
    return re.sub(r"[\[\]:*?/\\]", " ", strategy_label(name))[:31]


def add_sheet(workbook, name: str):
    return workbook.add_worksheet(name, worksheet_class=PlanWorksheet)
