"""What billing exports (FOCUS, AWS CUR, Azure, Google Cloud) share: their columns as categories,
charge-period times and quantities of the rows that count, tags carrying a team, and the
read entry point over CSV or a sheet.

Text columns are categories (see arrowcsv): a function of the text is computed once per distinct
value with ``by_value`` and spread to the rows by their codes.
"""
from __future__ import annotations

import json
import warnings as pywarnings
from collections.abc import Callable

import numpy as np
import pandas as pd

from service.clip import clip_repr, number_text
from service.ingest import arrowcsv
from service.ingest.core import IngestResult, Limits, fail_one, problem
from service.ingest.table import normalise


def column_reader(wanted: Callable[[str], bool], from_frame: Callable[..., IngestResult],
                  numeric: frozenset[str] = frozenset()) -> Callable[..., IngestResult]:
    """The ``read`` entry point of a billing-export format: its wanted columns, then the
    format's ``from_frame`` (the same one the xlsx path calls)."""
    def read(data: bytes, headers: list[str], sep: str, filename: str,
             limits: Limits) -> IngestResult:
        frame, rows = arrowcsv.read_columns(data, headers, sep, filename, limits, wanted,
                                            numeric)
        frame.attrs["header"] = list(headers)    # every column, for telling versions apart
        return from_frame(frame, rows, filename, limits, [])
    return read


def categories(frame: pd.DataFrame, numeric: frozenset[str] = frozenset()) -> pd.DataFrame:
    """A sheet's cells as the CSV path has them: numbers in ``numeric`` columns as floats,
    everything else as text categories (dates as ISO text, numbers as their shortest text)."""
    out = {}
    for name in frame.columns:
        values = frame[name]
        if normalise(name) in numeric:
            # floats, or text where a cell was not a number (read by ``numbers`` per value)
            out[name] = values.astype(float) if values.dtype.kind in "fiu" else values
        elif isinstance(values.dtype, pd.CategoricalDtype):
            out[name] = values
        elif values.dtype.kind == "M":
            out[name] = values.dt.strftime("%Y-%m-%dT%H:%M:%S").astype("category")
        else:
            out[name] = values.map(_cell_text, na_action="ignore").astype("category")
    return pd.DataFrame(out, index=frame.index)


def _cell_text(value) -> str:
    if isinstance(value, float):
        return number_text(value)
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def by_value(values: pd.Series, fn: Callable[[pd.Series], object], missing="") -> np.ndarray:
    """``fn`` (vectorised over a Series of str) applied once per distinct value, per row."""
    if not isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype("category")
    distinct = pd.Series(list(values.cat.categories.astype(str)) + [missing], dtype=object)
    result = np.asarray(fn(distinct))
    return result[values.cat.codes.to_numpy()]       # code -1 (missing) takes the last entry


def lowered(values: pd.Series) -> np.ndarray:
    return by_value(values, lambda s: s.str.strip().str.lower().to_numpy(dtype=object))


def lowered_column(frame: pd.DataFrame, name: str, n: int) -> np.ndarray:
    """The column ``name`` lowered and stripped per row, or '' for each of the ``n`` rows when
    the frame lacks it."""
    col = column(frame, name)
    return lowered(frame[col]) if col is not None else np.full(n, "", dtype=object)


def text(values: pd.Series) -> np.ndarray:
    """The cells as str, missing as ''."""
    return by_value(values, lambda s: s.to_numpy(dtype=object))


def column(frame: pd.DataFrame, *names: str):
    """The frame's column whose normalised header is one of ``names`` (or None)."""
    lookup = {normalise(c): c for c in frame.columns}
    for name in names:
        if normalise(name) in lookup:
            return lookup[normalise(name)]
    return None


def require(frame: pd.DataFrame, filename: str, fmt: str, *names: str) -> list[str]:
    found = [column(frame, n) for n in names]
    missing = [n for n, c in zip(names, found) if c is None]
    if missing:
        raise fail_one(filename, f"this looks like a {fmt} export but lacks the columns "
                       f"{', '.join(missing)}; found {list(frame.columns)}", 1)
    return found


def times(values: pd.Series, rows: np.ndarray, col: str, mask: np.ndarray,
          formats: tuple[str, ...] = ("ISO8601",)) -> tuple[np.ndarray, list[dict]]:
    """UTC times [datetime64[s]] per row, and a problem for each row of ``mask`` that has none."""
    def parse(cells: pd.Series) -> np.ndarray:
        parsed = pd.Series(pd.NaT, index=cells.index, dtype="datetime64[s, UTC]")
        with pywarnings.catch_warnings():
            pywarnings.simplefilter("ignore")
            for fmt in formats:
                todo = parsed.isna() & (cells != "")
                if todo.any():
                    parsed[todo] = pd.to_datetime(cells[todo].str.strip(), format=fmt, utc=True,
                                                  errors="coerce")
        return parsed.dt.tz_localize(None).to_numpy().astype("datetime64[s]")
    out = by_value(values, parse)
    bad = np.flatnonzero(np.isnat(out) & mask)
    raw = text(values)
    return out, [problem(rows[i], col, "missing date-time (empty or NULL)" if raw[i] == "" else
                         f"cannot read {clip_repr(raw[i])} as a date-time") for i in bad]


