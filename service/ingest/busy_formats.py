"""The three GPU busy-time formats -> samples (GPU, time, busy fraction), with row problems."""
from __future__ import annotations

import io
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from service.clip import clip_repr
from service.ingest import csv as csv_reader
from service.ingest.core import Limits, fail, fail_one, problem
from service.ingest.table import normalise

ENGINE = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"     # ratio 0-1
UTIL = "DCGM_FI_DEV_GPU_UTIL"                # percent 0-100
METRICS = {ENGINE: 1.0, UTIL: 100.0}
SAMPLE = re.compile(r'^\s*(?P<name>[A-Za-z_:][A-Za-z0-9_:]*)?\s*(?:\{(?P<labels>[^}]*)\})?\s+'
                    r'(?P<value>[^\s]+)(?:\s+(?P<ts>[^\s]+))?\s*$')
LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"')
SMI_TIME = "%Y/%m/%d %H:%M:%S.%f"
MAX_PROBLEM_ROWS = 10_000


@dataclass
class Samples:
    gpu: np.ndarray                 # GPU key per sample (host/gpu or UUID)
    time: np.ndarray                # seconds since 1970-01-01 UTC [s]
    value: np.ndarray               # busy fraction 0-1
    team: np.ndarray | None = None
    summary: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def recognise(first_line: str) -> str | None:
    """'prometheus', 'dcgm_csv' or 'nvidia_smi' from a file's first line, else None."""
    line = first_line.strip()
    if line.startswith(("# HELP DCGM_FI_", "# TYPE DCGM_FI_", "DCGM_FI_", '{__name__="DCGM_FI_')):
        return "prometheus"
    names = {normalise(h) for h in re.split(r"[,;\t]", line)}
    if {normalise(ENGINE), normalise(UTIL)} & names:
        return "dcgm_csv"
    if "timestamp" in names and any(n.startswith("utilizationgpu") for n in names):
        return "nvidia_smi"
    return None


def read_samples(data: bytes, filename: str, limits: Limits) -> Samples:
    if len(data) > limits.max_bytes:
        raise fail_one(filename, f"the file is {len(data):,} bytes; the limit is "
                       f"{limits.max_bytes:,} bytes")
    text = csv_reader.text_of(data, filename)
    kind = recognise(csv_reader.first_line(text))
    if kind is None:
        raise fail_one(filename, "not a GPU busy-time file: expected DCGM exporter Prometheus "
                       f"text, a CSV with a {ENGINE} or {UTIL} column, or nvidia-smi "
                       "--query-gpu=timestamp,index,utilization.gpu --format=csv output", 1)
    lines = text.count("\n") + 1
    if lines - 1 > limits.max_rows * 4:        # a few metrics per sample in Prometheus text
        raise fail_one(filename, f"the file has {lines - 1:,} lines; the limit is "
                       f"{limits.max_rows * 4:,}")
    return {"prometheus": _prometheus, "dcgm_csv": _dcgm_csv,
            "nvidia_smi": _nvidia_smi}[kind](text, filename)


def _check(filename: str, rows: np.ndarray, time: np.ndarray, value: np.ndarray,
           scale: float, time_col: str, value_col: str, raw_time, raw_value) -> list[dict]:
    problems = []
    for i in np.flatnonzero(~np.isfinite(time))[:MAX_PROBLEM_ROWS]:
        problems.append(problem(rows[i], time_col,
                                f"cannot read {clip_repr(raw_time[i])} as a time"))
    bad = ~np.isfinite(value) | (value < 0) | (value > scale)
    unit = "a ratio from 0 to 1" if scale == 1.0 else "a percent from 0 to 100"
    for i in np.flatnonzero(bad)[:MAX_PROBLEM_ROWS]:
        problems.append(problem(rows[i], value_col,
                                f"expected {unit}, got {clip_repr(raw_value[i])}"))
    return sorted(problems, key=lambda p: p["row"])


def _seconds(values: pd.Series, fmt: str = "ISO8601") -> np.ndarray:
    """Seconds since 1970 (UTC); epoch numbers in seconds or milliseconds are accepted."""
    numeric = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    parsed = pd.to_datetime(values.where(np.isnan(numeric)), format=fmt, utc=True,
                            errors="coerce")
    seconds = ((parsed - pd.Timestamp(0, tz="UTC")) / pd.Timedelta(seconds=1)).to_numpy(float)
    epoch = np.where(numeric > 1e11, numeric / 1000.0, numeric)
    return np.where(np.isnan(numeric), seconds, epoch)


