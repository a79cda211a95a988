"""GPU busy time: what fraction of each hour each GPU was working, from monitoring exports.

Read formats (recognised by content):
- DCGM exporter Prometheus text with sample timestamps (scrapes saved with timestamps, or
  ``promtool tsdb dump``):
  ``DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="0",Hostname="n1",...} 0.87 1767225600000``;
- CSV ``timestamp, gpu, DCGM_FI_PROF_GR_ENGINE_ACTIVE`` (or ``DCGM_FI_DEV_GPU_UTIL``), optional
  ``host`` and ``team`` columns;
- ``nvidia-smi --query-gpu=timestamp,index,utilization.gpu --format=csv`` (one host).
DCGM_FI_PROF_GR_ENGINE_ACTIVE is a ratio 0-1 (preferred when a file has both);
DCGM_FI_DEV_GPU_UTIL and utilization.gpu are percent 0-100.

Each sample stands for the time until the GPU's next sample, at most three typical sample
intervals (a longer gap is time nobody watched, not busy or idle time); the last sample of a GPU
stands for one typical interval. That time is cut at hour boundaries. Busy GPU-hours = sum of
value x time; monitored GPU-hours = sum of time; both per hour and per team.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from service.ingest.busy_formats import Samples, read_samples, recognise
from service.ingest.core import Limits, fail_one

HOUR = 3600
GAP_INTERVALS = 3      # a gap over three typical intervals is unobserved time

__all__ = ["BusyTime", "read_busy", "recognise"]


@dataclass
class BusyTime:
    """Busy and monitored GPU-hours per hour (and per team), UTC."""

    hours: np.ndarray                 # hour starts [datetime64[h]], sorted, distinct
    busy: np.ndarray                  # GPU-hours busy in each hour [GPU-hours]
    monitored: np.ndarray             # GPU-hours watched in each hour [GPU-hours]
    teams: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    summary: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def read_busy(data: bytes, filename: str, limits: Limits | None = None) -> BusyTime:
    samples = read_samples(data, filename, limits or Limits())
    if not len(samples.time):
        raise fail_one(filename, "the busy-time file has a header but no samples")
    return aggregate(samples)


def _split_at_hours(time: np.ndarray, held: np.ndarray):
    """Each sample's held time cut at hour boundaries: (hour, seconds, sample index) pieces."""
    start, end = time, time + held
    hour = np.floor(start / HOUR).astype("int64")
    pieces_hour, pieces_seconds, pieces_index = [], [], []
    index = np.arange(len(time))
    while len(start):
        cut = np.minimum(end, (hour + 1) * HOUR)
        pieces_hour.append(hour)
        pieces_seconds.append(cut - start)
        pieces_index.append(index)
        more = end > cut
        start, end, hour, index = cut[more], end[more], hour[more] + 1, index[more]
    return (np.concatenate(pieces_hour), np.concatenate(pieces_seconds),
            np.concatenate(pieces_index))


def aggregate(s: Samples) -> BusyTime:
    """Samples -> busy and monitored GPU-hours per hour, with each sample held until the next."""
    order = np.lexsort((s.time, s.gpu))
    gpu, time, value = s.gpu[order], s.time[order], s.value[order]
    team = s.team[order] if s.team is not None else None
    same = np.zeros(len(time), dtype=bool)
    same[:-1] = gpu[1:] == gpu[:-1]
    step = np.zeros(len(time))
    step[:-1] = np.diff(time)
    typical = float(np.median(step[same & (step > 0)])) if (same & (step > 0)).any() else 60.0
    held = np.where(same, np.minimum(step, GAP_INTERVALS * typical), typical)
    hour, seconds, index = _split_at_hours(time, held)
    keys, position = np.unique(hour, return_inverse=True)
    weight = value[index] * seconds
    busy = np.bincount(position, weight, minlength=len(keys)) / HOUR
    monitored = np.bincount(position, seconds, minlength=len(keys)) / HOUR
    teams = {}
    if team is not None:
        team = team[index]
        for name in pd.unique(team):
            mine = team == name
            teams[str(name)] = (np.bincount(position[mine], weight[mine],
                                            minlength=len(keys)) / HOUR,
                                np.bincount(position[mine], seconds[mine],
                                            minlength=len(keys)) / HOUR)
    hours = (keys * HOUR).astype("datetime64[s]").astype("datetime64[h]")
    summary = dict(s.summary, gpus=int(len(pd.unique(s.gpu))), samples=int(len(time)),
                   sample_interval_seconds=typical, first=str(hours[0]), last=str(hours[-1]))
    return BusyTime(hours, busy, monitored, teams, summary, list(s.warnings))