def numbers(values: pd.Series, rows: np.ndarray, col: str, mask: np.ndarray,
            what: str = "quantity") -> tuple[np.ndarray, list[dict]]:
    """Floats per row, and a problem for each row of ``mask`` without a number >= 0."""
    if values.dtype.kind == "f":
        out = values.to_numpy(dtype=float)
        raw = None
    else:
        out = by_value(values, lambda s: pd.to_numeric(s.str.strip(), errors="coerce")
                       .to_numpy(dtype=float), missing=None)
        raw = values
    bad = np.flatnonzero((~np.isfinite(out) | (out < 0)) & mask)

    def message(i: int) -> str:
        cell = None if raw is None or pd.isna(raw.iat[i]) else str(raw.iat[i])
        if cell is None and np.isnan(out[i]):
            return f"missing {what} (empty or NULL)"
        if cell is None:
            cell = _cell_text(float(out[i]))
        return f"expected a {what} >= 0, got {clip_repr(cell)}"
    return out, [problem(rows[i], col, message(i)) for i in bad]


def amounts(frame: pd.DataFrame, name: str) -> np.ndarray | None:
    """A money column as floats (NaN where missing or unreadable), or None without the column."""
    col = column(frame, name)
    if col is None:
        return None
    values = frame[col]
    if values.dtype.kind == "f":
        return values.to_numpy(dtype=float)
    return by_value(values, lambda s: pd.to_numeric(s.str.strip(), errors="coerce")
                    .to_numpy(dtype=float), missing=None).astype(float)


def charge_periods(frame: pd.DataFrame, rows: np.ndarray, start_col: str, end_col: str,
                   qty_col: str, candidate: np.ndarray, formats: tuple[str, ...] = ("ISO8601",)):
    """Start, end and quantity of the candidate GPU rows, the rows that count, and problems."""
    problems = []
    start, found = times(frame[start_col], rows, start_col, candidate, formats)
    problems += found
    if end_col is None:
        end = start
    else:
        end, found = times(frame[end_col], rows, end_col, candidate, formats)
        problems += found
    quantity, found = numbers(frame[qty_col], rows, qty_col, candidate)
    problems += found
    gpu_rows = candidate & np.isfinite(quantity) & (quantity > 0) & ~np.isnat(start)
    return start, end, quantity, gpu_rows, problems


def tag_value(cells: pd.Series, key_ends: str = "team") -> tuple[np.ndarray, int]:
    """Per row, the value of a tag whose key ends in ``key_ends`` (team, user:team, Team) in JSON
    tag cells: objects, [{"key": k, "value": v}] lists (Google Cloud labels), or Azure's
    ``"k": "v", ...`` without braces. Also how many distinct non-empty cells are not JSON."""
    unreadable = 0

    def one(cell: str):
        nonlocal unreadable
        if cell == "":
            return None
        parsed = _json(cell)
        if parsed is None:
            unreadable += 1
            return None
        pairs = parsed.items() if isinstance(parsed, dict) else \
            [(p.get("key"), p.get("value")) for p in parsed if isinstance(p, dict)] \
            if isinstance(parsed, list) else []
        return next((str(v) for k, v in pairs
                     if k is not None and normalise(k).endswith(key_ends) and v not in (None, "")),
                    None)
    values = by_value(cells, lambda s: np.array([one(c) for c in s], dtype=object))
    return values, unreadable


def _json(cell: str):
    for candidate in (cell, "{" + cell + "}"):
        try:
            parsed = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(parsed, (dict, list)):
            return parsed
    return None


def team_from_tags(tags: pd.Series) -> tuple[np.ndarray, int]:
    values, unreadable = tag_value(tags)
    return np.where(pd.isna(values), "(no team)", values).astype(object), unreadable


def period_of(start: np.ndarray, end: np.ndarray) -> str:
    """hour, day or month from the typical charge-period length."""
    seconds = (end - start).astype("int64")
    seconds = seconds[seconds > 0]
    typical = float(np.median(seconds)) if seconds.size else 3600.0
    return "hour" if typical <= 3600 else "day" if typical <= 86400 else "month"
