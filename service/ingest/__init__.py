"""Usage files -> validated UsageProfile (design 4.1, 7).

``read_usage(data, filename)`` is the upload/API path, ``load_usage(path)`` the CLI path. The
content decides the reader (the extension must agree with it): plain CSV or XLSX usage tables,
FOCUS 1.0 billing exports, AWS CUR (legacy) exports and Slurm ``sacct --parsable2`` dumps.
"""
from __future__ import annotations

import re
from pathlib import Path

from service.ingest import aws_cur, focus, guards, slurm
from service.ingest import csv as csv_reader
from service.ingest.build import build
from service.ingest.core import IngestError, IngestResult, Limits, fail_one
from service.ingest.table import map_columns, normalise, read_table
from service.ingest.template import usage_template_csv, usage_template_xlsx
from service.ingest.xlsx import read_xlsx

__all__ = ["IngestError", "IngestResult", "Limits", "load_usage", "read_usage",
           "usage_template_csv", "usage_template_xlsx"]

TEXT_SUFFIXES = {".csv", ".txt", ".tsv", ".psv", ".out", ""}


def load_usage(path: str | Path, limits: Limits | None = None) -> IngestResult:
    """Read a usage file from disk (its size is checked before it is read)."""
    path = Path(path)
    limits = limits or Limits()
    size = path.stat().st_size
    if size > limits.max_bytes:
        raise fail_one(path.name, f"the file is {size:,} bytes; the limit is "
                       f"{limits.max_bytes:,} bytes")
    return read_usage(path.read_bytes(), path.name, limits)


def read_usage(data: bytes, filename: str, limits: Limits | None = None) -> IngestResult:
    """Parse an uploaded usage file: its bytes and the name the user gave it."""
    limits = limits or Limits()
    name = re.split(r"[\\/]", filename)[-1] or "upload"   # browsers may send C:\...\x.csv
    suffix = Path(name).suffix.lower()
    guards.check_size(data, name, limits)
    looks = guards.describe(data)
    if suffix in guards.FORMATS:
        if looks.startswith("an OLE"):
            raise guards.ole_message(data, name)
        raise fail_one(name, f"this is {guards.FORMATS[suffix]}, which is not read here; "
                       f"{guards.SAVE_AS}")
    if looks.startswith("an OLE"):
        raise guards.ole_message(data, name)
    if suffix == ".xlsx":
        if looks != "a zip archive":
            raise fail_one(name, f"the file is named .xlsx but is {looks}, not an Excel "
                           "workbook; save it from Excel as .xlsx, or rename it to .csv if "
                           "it is CSV text")
        return _xlsx(data, name, limits)
    if looks == "a zip archive":
        raise fail_one(name, f"the file is named {suffix or 'without an extension'} but is a "
                       "zip archive (an Excel workbook?); name it .xlsx if it is one")
    if looks != "text":
        raise fail_one(name, f"the file is {looks}, not CSV text or an xlsx workbook")
    if suffix not in TEXT_SUFFIXES:
        raise fail_one(name, f"unsupported file type {suffix!r}; upload .csv, .xlsx or a "
                       "Slurm sacct .txt dump")
    return _text(data, name, limits)


def _kind(headers: list) -> str:
    names = {normalise(h) for h in headers}
    for module in (focus, aws_cur, slurm):
        if module.HEADERS <= names:
            return module.FORMAT
    return "csv"


def _text(data: bytes, name: str, limits: Limits) -> IngestResult:
    text = csv_reader.text_of(data, name)
    headers, sep = csv_reader.header(text, name)
    kind = _kind(headers)
    if kind != "csv":
        return _export(kind).read(data, text, headers, sep, name, limits)
    csv_reader.check_shape(text, headers, name, limits, limits.max_columns)
    columns = map_columns(headers, name)
    dtypes = {columns[k]: "category" for k in ("workload", "interruptible", "team")
              if k in columns}
    frame, rows = csv_reader.read_frame(data, name, sep, limits, dtype=dtypes,
                                        parse_dates=[columns["timestamp"]],
                                        date_format="ISO8601")
    records = read_table(frame, name, rows,
                         raw=lambda col: csv_reader.raw_column(data, sep, col, rows))
    return build(records, name, "csv")


def _xlsx(data: bytes, name: str, limits: Limits) -> IngestResult:
    frame, rows, warnings = read_xlsx(data, name, limits)
    kind = _kind(list(frame.columns))
    if kind in ("focus", "aws_cur"):
        return _export(kind).from_frame(frame, rows, name, limits, warnings)
    if len(frame.columns) > limits.max_columns:
        raise fail_one(name, f"the sheet has {len(frame.columns)} columns; the limit is "
                       f"{limits.max_columns}", 1)
    records = read_table(frame, name, rows)
    return build(records, name, "xlsx", warnings=warnings)


def _export(kind: str):
    return {"focus": focus, "aws_cur": aws_cur, "slurm": slurm}[kind]
