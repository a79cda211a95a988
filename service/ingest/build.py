"""Validated records -> UsageProfile, warnings and the preview summary (design 4.1).

Every format ends here: the period is given (billing exports, Slurm) or inferred from the
timestamps (it must be uniform), rows of the same period are summed, and periods missing inside
the range count as zero usage.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from models.profile import ProfileError, UsageProfile, period_hours, period_starts
from service.ingest.core import IngestResult, fail, fail_one, problem

HOUR = np.timedelta64(3600, "s")
DAY = np.timedelta64(86400, "s")
MAX_PERIODS = 1_000_000      # hours a Slurm file's jobs may span before they are laid out
MAX_SPAN_YEARS = 20          # from the first period's start to the last one's end
MAX_TEAM_CELLS = 5_000_000   # per-team series per period are kept up to teams x periods
MIXED_RUN = 3   # this many day (month) steps in a row in an hourly (daily) file = mixed periods


@dataclass
class Records:
    """One entry per usable input row."""

    start: np.ndarray            # period (or row) start, UTC [datetime64[s]]
    amount: np.ndarray           # GPU-hours, or GPUs busy when amount_is_gpus
    interruptible: np.ndarray    # bool
    team: pd.Categorical | None   # team of each row, or None
    rows: np.ndarray             # file row of each entry (header = 1)
    has_workload: bool = False
    amount_is_gpus: bool = False
    timestamp_column: str | None = None
    check_duplicates: bool = True


def distinct(start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct times and the index of each one's first row (sorted input: no sort)."""
    seconds = start.view("int64")
    order = None
    if seconds.size > 1 and not np.all(seconds[1:] >= seconds[:-1]):
        order = np.argsort(seconds, kind="stable")
        seconds = seconds[order]
    new = np.ones(seconds.size, dtype=bool)
    np.not_equal(seconds[1:], seconds[:-1], out=new[1:])
    first = np.flatnonzero(new)
    return seconds[new].view("datetime64[s]"), first if order is None else order[first]


def infer_period(start: np.ndarray, rows: np.ndarray, filename: str, column: str | None,
                 unique: np.ndarray, first: np.ndarray) -> tuple[str, list[str]]:
    """hour, day or month from the timestamps themselves; a mixed file is an error.

    ``unique`` and ``first`` come from ``distinct(start)``.
    """
    seconds = unique.view("int64")
    off_hour = np.flatnonzero(seconds % 3600)
    if off_hour.size:
        i = first[off_hour[0]]
        raise fail_one(filename, f"{pd.Timestamp(start[i])} (UTC) is not the start of an hour; "
                       "timestamps must be hour, day or month starts", rows[i], column)
    if (seconds % 86400).any():
        return "hour", _check_runs(unique, rows[first], "hour", filename, column)
    days = unique.astype("datetime64[D]")
    first_of_month = days == days.astype("datetime64[M]").astype("datetime64[D]")
    if first_of_month.all() and (len(days) == 1 or np.diff(days).min() >= 28):
        note = ["one row only: read as one month"] if len(days) == 1 else []
        return "month", note
    return "day", _check_runs(unique, rows[first], "day", filename, column)


def _check_runs(unique, rows, period, filename, column) -> list[str]:
    """Runs of day steps in an hourly file (month steps in a daily one) mean mixed periods."""
    if len(unique) < MIXED_RUN + 1:
        return []
    step = np.diff(unique)
    if period == "hour":
        wide = (step == DAY) & (unique[1:].view("int64") % 86400 == 0)
        label, other = "hourly", "daily"
    else:
        months = unique.astype("datetime64[M]")
        on_first = unique.astype("datetime64[D]") == months.astype("datetime64[D]")
        wide = (np.diff(months) == np.timedelta64(1, "M")) & on_first[1:] & on_first[:-1]
        label, other = "daily", "monthly"
    run = np.convolve(wide.astype(int), np.ones(MIXED_RUN, int), "valid")
    hit = np.flatnonzero(run == MIXED_RUN)
    if hit.size:
        row = rows[hit[0]]
        raise fail_one(filename, f"mixed periods: the file is {label} but from row {row} the "
                       f"timestamps are {other}; use one period length per file", row, column)
    return []


def _duplicates(rec: Records, filename: str) -> int:
    """Rows repeating another row's timestamp, team and workload: identical = warned, else error."""
    stamps = rec.start.view("int64")
    key = pd.DataFrame({"s": stamps, "w": rec.interruptible,
                        "t": pd.factorize(rec.team)[0] if rec.team is not None else 0})
    repeated = np.flatnonzero(key.duplicated(keep=False).to_numpy())
    first_of = {}
    problems, identical = [], 0
    for i in repeated:
        k = (stamps[i], rec.interruptible[i], key["t"].iat[i])
        if k not in first_of:
            first_of[k] = i
            continue
        j = first_of[k]
        if rec.amount[i] == rec.amount[j]:
            identical += 1
        else:
            what = "timestamp" + (", team" if rec.team is not None else "") + \
                (" and workload" if rec.has_workload else "")
            problems.append(problem(rec.rows[i], rec.timestamp_column,
                                    f"duplicate timestamp: same {what} as row {rec.rows[j]} "
                                    "with a different value"))
    if problems:
        raise fail(filename, problems)
    return identical


