"""Timestamps as users write them -> UTC datetime64[s], or a problem naming the row.

Accepted: ISO 8601 date-times (an offset or Z is converted to UTC; none means UTC), ISO dates,
``YYYY-MM`` months, Excel serial dates (numbers, or date cells in a workbook) and d/m/Y or m/d/Y
with slashes when the column itself shows which (a first number over 12 means day first).
"""
from __future__ import annotations

import datetime as dt
import re
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from service.clip import clip, clip_repr
from service.ingest.core import problem

EXCEL_EPOCH = np.datetime64("1899-12-30T00:00:00", "s")
SERIAL_RANGE = (25569.0, 73051.0)   # 1970-01-01 .. 2099-12-31: a bare year like 2027 is refused
ISO = (r"\d{4}-\d{2}(-\d{2}([T ]\d{1,2}(:\d{2}(:\d{2}(\.\d+)?)?)?\s*(Z|[+-]\d{2}(:?\d{2})?)?)?)?")
SLASH = r"(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?:[ T](\d{1,2}:\d{2}(?::\d{2})?))?"
NOT_A_DATE = ("cannot read {value} as a timestamp; write ISO dates such as 2027-01-31T13:00, "
              "2027-01-31 or 2027-01")


def from_datetimes(values: pd.Series) -> np.ndarray:
    """A parsed datetime column (naive = UTC, aware converted) -> datetime64[s]."""
    if isinstance(values.dtype, pd.DatetimeTZDtype):
        values = values.dt.tz_convert("UTC").dt.tz_localize(None)
    return values.to_numpy().astype("datetime64[s]")


def from_serials(serials: np.ndarray) -> np.ndarray:
    seconds = np.round(serials * 86400.0).astype("int64")
    return EXCEL_EPOCH + seconds.astype("timedelta64[s]")


def parse(values: pd.Series, rows: np.ndarray, column: str) -> tuple[np.ndarray, list[dict]]:
    """Any timestamp column (text, numbers, datetimes, mixed) -> (datetime64[s], problems).

    ``rows`` are the file rows of ``values``; unparseable entries are NaT and named in problems.
    """
    out = np.full(len(values), np.datetime64("NaT"), dtype="datetime64[s]")
    problems: list[dict] = []
    obj = values.astype(object).to_numpy()
    is_dt = np.fromiter((isinstance(v, (dt.datetime, dt.date, pd.Timestamp)) for v in obj),
                        bool, len(obj))
    is_num = np.fromiter((isinstance(v, (int, float, np.integer, np.floating))
                          and not isinstance(v, bool) for v in obj), bool, len(obj))
    if is_dt.any():
        stamps = pd.to_datetime(pd.Series(obj[is_dt]), utc=True)
        out[is_dt] = from_datetimes(stamps)
    text = pd.Series(np.where(is_dt | is_num, "", obj), dtype=object).astype(str).str.strip()
    numeric_text = text.str.fullmatch(r"\d+(\.\d+)?") & ~pd.Series(is_dt | is_num)
    serial = np.full(len(obj), np.nan)
    serial[is_num] = np.asarray(obj[is_num], dtype=float)
    serial[numeric_text.to_numpy()] = text[numeric_text].astype(float).to_numpy()
    has_serial = ~np.isnan(serial)
    in_range = has_serial & (serial >= SERIAL_RANGE[0]) & (serial < SERIAL_RANGE[1])
    out[in_range] = from_serials(serial[in_range])
    for i in np.flatnonzero(has_serial & ~in_range):
        problems.append(problem(rows[i], column, f"{clip_repr(obj[i])} is not an Excel date "
                                "serial (expected 25569 = 1970-01-01 to 73050 = 2099-12-31)"))
    todo = ~(is_dt | has_serial)
    iso = text.str.fullmatch(ISO).to_numpy() & todo
    if iso.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = pd.to_datetime(text[iso], format="ISO8601", utc=True, errors="coerce")
        out[iso] = from_datetimes(parsed)
        iso_bad = np.flatnonzero(iso)[parsed.isna().to_numpy()]
        for i in iso_bad:
            problems.append(problem(rows[i], column, NOT_A_DATE.format(value=clip_repr(obj[i]))))
    slash = text.str.extract(SLASH).to_numpy()
    is_slash = ~pd.isna(slash[:, 0]) & todo & ~iso
    if is_slash.any():
        out_slash, slash_problems = _slash_dates(slash[is_slash], rows[is_slash], column,
                                                 obj[is_slash])
        out[is_slash] = out_slash
        problems += slash_problems
    rest = todo & ~iso & ~is_slash
    for i in np.flatnonzero(rest):
        if text.iat[i] in ("", "nan", "NaT", "None"):
            problems.append(problem(rows[i], column, "empty timestamp"))
        else:
            problems.append(problem(rows[i], column, NOT_A_DATE.format(value=clip_repr(obj[i]))))
    problems += mixed_written_periods(text, rows, column)
    problems.sort(key=lambda p: p["row"])
    return out, problems


