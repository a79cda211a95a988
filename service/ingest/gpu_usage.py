"""GPU rows of a billing export -> the usage profile and what the preview says about them.

Every export reader (FOCUS, CUR, Azure, Google Cloud) ends here with a ``GpuUsage``: per row its
GPU-hours, pricing category, and where the export has them its commitment, cost with currency,
provider and team. Spot GPU-hours are read as interruptible work. Costs are summed per currency
as the rows carry them, never converted.

``capture()`` hands the rows themselves to a reader of costs by month (service/actuals.py, plan
against actual): inside it, ``finish`` also appends its ``GpuUsage`` to the list it yields.
What ``finish`` returns is the same with or without it.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np
import pandas as pd

from service.ingest.build import Records, build
from service.ingest.core import IngestError, IngestResult, fail, fail_one
from service.ingest.exports import period_of

CATEGORIES = ("on_demand", "committed", "spot", "other")


@dataclass
class GpuUsage:
    """Arrays over all data rows of the export; ``counted`` marks the GPU usage rows."""

    rows: np.ndarray                        # file row of each data row (header = 1)
    counted: np.ndarray                     # bool
    start: np.ndarray                       # charge period start, UTC [datetime64[s]]
    end: np.ndarray                         # charge period end, UTC [datetime64[s]]
    gpu_hours: np.ndarray                   # [GPU-hours]
    pricing: np.ndarray                     # on_demand | committed | spot | other
    team: np.ndarray | None = None
    commitment: np.ndarray | None = None    # commitment id ('' when none)
    cost: np.ndarray | None = None          # cost of the row, in ``currency``
    currency: np.ndarray | None = None
    provider: np.ndarray | None = None
    idle: np.ndarray | None = None          # bool: unused commitment rows (FOCUS), idle cost
    idle_start: np.ndarray | None = None    # their charge period start [datetime64[s]]
    # the billed amount and its currency where a row is priced in another (FOCUS
    # EffectiveCost and BillingCurrency beside PricingCurrencyEffectiveCost): the rate paid
    billed: np.ndarray | None = None
    billed_currency: np.ndarray | None = None
    # the plan line a row that is not GPU usage pays for: storage, egress, cloud_support or ''
    # (service/ingest/bill_lines.py); read by plan against actual, not by the usage path
    line: np.ndarray | None = None


class NoGpuUsage(IngestError):
    """An export read without a problem that has no GPU usage row: the usage path refuses it,
    while a bill of storage or unused commitments alone is still a month's bill
    (service/actuals.py)."""


_CAPTURED: ContextVar[list | None] = ContextVar("gpu_usage_captured", default=None)


@contextmanager
def capture() -> Iterator[list[GpuUsage]]:
    """Collect the ``GpuUsage`` of every export read inside the block."""
    box: list[GpuUsage] = []
    token = _CAPTURED.set(box)
    try:
        yield box
    finally:
        _CAPTURED.reset(token)


def sums(keys: np.ndarray, values: np.ndarray) -> dict[str, float]:
    """Total of ``values`` per distinct key, in order of first appearance."""
    codes, names = pd.factorize(pd.Series(keys, dtype=object))
    totals = np.bincount(codes, values, minlength=len(names))
    return {str(n): float(t) for n, t in zip(names, totals)}


def idle_by_commitment(ids: np.ndarray, rows: np.ndarray, cost: np.ndarray,
                       currency: np.ndarray, gpu_hours: np.ndarray) -> dict:
    """Unused commitment rows (``rows``) per commitment id: currency, cost and, where known,
    idle GPU-hours."""
    index = np.flatnonzero(rows)
    out: dict[str, dict] = {}
    for i in index:
        key = str(ids[i]) or "(no id)"
        entry = out.setdefault(key, {"currency": str(currency[i]), "cost": 0.0,
                                     "gpu_hours": 0.0})
        entry["cost"] += float(cost[i])
        entry["gpu_hours"] += float(gpu_hours[i])
    for entry in out.values():
        if entry["gpu_hours"] <= 0:
            del entry["gpu_hours"]
    return out


def money(usage: GpuUsage, kind: np.ndarray, hours: np.ndarray) -> dict:
    """GPU cost and effective price per GPU-hour by currency and pricing category."""
    if usage.cost is None or usage.currency is None:
        return {}
    keep = usage.counted & np.isfinite(usage.cost) & (usage.currency != "")
    cost, currency = usage.cost[usage.counted], usage.currency[usage.counted]
    valid = keep[usage.counted]
    out_cost: dict[str, dict[str, float]] = {}
    out_price: dict[str, dict[str, float]] = {}
    for cur in pd.unique(currency[valid]):
        mine = valid & (currency == cur)
        out_cost[cur] = {k: float(cost[mine & (kind == k)].sum()) for k in CATEGORIES
                         if (mine & (kind == k)).any()}
        out_price[cur] = {k: float(cost[mine & (kind == k)].sum() / hours[mine & (kind == k)].sum())
                          for k in out_cost[cur] if hours[mine & (kind == k)].sum() > 0}
    return {"gpu_cost": out_cost, "price_per_gpu_hour": out_price}


def finish(filename: str, fmt: str, label: str, usage: GpuUsage, problems: list[dict],
           warnings: list[str], summary: dict | None = None) -> IngestResult:
    if problems:
        raise fail(filename, problems)
    box = _CAPTURED.get()
    if box is not None:
        box.append(usage)
    counted = usage.counted
    if not counted.any():
        refused = fail_one(filename, f"no GPU instance usage found in this {label} export: "
                           "none of its rows is an hourly charge for a GPU instance type or GPU "
                           "SKU we know (see service/ingest/instance_gpus.csv)")
        raise NoGpuUsage(str(refused), refused.problems)
    hours = usage.gpu_hours[counted]
    kind = usage.pricing[counted]
    spot = kind == "spot"
    extra = dict(summary or {})
    extra["pricing_categories"] = {k: float(hours[kind == k].sum()) for k in CATEGORIES
                                   if k != "other" or (kind == k).any()}
    if usage.commitment is not None:
        committed = (kind == "committed")
        ids = np.where(usage.commitment[counted] == "", "(no id)", usage.commitment[counted])
        extra["commitments"] = sums(ids[committed], hours[committed]) if committed.any() else {}
    extra.update(money(usage, kind, hours))
    if usage.provider is not None:
        extra["providers"] = sums(np.where(usage.provider[counted] == "", "(not named)",
                                           usage.provider[counted]), hours)
    if len(extra.get("gpu_cost", {})) > 1:
        warnings = warnings + [f"GPU costs are in {len(extra['gpu_cost'])} currencies "
                               f"({', '.join(extra['gpu_cost'])}); each is reported in its own "
                               "currency, not converted"]
    skipped = int(len(usage.rows) - counted.sum())
    warnings = list(warnings)
    if skipped:
        warnings.append(f"{skipped} rows are not GPU instance usage (other services, storage, "
                        "fees, taxes, credits, unused commitments) and were skipped")
    if spot.any():
        warnings.append(f"{extra['pricing_categories']['spot']:,.0f} GPU-hours ran on spot: "
                        "read as interruptible work")
    team = usage.team[counted] if usage.team is not None else None
    records = Records(start=usage.start[counted], amount=hours, interruptible=spot,
                      team=pd.Categorical(team) if team is not None else None,
                      rows=usage.rows[counted], has_workload=bool(spot.any()),
                      check_duplicates=False)
    return build(records, filename, fmt, period=period_of(usage.start[counted],
                                                          usage.end[counted]),
                 warnings=warnings, summary=extra, skipped_rows=skipped)
