"""CSV text: UTF-8 (BOM or not), comma / semicolon / tab separated (detected), quoted fields."""
from __future__ import annotations

import csv as stdcsv
import io
import re
import warnings

import numpy as np
import pandas as pd

from service.ingest.core import Limits, fail, fail_one, problem

BOMS = {b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16", b"\xff\xfe\x00\x00": "UTF-32"}
MAX_HEADER_FIELD = 1_000   # characters of one column name
SAVE_UTF8 = ("save it as UTF-8 (Excel: File > Save As > 'CSV UTF-8 (Comma delimited)'; "
             "LibreOffice: Character set 'Unicode (UTF-8)')")


def text_of(data: bytes, filename: str) -> str:
    """The file as text, or a message asking for UTF-8 (never mojibake)."""
    for bom, name in BOMS.items():
        if data.startswith(bom):
            raise fail_one(filename, f"the file is {name} text; {SAVE_UTF8}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise fail_one(filename, f"the file is not UTF-8 text (byte 0x{data[exc.start]:02X} at "
                       f"line {line} cannot be read; it may be Windows-1252 or Latin-1); "
                       f"{SAVE_UTF8}", line) from None


def head_text(data: bytes, filename: str) -> str:
    """The first line as text, without decoding a possibly very large rest of the file."""
    end = data.find(b"\n", 0, 4_000_000)
    return text_of(data[:end if end >= 0 else 4_000_000], filename)


def first_line(text: str) -> str:
    end = text.find("\n")
    return (text if end < 0 else text[:end]).lstrip("\ufeff").rstrip("\r")


def separator(header_line: str) -> str:
    """The delimiter of the header line, outside quotes."""
    bare = re.sub(r'"[^"]*"', "", header_line)
    counts = {sep: bare.count(sep) for sep in (",", ";", "\t", "|")}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


def header(text: str, filename: str) -> tuple[list[str], str]:
    """The header's fields and the separator; a field longer than a column name can be is
    refused naming its column (the csv module itself raises past 131,072 characters)."""
    line = first_line(text)
    sep = separator(line)
    try:
        fields = next(stdcsv.reader([line], delimiter=sep))
    except stdcsv.Error:
        pieces = line.split(sep)
        longest = max(range(len(pieces)), key=lambda k: len(pieces[k]))
        raise long_header(filename, longest + 1, pieces[longest]) from None
    for k, name in enumerate(fields, start=1):
        if len(name) > MAX_HEADER_FIELD:
            raise long_header(filename, k, name)
    return fields, sep


def long_header(filename: str, position: int, name: str):
    return fail_one(filename, f"the header's column {position} is {len(name):,} characters "
                    f"long; a column name may have at most {MAX_HEADER_FIELD:,} (is the first "
                    "line a header?)", 1, name)


def check_shape(text: str, headers: list[str], sep: str, filename: str, limits: Limits,
                max_columns: int) -> None:
    """Columns and rows within the limits, and a first data row no wider than the header."""
    if len(headers) > max_columns:
        raise fail_one(filename, f"the file has {len(headers)} columns; the limit is "
                       f"{max_columns}", 1)
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if lines - 1 > limits.max_rows:
        raise fail_one(filename, f"the file has {lines - 1:,} data rows; the limit is "
                       f"{limits.max_rows:,}")
    check_first_row(text, len(headers), sep, filename)


def check_first_row(text: str, width: int, sep: str, filename: str) -> None:
    """Refuse a first data row with more fields than the header, in one pass over that row.

    pandas reads such a row as an index and the header as naming the last columns: 200,000
    extra fields took 45 s and the file was then refused for its timestamps. A later row that
    is too long pandas refuses at once, naming it (:func:`read_frame`).
    """
    records = stdcsv.reader(io.StringIO(text), delimiter=sep)
    try:
        next(records, None)                        # the header
        for number, fields in enumerate(records, start=2):
            if fields:
                if len(fields) > width:
                    raise fail(filename, [wrong_width(number, len(fields), width, sep)])
                return
    except stdcsv.Error:    # a field past the csv module's 131,072 characters: pandas says
        return


def wrong_width(row: int, fields: int, width: int, sep: str) -> dict:
    """The problem of a row whose field count is not the header's."""
    return problem(row, None, f"this row has {fields} fields, the header has {width} (a stray "
                   f"separator {sep!r}, unquoted text or a missing field?)")


def read_frame(data: bytes, filename: str, sep: str, limits: Limits, **options
               ) -> tuple[pd.DataFrame, np.ndarray]:
    """pandas.read_csv with row numbers kept: blank lines dropped, file row of each row."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # a date column that does not parse stays text
            frame = pd.read_csv(io.BytesIO(data), sep=sep, encoding="utf-8-sig",
                                skip_blank_lines=False, nrows=limits.max_rows + 1, **options)
    except pd.errors.ParserError as exc:
        match = re.search(r"line (\d+), saw (\d+)", str(exc))
        unclosed = re.search(r"EOF inside string starting at row (\d+)", str(exc))
        if unclosed:   # pandas counts this row from 0 at the header
            raise fail_one(filename, 'a quoted field starting here is never closed (a stray ")',
                           int(unclosed.group(1)) + 1) from None
        if match:
            raise fail_one(filename, f"this row has {match.group(2)} fields, the header has "
                           f"fewer (a stray separator {sep!r} or unquoted text?)",
                           int(match.group(1))) from None
        raise fail_one(filename, f"cannot read as CSV ({exc})") from None
    except (pd.errors.EmptyDataError, ValueError) as exc:
        raise fail_one(filename, f"cannot read as CSV ({exc})") from None
    rows = np.arange(2, len(frame) + 2)
    blank = frame.isna().all(axis=1).to_numpy()
    if blank.any():
        frame, rows = frame[~blank].reset_index(drop=True), rows[~blank]
    return frame, rows


def raw_column(data: bytes, sep: str, column: str, rows: np.ndarray) -> pd.Series:
    """One column exactly as written (for messages), aligned with ``rows``.

    Read as pandas infers it first: a column it takes for text is the text as written, and is
    read 5x faster than with ``dtype=str`` (13 against 70 ms CPU for 175,320 timestamps,
    bench/ingest.py); a column it takes for numbers or booleans is read again as text."""
    options = dict(sep=sep, encoding="utf-8-sig", keep_default_na=False,
                   skip_blank_lines=False, usecols=[column])
    frame = pd.read_csv(io.BytesIO(data), **options)
    if not pd.api.types.is_string_dtype(frame[column]):      # an object column: all str
        frame = pd.read_csv(io.BytesIO(data), dtype=str, **options)
    return frame[column].iloc[rows - 2].reset_index(drop=True)
