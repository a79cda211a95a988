"""Wide billing exports read fast: only the needed columns, text as categories (pyarrow).

A FOCUS or cost-details export carries 40-300 columns and up to millions of rows, most of them
not GPU usage. pyarrow's multi-threaded reader reads only the wanted columns, keeps text
dictionary-encoded (a column such as ChargeCategory has a handful of distinct values) and numbers
as floats, so later steps work per distinct value instead of per row. Files pyarrow cannot read
the simple way (blank lines, a stray separator) go through pandas, which names the row of a
broken line; a bad number only re-reads that column as text so that its rows can be named when
they matter.
"""
from __future__ import annotations

import csv as stdcsv
import io
import re
from collections.abc import Callable

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from service.clip import clip_repr
from service.ingest.core import Limits, fail, fail_one
from service.ingest.csv import SAVE_UTF8, wrong_width
from service.ingest.table import normalise

NULLS = ["", "NULL", "null"]


def read_columns(data: bytes, headers: list[str], sep: str, filename: str, limits: Limits,
                 wanted: Callable[[str], bool], numeric: frozenset[str] = frozenset()
                 ) -> tuple[pd.DataFrame, np.ndarray]:
    """The columns ``wanted(header)`` keeps: text as categories, ``numeric`` ones (normalised
    names) as floats where they read as numbers; NULL and empty are missing. Also the file row
    of each row (the header is row 1)."""
    if len(headers) > limits.max_export_columns:
        raise fail_one(filename, f"the export has {len(headers)} columns; the limit is "
                       f"{limits.max_export_columns}", 1)
    keep = [h for h in headers if wanted(h)]
    seen: dict[str, str] = {}
    for h in keep:
        if normalise(h) in seen:
            raise fail_one(filename, f"columns {clip_repr(seen[normalise(h)])} and "
                           f"{clip_repr(h)} are the same "
                           "column twice", 1, h)
        seen[normalise(h)] = h
    numbers = [h for h in keep if normalise(h) in numeric]
    frame = _arrow(data, sep, keep, numbers, filename)
    exact = frame is not None
    if not exact:
        _broken_rows(data, sep, len(headers), filename)
        frame = _pandas(data, sep, keep, filename)
    if len(frame) > limits.max_rows:
        raise fail_one(filename, f"the export has {len(frame):,} data rows; the limit is "
                       f"{limits.max_rows:,}")
    rows = np.arange(2, len(frame) + 2)
    if not exact:            # pandas keeps blank lines as empty rows, so numbering holds
        empty = frame.isna().all(axis=1).to_numpy()
        frame, rows = frame[~empty].reset_index(drop=True), rows[~empty]
    return frame, rows


def _arrow(data: bytes, sep: str, keep: list[str], numbers: list[str], filename: str):
    """The table through pyarrow, or None when pandas must read it (to name a broken row)."""
    text = pa.dictionary(pa.int32(), pa.string())
    for as_float in (numbers, []):
        types = {h: (pa.float64() if h in as_float else text if h not in numbers
                     else pa.string()) for h in keep}
        try:
            table = pacsv.read_csv(
                pa.BufferReader(pa.py_buffer(data)),
                # a blank line is an error here, so that pandas reads the file and row
                # numbers stay those of the file
                parse_options=pacsv.ParseOptions(delimiter=sep, ignore_empty_lines=False),
                convert_options=pacsv.ConvertOptions(
                    include_columns=keep, column_types=types, null_values=NULLS,
                    strings_can_be_null=True, quoted_strings_can_be_null=True))
        except pa.ArrowInvalid as exc:
            message = str(exc)
            if "invalid UTF8" in message or "UTF8" in message and "invalid" in message:
                raise fail_one(filename, f"the file is not UTF-8 text; {SAVE_UTF8}") from None
            if re.search(r"conversion error to double", message) and as_float:
                continue                    # a bad number: read those columns as text
            return None                     # a broken line: pandas names its row
        return table.to_pandas()
    return None


def _broken_rows(data: bytes, sep: str, width: int, filename: str) -> None:
    """Rows whose field count differs from the header's (pyarrow says one exists, not where)."""
    problems = []
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")
    for number, fields in enumerate(stdcsv.reader(text, delimiter=sep), start=1):
        if fields and len(fields) != width:
            problems.append(wrong_width(number, len(fields), width, sep))
    if problems:
        raise fail(filename, problems)


def _pandas(data: bytes, sep: str, keep: list[str], filename: str) -> pd.DataFrame:
    try:
        frame = pd.read_csv(io.BytesIO(data), sep=sep, encoding="utf-8-sig", dtype=str,
                            usecols=keep, skip_blank_lines=False, keep_default_na=False,
                            na_values=NULLS)
    except pd.errors.ParserError as exc:
        match = re.search(r"line (\d+), saw (\d+)", str(exc))
        if match:
            raise fail_one(filename, f"this row has {match.group(2)} fields, the header has "
                           f"fewer (a stray separator {sep!r} or unquoted text?)",
                           int(match.group(1))) from None
        raise fail_one(filename, f"cannot read the export as CSV ({exc})") from None
    except UnicodeDecodeError:
        raise fail_one(filename, f"the file is not UTF-8 text; {SAVE_UTF8}") from None
    except ValueError as exc:
        raise fail_one(filename, f"cannot read the export as CSV ({exc})") from None
    return frame.astype("category")
