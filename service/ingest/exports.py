"""What billing exports (FOCUS, AWS CUR) share: reading only the needed columns of a wide
file, charge-period times, tags carrying a team, and turning GPU rows into records."""
from __future__ import annotations

import io
import json
import warnings as pywarnings
from collections.abc import Callable

import numpy as np
import pandas as pd

from service.clip import clip_repr
from service.ingest.build import Records, build
from service.ingest.core import IngestResult, Limits, fail, fail_one, problem
from service.ingest.table import normalise

CATEGORIES = ("on_demand", "committed", "spot", "other")


def column_reader(wanted: Callable[[str], bool], from_frame: Callable[..., IngestResult]
                  ) -> Callable[..., IngestResult]:
    """The ``read`` entry point of a billing-export format: its wanted columns as text, then
    the format's ``from_frame`` (the same one the xlsx path calls)."""
    def read(data: bytes, text: str, headers: list[str], sep: str, filename: str,
             limits: Limits) -> IngestResult:
        frame, rows = read_columns(data, headers, sep, filename, limits, wanted)
        return from_frame(frame, rows, filename, limits, [])
    return read


def charge_periods(frame: pd.DataFrame, rows: np.ndarray, start_col: str, end_col: str,
                   qty_col: str, candidate: np.ndarray):
    """Start, end and quantity of the candidate GPU rows, the rows that count, and problems."""
    problems = []
    start, found = times(frame[start_col], rows, start_col, candidate)
    problems += found
    end, found = times(frame[end_col], rows, end_col, candidate)
    problems += found
    quantity, found = numbers(frame[qty_col], rows, qty_col, candidate)
    problems += found
    gpu_rows = candidate & np.isfinite(quantity) & (quantity > 0) & ~np.isnat(start)
    return start, end, quantity, gpu_rows, problems


def read_columns(data: bytes, headers: list[str], sep: str, filename: str, limits: Limits,
                 wanted: Callable[[str], bool]) -> tuple[pd.DataFrame, np.ndarray]:
    """Only the columns ``wanted(header)`` keeps, all as text (NULL and empty -> NaN)."""
    if len(headers) > limits.max_export_columns:
        raise fail_one(filename, f"the export has {len(headers)} columns; the limit is "
                       f"{limits.max_export_columns}", 1)
    text_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if text_lines - 1 > limits.max_rows:
        raise fail_one(filename, f"the export has {text_lines - 1:,} data rows; the limit is "
                       f"{limits.max_rows:,}")
    keep = [h for h in headers if wanted(h)]
    try:
        frame = pd.read_csv(io.BytesIO(data), sep=sep, encoding="utf-8-sig", dtype=str,
                            usecols=keep, skip_blank_lines=False, keep_default_na=False,
                            na_values=["", "NULL", "null"])
    except (pd.errors.ParserError, ValueError) as exc:
        raise fail_one(filename, f"cannot read the export as CSV ({exc})") from None
    rows = np.arange(2, len(frame) + 2)
    blank = frame.isna().all(axis=1).to_numpy()
    return frame[~blank].reset_index(drop=True), rows[~blank]


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


def times(values: pd.Series, rows: np.ndarray, col: str, mask: np.ndarray
          ) -> tuple[np.ndarray, list[dict]]:
    with pywarnings.catch_warnings():
        pywarnings.simplefilter("ignore")
        parsed = pd.to_datetime(values.str.strip(), format="ISO8601", utc=True, errors="coerce")
    out = parsed.dt.tz_localize(None).to_numpy().astype("datetime64[s]")
    bad = np.flatnonzero(np.isnat(out) & mask)
    return out, [problem(rows[i], col, f"cannot read {clip_repr(values.iat[i])} as a date-time")
                 for i in bad]


