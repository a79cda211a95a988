"""A plain usage table (CSV or sheet) -> validated records: columns, timestamps, hours.

Columns: ``timestamp`` (aliases date, time, hour, month, period, datetime, day), ``gpu_hours``
(gpu-hours, gpuhours) or ``gpus`` (average GPUs busy over the period), optional ``workload``
(steady | interruptible) or boolean ``interruptible``, optional ``team``. Headers match
ignoring case, spaces and punctuation.
"""
from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pandas as pd

from service.clip import clip_repr
from service.ingest import timestamps
from service.ingest.build import Records
from service.ingest.core import fail, problem, to_floats

ALIASES = {
    "timestamp": ("timestamp", "date", "time", "hour", "month", "period", "datetime", "day"),
    "gpu_hours": ("gpuhours",),
    "gpus": ("gpus",),
    "workload": ("workload",),
    "interruptible": ("interruptible",),
    "team": ("team",),
}
CANONICAL = {alias: name for name, aliases in ALIASES.items() for alias in aliases}
EXPECTED = "timestamp, gpu_hours (or gpus), optional workload (or interruptible), optional team"
TRUE = {"true", "yes", "y", "1", "1.0", "t", "x"}
FALSE = {"false", "no", "n", "0", "0.0", "f", ""}


def normalise(header) -> str:
    return re.sub(r"[^a-z0-9]", "", str(header).lower())


def map_columns(headers: list, filename: str) -> dict[str, str]:
    """canonical name -> the header as written; every column known, required ones present."""
    found: dict[str, str] = {}
    problems = []
    shown = [str(h) for h in headers]
    for header in headers:
        name = CANONICAL.get(normalise(header))
        if name is None:
            problems.append(problem(1, str(header), f"unknown column {clip_repr(header)}"))
        elif name in found:
            problems.append(problem(1, str(header), f"columns {clip_repr(found[name])} and "
                                    f"{clip_repr(header)} both give the {name}"))
        else:
            found[name] = header
    for one, other in (("gpu_hours", "gpus"), ("workload", "interruptible")):
        if one in found and other in found:
            problems.append(problem(1, str(found[other]), f"give either {one} or {other}, "
                                    "not both"))
    for name in ("timestamp", "gpu_hours"):
        if name not in found and not (name == "gpu_hours" and "gpus" in found):
            label = "gpu_hours (or gpus)" if name == "gpu_hours" else name
            problems.append(problem(1, None, f"missing column {label}"))
    if problems:
        if not found and any(re.match(r"\s*[\d.]", h) for h in shown):
            problems.insert(0, problem(1, None, "the first row looks like data: the file needs a "
                                       "header row"))
        listed = ", ".join(clip_repr(h) for h in shown[:20])
        more = f" and {len(shown) - 20} more" if len(shown) > 20 else ""
        problems.append(problem(1, None, f"expected {EXPECTED}; found [{listed}]{more}"))
    if problems:
        raise fail(filename, problems)
    return found


def numbers(values: pd.Series, rows: np.ndarray, column: str,
            raw: Callable[[], pd.Series] | None = None) -> tuple[np.ndarray, list[dict]]:
    """A column of GPU-hours or GPUs -> floats >= 0, naming every bad cell."""
    if values.dtype.kind in "fiub":
        out = values.to_numpy(dtype=float)
    else:
        stripped = values.astype(object).map(lambda v: v.strip() if isinstance(v, str) else v)
        out = to_floats(stripped)
    bad = np.flatnonzero(~np.isfinite(out) | (out < 0))
    if not bad.size:
        return out, []
    shown = raw() if raw is not None else values
    problems = []
    for i in bad:
        text = shown.iat[i]
        if isinstance(text, float) and np.isnan(text) or text is None or str(text).strip() == "":
            message = "empty cell; expected a number >= 0 (write 0 for no usage)"
        elif np.isnan(out[i]) and normalise(text) != "nan":
            message = f"expected a number >= 0, got {clip_repr(text)}"
        elif np.isnan(out[i]):
            message = "NaN is not a number of GPU-hours; expected a number >= 0"
        elif np.isinf(out[i]) and "inf" in normalise(text):
            message = f"{clip_repr(text)} is infinite; expected a finite number >= 0"
        elif out[i] < 0:
            message = f"negative value {clip_repr(text)}; expected a number >= 0"
        else:   # digits past float's range (1.8e308)
            message = f"{clip_repr(text)} is too large; expected a number >= 0"
        problems.append(problem(rows[i], column, message))
    return out, problems