def check_span(first: np.datetime64, last: np.datetime64, filename: str,
               column: str | None) -> None:
    """Refuse a file whose periods (months, days or hours) span more than MAX_SPAN_YEARS.

    Twenty years is the longest plan (``finance.horizon_months`` <= 240) and still a light
    file (175,320 hours); a monthly file from 1900-01 to 9999-12 took 10 s and a 2.6 MB
    preview page.
    """
    month = first.astype("datetime64[M]")
    limit = (month + np.timedelta64(12 * MAX_SPAN_YEARS, "M")).astype(first.dtype) + (
        first - month.astype(first.dtype))
    if last + np.timedelta64(1, np.datetime_data(first.dtype)[0]) > limit:
        raise fail_one(filename, f"the timestamps run from {first} to {last}: more than "
                       f"{MAX_SPAN_YEARS} years; a usage file may span at most "
                       f"{MAX_SPAN_YEARS} years (split it, or keep its latest years)", None,
                       column)


def build(rec: Records, filename: str, fmt: str, *, period: str | None = None,
          warnings: list[str] | None = None, summary: dict | None = None,
          skipped_rows: int = 0) -> IngestResult:
    warnings = list(warnings or [])
    if not len(rec.start):
        raise fail_one(filename, "no usable rows: the file holds no GPU usage")
    duplicates = 0
    if period is None or rec.check_duplicates:
        unique, first = distinct(rec.start)
        if period is None:
            period, notes = infer_period(rec.start, rec.rows, filename, rec.timestamp_column,
                                         unique, first)
            warnings += notes
        if rec.check_duplicates and len(unique) < len(rec.start):
            duplicates = _duplicates(rec, filename)
    if period == "month":
        unit = rec.start.astype("datetime64[M]")
    elif period == "day":
        unit = rec.start.astype("datetime64[D]")
    else:
        unit = rec.start.astype("datetime64[h]")
    first, last = unit.min(), unit.max()
    check_span(first, last, filename, rec.timestamp_column)
    count = int((last - first).astype(int)) + 1
    position = (unit - first).astype(int)
    starts = period_starts(np.datetime64(first, "h"), count, period)
    amount = rec.amount
    if rec.amount_is_gpus:
        amount = amount * period_hours(starts, period)[position]
    steady = np.bincount(position, np.where(rec.interruptible, 0.0, amount), minlength=count)
    inter = np.bincount(position, np.where(rec.interruptible, amount, 0.0), minlength=count)
    missing = count - int(np.count_nonzero(np.bincount(position, minlength=count)))
    if missing:
        warnings.append(f"{missing} {period}{'s' if missing > 1 else ''} between {starts[0]} "
                        f"and {starts[-1]} have no rows; they count as zero usage")
    if duplicates:
        warnings.append(f"{duplicates} row{'s are' if duplicates > 1 else ' is'} identical to an "
                        "earlier row in every column: likely duplicates (they were counted)")
    teams: dict[str, float] = {}
    team_periods = None
    if rec.team is not None:
        codes, names = pd.factorize(rec.team)
        totals = np.bincount(codes, amount, minlength=len(names))
        teams = {str(n): float(t) for n, t in zip(names, totals)}
        if len(names) * count <= MAX_TEAM_CELLS:
            flat = np.bincount(codes * count + position, amount, minlength=len(names) * count)
            team_periods = {str(n): flat[i * count:(i + 1) * count]
                            for i, n in enumerate(names)}
    try:
        profile = UsageProfile(period, starts, steady, inter, has_workload=rec.has_workload,
                               teams=teams)
    except ProfileError as exc:
        raise fail_one(filename, str(exc)) from None
    hours = profile.hours()
    result = {
        "format": fmt, "rows": int(len(rec.rows) + skipped_rows), "period": period,
        "periods": count, "first": str(starts[0].astype("datetime64[s]")),
        "last": str(starts[-1].astype("datetime64[s]")),
        "gpu_hours": float(steady.sum() + inter.sum()),
        "steady_gpu_hours": float(steady.sum()), "interruptible_gpu_hours": float(inter.sum()),
        "peak_gpus": float(((steady + inter) / hours).max()), "teams": teams,
        "pricing_categories": {}, "skipped_rows": int(skipped_rows),
        "missing_periods": int(missing), "duplicates": int(duplicates),
    }
    result.update(summary or {})
    return IngestResult(profile, warnings, result, team_periods)
