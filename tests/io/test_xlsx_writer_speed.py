"""The plan's worksheets write formulas faster than XlsxWriter's own path (issue 38) and the
same bytes: service.xlsx.cells.PlanWorksheet replaces three private XlsxWriter methods, pinned
here to the XlsxWriter version they were copied from."""
from __future__ import annotations

import hashlib
import inspect
import io
import zipfile

import xlsxwriter
import xlsxwriter.worksheet
from xlsxwriter.worksheet import Worksheet
from xlsxwriter.xmlwriter import XMLwriter

from service.xlsx.cells import XLSXWRITER_VERSION, PlanWorksheet, col

# sha256 (first 16 hex digits) of each replaced method's source in XlsxWriter 3.3.1; a new
# XlsxWriter changes one of them: read its change, carry it into PlanWorksheet, pin it again
PINNED = {
    "Worksheet._write_formula": (Worksheet._write_formula, "64ca483eea19cd9b"),
    "Worksheet._write_cell": (Worksheet._write_cell, "31d1fc8c46bdc681"),
    "XMLwriter._xml_formula_element": (XMLwriter._xml_formula_element, "af6f3ff0741a3ae7"),
}


def test_the_replaced_methods_are_xlsxwriters_pinned_version():
    assert xlsxwriter.__version__ == XLSXWRITER_VERSION
    for name, (method, digest) in PINNED.items():
        source = inspect.getsource(method)
        assert hashlib.sha256(source.encode()).hexdigest()[:16] == digest, name


def _sheet_xml(worksheet_class, monkeypatch=None) -> bytes:
    buffer = io.BytesIO()
    wb = xlsxwriter.Workbook(buffer, {"in_memory": True})
    money = wb.add_format({"num_format": "#,##0;-#,##0;-"})
    bold = wb.add_format({"bold": True})
    ws = wb.add_worksheet("Plan", worksheet_class=worksheet_class)
    ws.set_row(7, None, bold)        # a row format: a formula cell without its own takes it
    ws.set_column(3, 3, 12, money)   # a column format, likewise
    cells = [
        ("=SUM($B$44:$B$103)", money, 1234.5),
        ("=IF(A1>0,A1/B1,\"-\")", money, "-"),          # text result: t="str"
        ("=IF(A1<B1,1,0)&\"a<b\"", money, 0),            # < > & escaped, an int cached
        ("=A1>=B1", money, True),                        # a boolean result: t="b"
        ("=1/0", money, "#DIV/0!"),                      # an error result: t="e"
        ("=A1", money, ""),                               # blank result
        ("=A1*2", None, 3.25),                            # no format
        ("=B2", money, 1e-17),                            # repr of a small float
        ("=B3", money, -0.0),
        ("=B4", money, 12345678901234567890.0),
        ("B5+1", money, 2.0),                             # without its "="
    ]
    for i, (formula, fmt, value) in enumerate(cells):
        ws.write_formula(i, 1, formula, fmt, value)
        ws.write_formula(7, 2 + i, formula, None, value)     # the row's format
        ws.write_formula(20 + i, 3, formula, None, value)    # the column's format
    ws.write_number(30, 0, 2.5, money)
    ws.write_string(30, 1, "=text & <more>", bold)
    wb.close()
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as z:
        return z.read("xl/worksheets/sheet1.xml")


def test_a_plan_worksheet_writes_the_same_xml_as_xlsxwriter():
    assert _sheet_xml(PlanWorksheet) == _sheet_xml(Worksheet)


def test_a_plan_worksheet_does_not_scan_formulas_for_dynamic_arrays(monkeypatch):
    # the scan is one regular-expression search of every formula (16 % of a plan's workbook
    # job): XlsxWriter's own worksheet runs it, the plan's does not
    class Forbidden:
        def search(self, text):
            raise AssertionError(f"dynamic-array scan of {text}")

    monkeypatch.setattr(xlsxwriter.worksheet, "re_dynamic_function", Forbidden())
    wb = xlsxwriter.Workbook(io.BytesIO(), {"in_memory": True})
    ws = wb.add_worksheet("Plan", worksheet_class=PlanWorksheet)
    assert ws.write_formula(0, 0, "=SUM(A2:A9)", None, 3.0) == 0
    assert ws.table[0][0].formula == "SUM(A2:A9)"


def test_column_letters_are_cached_and_right():
    assert [col(i) for i in (0, 25, 26, 701, 702, 16383)] == \
        ["A", "Z", "AA", "ZZ", "AAA", "XFD"]
    hits = col.cache_info().hits
    assert col(701) == "ZZ" and col.cache_info().hits == hits + 1


def _block_xml(bulk: bool) -> bytes:
    buffer = io.BytesIO()
    wb = xlsxwriter.Workbook(buffer, {"in_memory": True})
    money, count = wb.add_format({"num_format": "#,##0"}), wb.add_format({"num_format": "0"})
    ws = wb.add_worksheet("Plan", worksheet_class=PlanWorksheet)
    ws.write_number(0, 0, 1.0)
    formulas = [[f"=A{r}*2", f"=IF(A{r}>0,B{r}&\"<\",0)", f"C{r}+1"] for r in range(3, 9)]
    values = [[2.0 * r, "x", r + 0.5] for r in range(3, 9)]
    if bulk:
        ws.write_formula_rows(4, 2, formulas, [money, count, money], values)
    else:
        for i, (line, cached) in enumerate(zip(formulas, values)):
            for j, (formula, fmt, value) in enumerate(zip(line, [money, count, money], cached)):
                ws.write_formula(4 + i, 2 + j, formula, fmt, value)
    wb.close()
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as z:
        return z.read("xl/worksheets/sheet1.xml")


def test_a_block_of_formulas_is_what_writing_each_cell_writes():
    # write_formula_rows: the monthly and cohort columns in one call (dimensions included)
    assert _block_xml(bulk=True) == _block_xml(bulk=False)