def flags(values: pd.Series, rows: np.ndarray, column: str, kind: str
          ) -> tuple[np.ndarray, list[dict]]:
    """workload (steady | interruptible) or a boolean interruptible column -> bool array."""
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    meaning = np.zeros(len(uniques) + 1, dtype=bool)   # last slot: missing -> steady
    problems = []
    for k, value in enumerate(uniques):
        text = str(value).strip().lower()
        if kind == "workload" and text in ("steady", "interruptible", ""):
            meaning[k] = text == "interruptible"
        elif kind == "interruptible" and (text in TRUE or text in FALSE):
            meaning[k] = text in TRUE
        else:
            expected = ("steady or interruptible" if kind == "workload"
                        else "true/false, yes/no or 1/0")
            for i in np.flatnonzero(codes == k):
                problems.append(problem(rows[i], column,
                                        f"expected {expected}, got {clip_repr(value)}"))
    return meaning[codes], problems


def teams(values: pd.Series) -> pd.Categorical:
    """Team labels as a Categorical (cheap to count); empty cells are "(no team)"."""
    labels = values if isinstance(values.dtype, pd.CategoricalDtype) else \
        values.astype("category")
    stripped = [str(c).strip() for c in labels.cat.categories]
    if len(set(stripped)) == len(stripped):
        labels = labels.cat.rename_categories(stripped)
    else:   # "a" and "a " (or 1 and "1") are one team
        labels = labels.astype(object).map(lambda v: v if pd.isna(v) else str(v).strip()
                                           ).astype("category")
    if labels.isna().any():
        labels = labels.cat.add_categories("(no team)").fillna("(no team)")
    return labels.array


def read_table(frame: pd.DataFrame, filename: str, rows: np.ndarray,
               raw: Callable[[str], pd.Series] | None = None) -> Records:
    """Validate a usage table; ``rows`` are the file rows of its rows (header = row 1)."""
    columns = map_columns(list(frame.columns), filename)
    if not len(frame):
        raise fail(filename, [problem(1, None, "the file has a header but no data rows")])
    ts_col = columns["timestamp"]
    problems: list[dict] = []
    column = frame[ts_col]
    if column.dtype.kind == "M" or isinstance(column.dtype, pd.DatetimeTZDtype):
        start = timestamps.from_datetimes(column)
        for i in np.flatnonzero(np.isnat(start)):
            problems.append(problem(rows[i], str(ts_col), "empty timestamp"))
        if raw is not None:   # parsed by the reader: the text tells how each row was written
            problems += timestamps.mixed_written_periods(raw(ts_col), rows, str(ts_col))
    else:
        start, found = timestamps.parse(column, rows, str(ts_col))
        problems += found
    amount_col = columns.get("gpu_hours", columns.get("gpus"))
    amounts, found = numbers(frame[amount_col], rows, str(amount_col),
                             (lambda: raw(amount_col)) if raw else None)
    problems += found
    interruptible = np.zeros(len(frame), dtype=bool)
    kind = "workload" if "workload" in columns else "interruptible"
    if kind in columns:
        interruptible, found = flags(frame[columns[kind]], rows, str(columns[kind]), kind)
        problems += found
    if problems:
        problems.sort(key=lambda p: (p["row"] or 0))
        raise fail(filename, problems)
    return Records(start=start, amount=amounts, interruptible=interruptible,
                   team=teams(frame[columns["team"]]) if "team" in columns else None,
                   rows=rows, has_workload=kind in columns,
                   amount_is_gpus="gpus" in columns, timestamp_column=str(ts_col))