def _prometheus(text: str, filename: str) -> Samples:
    lines = pd.Series(text.splitlines())
    rows = np.arange(1, len(lines) + 1)
    keep = ~(lines.str.strip().eq("") | lines.str.lstrip().str.startswith("#")).to_numpy()
    parts = lines[keep].str.extract(SAMPLE)
    rows = rows[keep]
    number = pd.to_numeric(parts["value"], errors="coerce")
    broken = (parts["value"].isna() | (number.isna() & parts["value"].str.lower().ne("nan"))
              ).to_numpy()
    problems = [problem(r, None, "cannot read this line as a Prometheus sample "
                        "(metric{labels} value timestamp)") for r in rows[broken][:20]]
    if problems:
        raise fail(filename, problems)
    labels = parts["labels"].fillna("")
    name = parts["name"].fillna("")
    parsed = {cell: dict(LABEL.findall(cell)) for cell in labels.unique()}
    name = np.where(name == "", [parsed[c].get("__name__", "") for c in labels], name)
    present = [m for m in METRICS if (name == m).any()]
    if not present:
        raise fail_one(filename, f"no {ENGINE} or {UTIL} samples in this Prometheus text")
    metric = present[0]
    mine = name == metric
    parts, rows, labels = parts[mine], rows[mine], labels[mine]
    if parts["ts"].isna().any():
        row = rows[np.flatnonzero(parts["ts"].isna().to_numpy())[0]]
        raise fail_one(filename, "this sample has no timestamp; save scrapes with their "
                       "timestamps (promtool tsdb dump, or the Prometheus query API's "
                       "query_range) so busy time can be placed in hours", row)
    value = pd.to_numeric(parts["value"], errors="coerce").to_numpy(dtype=float)
    time = _seconds(parts["ts"])
    problems = _check(filename, rows, time, value, METRICS[metric], "timestamp", metric,
                      parts["ts"].to_numpy(), parts["value"].to_numpy())
    if problems:
        raise fail(filename, problems)
    info = [parsed[c] for c in labels]
    gpu = np.array([d.get("UUID") or f"{d.get('Hostname', '')}/{d.get('gpu', '')}"
                    for d in info], dtype=object)
    team = np.array([d.get("team") or d.get("namespace") or "(no team)" for d in info],
                    dtype=object)
    has_team = any(("team" in d or "namespace" in d) for d in info)
    hosts = {d.get("Hostname") for d in info if d.get("Hostname")}
    return Samples(gpu, time, value / METRICS[metric], team if has_team else None,
                   {"format": "dcgm_prometheus", "metric": metric, "hosts": len(hosts)})


def _table(text: str, filename: str, **options) -> pd.DataFrame:
    try:
        return pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, **options)
    except (pd.errors.ParserError, ValueError) as exc:
        match = re.search(r"line (\d+), saw (\d+)", str(exc))
        raise fail_one(filename, f"cannot read as CSV ({exc})",
                       int(match.group(1)) if match else None) from None


def _dcgm_csv(text: str, filename: str) -> Samples:
    headers, sep = csv_reader.header(text, filename)
    frame = _table(text, filename, sep=sep, skipinitialspace=True)
    lookup = {normalise(c): c for c in frame.columns}
    metric = ENGINE if normalise(ENGINE) in lookup else UTIL
    time_col = lookup.get("timestamp") or lookup.get("time")
    gpu_col = lookup.get("gpu") or lookup.get("uuid") or lookup.get("index")
    missing = [n for n, c in (("timestamp", time_col), ("gpu", gpu_col)) if c is None]
    if missing:
        raise fail_one(filename, f"missing column {', '.join(missing)}; expected timestamp, "
                       f"gpu, {metric} and optional host and team; found {list(frame.columns)}",
                       1)
    rows = np.arange(2, len(frame) + 2)
    value_col = lookup[normalise(metric)]
    value = pd.to_numeric(frame[value_col].str.strip(), errors="coerce").to_numpy(dtype=float)
    time = _seconds(frame[time_col].str.strip())
    problems = _check(filename, rows, time, value, METRICS[metric], time_col, value_col,
                      frame[time_col].to_numpy(), frame[value_col].to_numpy())
    if problems:
        raise fail(filename, problems)
    host_col = lookup.get("host") or lookup.get("hostname")
    host = frame[host_col].to_numpy(dtype=object) if host_col else np.full(len(frame), "")
    gpu = (pd.Series(host, dtype=object) + "/" + frame[gpu_col].str.strip()).to_numpy(object)
    team_col = lookup.get("team") or lookup.get("namespace")
    team = frame[team_col].replace("", "(no team)").to_numpy(dtype=object) if team_col else None
    return Samples(gpu, time, value / METRICS[metric], team,
                   {"format": "dcgm_csv", "metric": metric,
                    "hosts": int(len(set(host))) if host_col else 1})


def _nvidia_smi(text: str, filename: str) -> Samples:
    frame = _table(text, filename, sep=",", skipinitialspace=True)
    lookup = {normalise(c): c for c in frame.columns}
    util_col = next(c for n, c in lookup.items() if n.startswith("utilizationgpu"))
    time_col = lookup["timestamp"]
    gpu_col = lookup.get("uuid") or lookup.get("index")
    if gpu_col is None:
        raise fail_one(filename, "nvidia-smi output without an index (or uuid) column: query "
                       "--query-gpu=timestamp,index,utilization.gpu", 1)
    rows = np.arange(2, len(frame) + 2)
    raw = frame[util_col].str.replace("%", "", regex=False).str.strip()
    value = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    time = _seconds(frame[time_col].str.strip(), SMI_TIME)
    problems = _check(filename, rows, time, value, 100.0, time_col, util_col,
                      frame[time_col].to_numpy(), frame[util_col].to_numpy())
    if problems:
        raise fail(filename, problems)
    return Samples(frame[gpu_col].str.strip().to_numpy(dtype=object), time, value / 100.0, None,
                   {"format": "nvidia_smi", "metric": "utilization.gpu", "hosts": 1},
                   ["nvidia-smi writes the host's local time without a zone; it was read as "
                    "UTC (run nvidia-smi with TZ=UTC so that hours line up with the bill)"])
