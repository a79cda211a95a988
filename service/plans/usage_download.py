"""A revision's usage file as downloaded: safe to open in a spreadsheet by default.

A team cell such as ``=HYPERLINK("http://x","y")``, ``+1+cmd|' /C calc'!A0`` or ``@SUM(1)``
runs as a formula when a reviewer opens the file in Excel or LibreOffice. The default download
is therefore a CSV rendition of the file in which every cell that starts with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return (after leading spaces) is prefixed with a single quote
and every cell is quoted, as the OWASP CSV-injection guidance says; plain numbers such as
``-3`` stay numbers. The
original bytes stay downloadable as ``...-original...`` with their SHA-256 (the approval binds
to that hash), for whoever wants to check them.
"""
from __future__ import annotations

import csv
import io
import math
import re
from datetime import date, datetime

import pandas as pd

from service.ingest import csv as csv_reader
from service.ingest.core import Limits
from service.ingest.xlsx import read_xlsx

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def escape_cell(text: str) -> str:
    """The cell as a spreadsheet shows it, never as a formula it would run."""
    head = text.lstrip(" ")[:1]
    if head in TRIGGERS and not NUMBER.fullmatch(text.strip(" ")):
        return "'" + text
    return text


def is_xlsx(filename: str) -> bool:
    return filename.lower().endswith(".xlsx")


def safe_csv(data: bytes, filename: str) -> bytes:
    """The usage file as UTF-8 CSV (the sheet that was read, for a workbook), cells escaped."""
    rows, sep = (_workbook_rows(data, filename), ",") if is_xlsx(filename) else \
        _text_rows(data)
    out = io.StringIO()
    # every cell quoted, as OWASP advises: a CR or the separator inside a cell stays inside
    writer = csv.writer(out, delimiter=sep, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for row in rows:
        writer.writerow([escape_cell(cell) for cell in row])
    return out.getvalue().encode()


def _text_rows(data: bytes) -> tuple[list[list[str]], str]:
    text = data.decode("utf-8-sig", errors="replace")
    sep = csv_reader.separator(csv_reader.first_line(text))
    try:   # pandas, like the readers: no field-size limit, quotes understood
        frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, header=None,
                            keep_default_na=False, skip_blank_lines=False, index_col=False)
        return [[v if isinstance(v, str) else "" for v in row]   # short rows: NaN
                for row in frame.itertuples(index=False, name=None)], sep
    except (pd.errors.ParserError, ValueError):
        # ragged lines (sacct dumps): split each line, which escapes every field all the same
        return [line.split(sep) for line in text.splitlines()], sep


def _workbook_rows(data: bytes, filename: str) -> list[list[str]]:
    frame, _, _ = read_xlsx(data, filename, Limits())
    return [[str(c) for c in frame.columns]] + [
        [cell_text(v) for v in row] for row in frame.itertuples(index=False, name=None)]


def cell_text(value: object) -> str:
    """A workbook value as CSV text: blanks empty, whole numbers without '.0', ISO dates."""
    if value is None or value is pd.NaT or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return str(value)
