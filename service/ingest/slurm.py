"""Slurm accounting: ``sacct --parsable2 --format=JobID,Start,End,AllocTRES,Partition,Account``.

Each job (not its steps, ``1234.batch``, ``1234.0``) holds ``gres/gpu=N`` GPUs (or typed
``gres/gpu:a100=N`` counts, summed) from Start to End; its GPU-hours are spread over the hours it
ran, split exactly at hour boundaries. Times are read as UTC (sacct prints the cluster's local
time without an offset). Account is the team. Jobs that never started or are still running
(Start or End ``Unknown``/``None``) and jobs without GPUs are counted and skipped.
"""
from __future__ import annotations

import io

import numpy as np
import pandas as pd

from service.ingest import exports
from service.ingest.build import MAX_PERIODS, Records, build
from service.ingest.core import IngestResult, Limits, fail, fail_one, problem
from service.ingest.table import normalise

FORMAT = "slurm"
HEADERS = {"jobid", "start", "end", "alloctres"}
NOT_A_TIME = {"unknown", "none", "", "nan"}


def gpu_count(tres: pd.Series) -> np.ndarray:
    """GPUs in each AllocTRES cell: gres/gpu=N, else the sum of typed gres/gpu:TYPE=N."""
    text = tres.fillna("")
    plain = text.str.extract(r"(?:^|,)gres/gpu=(\d+)")[0]
    typed = text.str.extractall(r"(?:^|,)gres/gpu:[^=,]+=(\d+)")[0].astype(int)
    typed = typed.groupby(level=0).sum().reindex(range(len(text)), fill_value=0)
    return np.where(plain.notna(), pd.to_numeric(plain).fillna(0), typed).astype(float)


def read(data: bytes, text: str, headers: list[str], sep: str, filename: str, limits: Limits
         ) -> IngestResult:
    lines = text.count("\n")
    if lines - 1 > limits.max_rows:
        raise fail_one(filename, f"the dump has {lines - 1:,} lines; the limit is "
                       f"{limits.max_rows:,}")
    try:
        frame = pd.read_csv(io.StringIO(text), sep="|", dtype=str, keep_default_na=False,
                            skip_blank_lines=False, index_col=False)
    except (pd.errors.ParserError, ValueError) as exc:
        raise fail_one(filename, f"cannot read the sacct output ({exc}); produce it with "
                       "sacct --parsable2 --format=JobID,Start,End,AllocTRES,Partition,"
                       "Account") from None
    frame = frame[[c for c in frame.columns if not str(c).startswith("Unnamed")]]
    rows = np.arange(2, len(frame) + 2)
    keep = (frame != "").any(axis=1).to_numpy()
    frame, rows = frame[keep].reset_index(drop=True), rows[keep]
    cols = {normalise(c): c for c in frame.columns}
    job, start_col, end_col, tres = (cols[k] for k in ("jobid", "start", "end", "alloctres"))
    is_job = ~frame[job].str.contains(r"\.", regex=True).to_numpy()
    gpus = gpu_count(frame[tres])
    start_text = frame[start_col].str.strip()
    end_text = frame[end_col].str.strip()
    ran = (~start_text.str.lower().isin(NOT_A_TIME) & ~end_text.str.lower().isin(NOT_A_TIME)
           ).to_numpy()
    used = is_job & (gpus > 0) & ran
    problems = []
    start, found = exports.times(start_text, rows, start_col, used)
    problems += found
    end, found = exports.times(end_text, rows, end_col, used)
    problems += found
    backwards = np.flatnonzero(used & (end < start))
    problems += [problem(rows[i], end_col, f"End {end_text.iat[i]} is before Start "
                         f"{start_text.iat[i]}") for i in backwards]
    if problems:
        raise fail(filename, problems)
    used &= end > start
    unfinished = int((is_job & (gpus > 0) & ~ran).sum())
    warnings = []
    if unfinished:
        warnings.append(f"{unfinished} GPU jobs had not started or not finished (Start or End "
                        "Unknown) and were skipped")
    if not used.any():
        raise fail_one(filename, "no finished GPU jobs (AllocTRES with gres/gpu) in this sacct "
                       "output")
    account = cols.get("account")
    team = frame[account].replace("", "(no account)").to_numpy(dtype=object)[used] \
        if account else np.full(used.sum(), "(no account)", dtype=object)
    s, e, n = start[used].astype("int64"), end[used].astype("int64"), gpus[used]
    first = s.min() // 3600 * 3600
    hours = int((e.max() - first + 3599) // 3600)
    if hours > MAX_PERIODS:
        raise fail_one(filename, f"the jobs span {hours:,} hours; at most {MAX_PERIODS:,}")
    grid = first + 3600 * np.arange(hours + 1)
    starts, amounts, teams = [], [], []
    for name in pd.unique(team):
        mine = team == name
        per_hour = np.diff(_gpu_seconds(grid, s[mine], e[mine], n[mine])) / 3600.0
        busy = np.flatnonzero(per_hour > 0)
        starts.append(grid[busy])
        amounts.append(per_hour[busy])
        teams.append(np.full(busy.size, name, dtype=object))
    stamps = np.concatenate(starts).astype("datetime64[s]")
    records = Records(start=stamps, amount=np.concatenate(amounts),
                      interruptible=np.zeros(stamps.size, bool), team=pd.Categorical(np.concatenate(teams)),
                      rows=np.zeros(stamps.size, int), check_duplicates=False)
    partitions = {}
    partition = cols.get("partition")
    if partition:
        job_hours = n * (e - s) / 3600.0
        partitions = {str(k): float(v) for k, v in
                      pd.Series(job_hours).groupby(frame[partition].to_numpy()[used]).sum()
                      .items()}
    skipped = int(len(rows) - used.sum())
    return build(records, filename, FORMAT, period="hour", warnings=warnings,
                 summary={"rows": len(rows), "jobs": int(used.sum()),
                          "partitions": partitions}, skipped_rows=skipped)


def _gpu_seconds(t: np.ndarray, s: np.ndarray, e: np.ndarray, n: np.ndarray) -> np.ndarray:
    """GPU-seconds used before each time t: sum of n * clip(t - s, 0, e - s) [GPU-s].

    Notes
    -----
    With jobs sorted by start, sum over s < t of n (t - s) = t N(t) - S(t) where N and S are
    running sums of n and n s; the same over ends is subtracted.
    """
    def part(points, weights):
        order = np.argsort(points)
        points, weights = points[order], weights[order]
        count = np.concatenate([[0.0], np.cumsum(weights)])
        moment = np.concatenate([[0.0], np.cumsum(weights * points)])
        k = np.searchsorted(points, t, side="left")
        return t * count[k] - moment[k]
    return part(s.astype(float), n) - part(e.astype(float), n)
