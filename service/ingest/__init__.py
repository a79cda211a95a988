"""Usage files -> validated UsageProfile (design 4.1, 7).

``load_usage(path)`` is the one entry point every view uses. This first reader takes the plain
CSV layout of the samples (timestamp, gpu_hours, optional workload and team).
"""
from __future__ import annotations

from dataclasses import dataclass, field
import io
from pathlib import Path

import numpy as np
import pandas as pd

from models.profile import UsageProfile, period_starts


class IngestError(ValueError):
    """A usage file that cannot be read; ``problems`` lists row/column details."""

    def __init__(self, message: str, problems: list[dict] | None = None):
        super().__init__(message)
        self.problems = problems or []


@dataclass
class IngestResult:
    profile: UsageProfile
    warnings: list[str] = field(default_factory=list)


def load_usage(path: str | Path) -> IngestResult:
    path = Path(path)
    return read_usage(path.read_bytes(), path.name)


def read_usage(data: bytes, filename: str) -> IngestResult:
    """Parse an uploaded usage file (its bytes and the name the user gave it)."""
    path = Path(filename)
    try:
        frame = pd.read_csv(io.BytesIO(data))
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise IngestError(f"{path.name}: cannot read as CSV ({exc})") from None
    for column in ("timestamp", "gpu_hours"):
        if column not in frame.columns:
            raise IngestError(f"{path.name}: missing column {column!r}; found "
                              f"{list(frame.columns)}")
    text = frame["timestamp"].astype(str)
    period = ("month" if text.str.fullmatch(r"\d{4}-\d{2}").all() else
              "day" if text.str.fullmatch(r"\d{4}-\d{2}-\d{2}").all() else "hour")
    stamps = pd.to_datetime(text, format="ISO8601" if period == "hour" else None)
    hours = pd.to_numeric(frame["gpu_hours"], errors="coerce")
    bad = np.flatnonzero(hours.isna().to_numpy() | (hours < 0).to_numpy())
    if bad.size:
        row = int(bad[0]) + 2
        raise IngestError(f"{path.name}: row {row}, column gpu_hours: expected a number >= 0, "
                          f"got {frame['gpu_hours'].iloc[bad[0]]!r}")
    interruptible = (frame["workload"].astype(str).str.lower() == "interruptible"
                     if "workload" in frame.columns else pd.Series(False, index=frame.index))
    keys = stamps.dt.floor("h").to_numpy().astype("datetime64[h]")
    first, last = keys.min(), keys.max()
    count = {"hour": int((last - first) / np.timedelta64(1, "h")) + 1,
             "day": int((last - first) / np.timedelta64(24, "h")) + 1,
             "month": int((last.astype("datetime64[M]") - first.astype("datetime64[M]"))
                          / np.timedelta64(1, "M")) + 1}[period]
    starts = period_starts(first, count, period)
    position = np.searchsorted(starts, keys)
    steady = np.bincount(position, hours.where(~interruptible, 0).to_numpy(), minlength=count)
    inter = np.bincount(position, hours.where(interruptible, 0).to_numpy(), minlength=count)
    teams = (frame.groupby("team")["gpu_hours"].sum().to_dict() if "team" in frame.columns
             else {})
    profile = UsageProfile(period, starts, steady, inter,
                           has_workload="workload" in frame.columns,
                           teams={str(k): float(v) for k, v in teams.items()})
    return IngestResult(profile)
