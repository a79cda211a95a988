"""Usage (what is billed) joined with busy time (what the GPUs did): the preview's comparison.

Per period of the usage file, utilization = busy GPU-hours / monitored GPU-hours of the
busy-time file, and busy GPU-hours of the billed time = allocated GPU-hours x min(1,
utilization). Using the monitored share keeps the estimate right when monitoring covers only
some GPUs (a warning says how much it covered). Idle GPU-hours = allocated - busy: paid for, not
worked. Where utilization stays under half for at least six hours in a row the GPUs were
waiting, most often on data loading or preprocessing (seed 002: "nvidia-smi로 사용률을 봤을 때
계속 50% 아래를 오간다면 ... 그 돈이 대기 시간에 쓰인다"). Periods without samples have no busy
time (NaN), and plans on the busy basis keep their allocated demand there.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from service.ingest.busy import BusyTime
from service.ingest.core import IngestResult

STARVED_BELOW = 0.5        # utilization under half of allocated time ...
STARVED_HOURS = 6          # ... for at least this many hours in a row
SHOWN_STRETCHES = 20


def _per_period(result: IngestResult, busy: BusyTime, values: np.ndarray) -> np.ndarray:
    profile = result.profile
    unit = {"hour": "h", "day": "D", "month": "M"}[profile.period]
    first = profile.starts[0].astype(f"datetime64[{unit}]")
    position = (busy.hours.astype(f"datetime64[{unit}]") - first).astype(int)
    inside = (position >= 0) & (position < len(profile.starts))
    return np.bincount(position[inside], values[inside], minlength=len(profile.starts))


def join_busy(result: IngestResult, busy: BusyTime, busy_name: str) -> IngestResult:
    """The usage result with busy GPU-hours in its profile and a "busy" preview section."""
    profile = result.profile
    allocated = profile.steady + profile.interruptible
    watched = _per_period(result, busy, busy.monitored)
    worked = _per_period(result, busy, busy.busy)
    measured = watched > 0
    utilization = np.divide(worked, watched, out=np.full(len(watched), np.nan), where=measured)
    busy_hours = np.where(measured, allocated * np.minimum(1.0, utilization), np.nan)
    warnings = list(result.warnings) + [f"{busy_name}: {w}" for w in busy.warnings]
    m = measured
    section = {"file": busy_name, **busy.summary,
               "measured_periods": int(m.sum()), "periods": int(len(allocated)),
               "allocated_gpu_hours": float(allocated[m].sum()),
               "monitored_gpu_hours": float(watched[m].sum()),
               "busy_gpu_hours": float(busy_hours[m].sum()),
               "idle_gpu_hours": float(allocated[m].sum() - busy_hours[m].sum()),
               "utilization": float(busy_hours[m].sum() / allocated[m].sum())
               if allocated[m].sum() > 0 else None}
    if not m.any():
        warnings.append(f"{busy_name}: its samples ({busy.summary['first']} to "
                        f"{busy.summary['last']}) fall in no period of the usage file; no busy "
                        "time was joined")
    else:
        coverage = watched[m].sum() / allocated[m].sum() if allocated[m].sum() > 0 else np.inf
        if not 0.9 <= coverage <= 1.1:
            warnings.append(f"{busy_name} monitored {watched[m].sum():,.0f} GPU-hours where the "
                            f"usage file bills {allocated[m].sum():,.0f} in the same periods "
                            f"({coverage:.0%}); busy time is scaled from the GPUs it watched")
        if m.sum() < len(m):
            warnings.append(f"{busy_name} covers {m.sum():,} of {len(m):,} {profile.period}s "
                            "of the usage; the others have no busy time")
    section["teams"] = _teams(result, busy, m)
    stretches = _starved(profile, worked, watched, m)
    section["starved_stretches"] = stretches[:SHOWN_STRETCHES]
    if stretches:
        hours = sum(s["hours"] for s in stretches)
        first = stretches[0]
        warnings.append(
            f"GPUs were busy under {STARVED_BELOW:.0%} of their allocated time for "
            f"{len(stretches)} stretch{'es' if len(stretches) > 1 else ''} of "
            f"{STARVED_HOURS} hours or more ({hours:,.0f} hours in all; the first from "
            f"{first['from']} to {first['to']}, {first['utilization']:.0%} busy): they were "
            "waiting, most often on data loading or preprocessing (DataLoader num_workers, "
            "CPU decoding and augmentation, remote storage). Fix the input pipeline before "
            "buying or renting more GPUs")
    summary = dict(result.summary, busy=section)
    return dataclasses.replace(result, profile=dataclasses.replace(profile, busy=busy_hours),
                               warnings=warnings, summary=summary)


def _teams(result: IngestResult, busy: BusyTime, measured: np.ndarray) -> dict:
    """Allocated vs busy GPU-hours per team over the measured periods (busy needs the busy-time
    file to name teams; otherwise only allocated hours are shown)."""
    allocated = {t: float(v[measured].sum()) for t, v in (result.team_periods or {}).items()}
    out = {t: {"allocated_gpu_hours": v} for t, v in allocated.items()}
    for team, (worked, watched) in busy.teams.items():
        w, s = _per_period(result, busy, worked), _per_period(result, busy, watched)
        u = w[measured].sum() / s[measured].sum() if s[measured].sum() > 0 else None
        entry = out.setdefault(team, {"allocated_gpu_hours": 0.0})
        entry["utilization"] = None if u is None else float(u)
        if u is not None:
            entry["busy_gpu_hours"] = float(entry["allocated_gpu_hours"] * min(1.0, u))
            entry["idle_gpu_hours"] = float(entry["allocated_gpu_hours"] - entry["busy_gpu_hours"])
    return out


def _starved(profile, worked: np.ndarray, watched: np.ndarray, measured: np.ndarray
             ) -> list[dict]:
    low = measured & (worked < STARVED_BELOW * watched)
    hours = profile.hours()
    edges = np.flatnonzero(np.diff(np.concatenate([[0], low.astype(int), [0]])))
    out = []
    for a, b in zip(edges[::2], edges[1::2]):
        length = float(hours[a:b].sum())
        if length >= STARVED_HOURS:
            end = profile.starts[b - 1] + np.timedelta64(int(hours[b - 1]), "h")
            out.append({"from": _when(profile.starts[a]), "to": _when(end), "hours": length,
                        "utilization": float(worked[a:b].sum() / watched[a:b].sum())})
    return out


def _when(hour: np.datetime64) -> str:
    return str(hour.astype("datetime64[m]")).replace("T", " ")