def numbers(values: pd.Series, rows: np.ndarray, col: str, mask: np.ndarray
            ) -> tuple[np.ndarray, list[dict]]:
    out = pd.to_numeric(values.str.strip(), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero((~np.isfinite(out) | (out < 0)) & mask)
    return out, [problem(rows[i], col, "missing quantity (empty or NULL)" if pd.isna(values.iat[i])
                         else f"expected a quantity >= 0, got {clip_repr(values.iat[i])}")
                 for i in bad]


def team_from_tags(tags: pd.Series) -> tuple[np.ndarray, int]:
    """The value of a tag whose key ends in 'team' (team, user:team, Team) in JSON tag cells."""
    codes, uniques = pd.factorize(tags)
    names, unreadable = [], 0
    for cell in uniques:
        try:
            parsed = json.loads(cell)
        except (TypeError, ValueError):
            parsed, unreadable = None, unreadable + 1
        value = None
        if isinstance(parsed, dict):
            value = next((str(v) for k, v in parsed.items()
                          if normalise(k).endswith("team") and v not in (None, "")), None)
        names.append(value or "(no team)")
    return np.array(names + ["(no team)"], dtype=object)[codes], unreadable


def period_of(start: np.ndarray, end: np.ndarray) -> str:
    """hour, day or month from the typical charge-period length."""
    seconds = (end - start).astype("int64")
    seconds = seconds[seconds > 0]
    typical = float(np.median(seconds)) if seconds.size else 3600.0
    return "hour" if typical <= 3600 else "day" if typical <= 86400 else "month"


def finish(filename: str, fmt: str, label: str, rows: np.ndarray, gpu_rows: np.ndarray,
           start: np.ndarray, end: np.ndarray, instance_hours: np.ndarray, gpus: np.ndarray,
           pricing: np.ndarray, team: np.ndarray | None, problems: list[dict],
           warnings: list[str]) -> IngestResult:
    if problems:
        raise fail(filename, problems)
    if not gpu_rows.any():
        raise fail_one(filename, f"no GPU instance usage found in this {label} export: none "
                       "of its rows is an hourly charge for a GPU instance type we know "
                       "(see service/ingest/instance_gpus.csv)")
    gpu_hours = (instance_hours * gpus)[gpu_rows]
    kind = pricing[gpu_rows]
    spot = kind == "spot"
    by_kind = {k: float(gpu_hours[kind == k].sum()) for k in CATEGORIES
               if k != "other" or (kind == k).any()}
    skipped = int(len(rows) - gpu_rows.sum())
    warnings = list(warnings)
    if skipped:
        warnings.append(f"{skipped} rows are not GPU instance usage (other services, storage, "
                        "fees, taxes, credits) and were skipped")
    if spot.any():
        warnings.append(f"{by_kind['spot']:,.0f} GPU-hours ran on spot: read as interruptible "
                        "work")
    records = Records(start=start[gpu_rows], amount=gpu_hours, interruptible=spot,
                      team=pd.Categorical(team[gpu_rows]) if team is not None else None,
                      rows=rows[gpu_rows], has_workload=bool(spot.any()),
                      check_duplicates=False)
    return build(records, filename, fmt, period=period_of(start[gpu_rows], end[gpu_rows]),
                 warnings=warnings, summary={"pricing_categories": by_kind},
                 skipped_rows=skipped)


def as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """Every cell as text or NaN (sheet cells arrive as numbers and datetimes)."""
    out = {}
    for name in frame.columns:
        values = frame[name]
        if values.dtype.kind == "M":
            out[name] = values.dt.strftime("%Y-%m-%dT%H:%M:%S").astype(object)
        elif values.dtype != object and not pd.api.types.is_string_dtype(values):
            out[name] = values.map(lambda v: None if pd.isna(v) else repr(float(v)))
        else:
            out[name] = values.map(lambda v: None if v is None or
                                   (isinstance(v, float) and np.isnan(v)) else
                                   v.isoformat() if hasattr(v, "isoformat") else str(v))
        out[name] = out[name].astype(object).where(out[name].notna(), np.nan)
    return pd.DataFrame(out)