WRITTEN = {"month": r"\d{4}-\d{2}", "day": r"\d{4}-\d{2}-\d{2}"}


def written_period(text: str) -> str:
    """The period a timestamp is written as: 'month' (2027-02), 'day' (2027-01-02, 02/01/2027),
    'hour' (anything with a time of day), or '' (a serial, a date cell, no date)."""
    if re.fullmatch(ISO, text):
        for kind in ("month", "day"):
            if re.fullmatch(WRITTEN[kind], text):
                return kind
        return "hour"
    slash = re.search(SLASH, text)          # as parse() finds slash dates (str.extract)
    if slash:
        return "day" if slash.group(4) is None else "hour"
    return ""


def shapes(text: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Each value's shape, as an index into the distinct shapes: the value with every ASCII
    digit written as 0. ISO, WRITTEN and SLASH test digits only as a class, so a shape matches
    them as each of its values does. The digits are replaced in the UTF-8 bytes (no byte of a
    multi-byte character is below 0x80), where a regex replace took 0.4 s for 175,000 rows."""
    array = pa.array(text)
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    validity, offsets, data = array.buffers()
    chars = np.frombuffer(data, np.uint8).copy() if data is not None else np.zeros(0, np.uint8)
    chars[(chars >= ord("1")) & (chars <= ord("9"))] = ord("0")
    shaped = pa.Array.from_buffers(array.type, len(array),
                                   [validity, offsets, pa.py_buffer(chars)],
                                   array.null_count, array.offset)
    encoded = pc.dictionary_encode(shaped)
    return encoded.indices.to_numpy(zero_copy_only=False), encoded.dictionary.to_pylist()


def mixed_written_periods(text: pd.Series, rows: np.ndarray, column: str) -> list[dict]:
    """A problem when rows are written as different period lengths: a month (2027-02), a day
    (2027-01-02, 02/01/2027) and an hour (anything with a time of day). Serials and date
    cells carry no written period and are left to the inference from the timestamps.

    Each distinct shape is judged once (``shapes``): a file has a few, where matching each of
    200,000 rows with Python's re took 0.5 s of a 0.55 s read (issue 23; bench/ingest.py)."""
    text = text.astype(str).str.strip().reset_index(drop=True)
    codes, forms = shapes(text)
    kind = np.array([written_period(form) for form in forms], dtype=object)[codes]
    seen = {k: np.flatnonzero(kind == k) for k in ("hour", "day", "month")}
    seen = {k: where for k, where in seen.items() if where.size}
    if len(seen) < 2:
        return []
    parts = [f"row {rows[where[0]]} ({clip(text.iat[where[0]])}) is {'an' if k == 'hour' else 'a'} "
             f"{k}" + (f" like {where.size - 1:,} more" if where.size > 1 else "")
             for k, where in sorted(seen.items(), key=lambda item: item[1][0])]
    second = sorted(where[0] for where in seen.values())[1]
    return [problem(rows[second], column, "mixed periods: " + "; ".join(parts) + ". Use one "
                    "period length per file (hours, days or months).")]


def _slash_dates(parts: np.ndarray, rows: np.ndarray, column: str, raw: np.ndarray
                 ) -> tuple[np.ndarray, list[dict]]:
    first = parts[:, 0].astype(int)
    second = parts[:, 1].astype(int)
    day_first, month_first = (first > 12).any(), (second > 12).any()
    if day_first == month_first:
        if day_first:
            row = rows[np.flatnonzero(first > 12)[0]]
            other = rows[np.flatnonzero(second > 12)[0]]
            message = (f"dates are written day/month here but month/day in row {other}; "
                       "write ISO dates such as 2027-02-01")
        else:
            row = rows[0]
            message = (f"{clip_repr(raw[0])} is ambiguous: it could be day/month or month/day; "
                       "write ISO dates such as 2027-02-01")
        return np.full(len(parts), np.datetime64("NaT"), "datetime64[s]"), [
            problem(row, column, message)]
    day, month = (first, second) if day_first else (second, first)
    iso = pd.Series([f"{y}-{m:02d}-{d:02d}" + (f" {t}" if isinstance(t, str) else "")
                     for y, m, d, t in zip(parts[:, 2], month, day, parts[:, 3])])
    parsed = pd.to_datetime(iso, format="ISO8601", errors="coerce")
    problems = [problem(rows[i], column, NOT_A_DATE.format(value=clip_repr(raw[i])))
                for i in np.flatnonzero(parsed.isna().to_numpy())]
    return parsed.to_numpy().astype("datetime64[s]"), problems
