"""Google Cloud billing export to CSV (the BigQuery export's columns): GPU-hours.

Google bills a GPU VM as vCPU ("A2 Instance Core running in ..."), RAM and one SKU per GPU
("Nvidia Tesla A100 GPU running in Americas", "Nvidia L4 GPU ...", "H200 141GB GPU ..."). A row
counts when ``cost_type`` is regular, ``sku.description`` is a per-GPU SKU of instance_gpus.csv
and ``usage.unit`` is time (seconds or hours): GPU-hours = usage.amount in hours. Core and RAM
rows are not GPU time even when their labels name an A2/A3/G2 machine type. Columns may be
written with dots as BigQuery names them (``sku.description``, ``usage.amount``) or flattened
with underscores; JSON cells hold ``labels`` and ``credits``. Spot ("Spot Preemptible ...") is
spot; a committed use discount credit makes the row committed (the credit id is its
commitment); cost is ``cost`` plus its credits, in ``currency``. Commitment fee SKUs
("Commitment v1: ...") are reported as commitment fees.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from service.ingest import bill_lines, exports, instances
from service.ingest.core import IngestResult, Limits, to_float
from service.ingest.gpu_usage import GpuUsage, finish, sums
from service.ingest.table import normalise

FORMAT = "gcp"
HEADERS = {"usagestarttime", "skudescription", "usageamount"}
USED = {normalise(n) for n in (
    "usage_start_time", "usage_end_time", "sku.description", "sku.id", "service.description",
    "usage.amount", "usage.unit", "cost", "currency", "cost_type", "labels", "project.labels",
    "system_labels", "credits", "project.id")}
NUMERIC = frozenset(normalise(n) for n in ("usage.amount", "cost"))
TIMES = ("ISO8601", "%Y-%m-%d %H:%M:%S UTC", "%Y-%m-%d %H:%M:%S.%f UTC")


def wanted(header: str) -> bool:
    return normalise(header) in USED


def credit_info(cells: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the sum of its credits, and the id (or name) of a committed use discount
    credit ('' when none)."""
    def parse(cell: str) -> tuple[float, str]:
        try:
            items = json.loads(cell) if cell else []
        except ValueError:
            return 0.0, ""
        items = [items] if isinstance(items, dict) else items if isinstance(items, list) else []
        total, cud = 0.0, ""
        for item in (i for i in items if isinstance(i, dict)):
            amount = to_float(item.get("amount"))
            total += 0.0 if math.isnan(amount) else amount
            if "COMMITTED_USAGE_DISCOUNT" in str(item.get("type", "")).upper() and not cud:
                cud = str(item.get("id") or item.get("name") or "committed use discount")
        return total, cud
    amount = exports.by_value(cells, lambda s: np.array([parse(c)[0] for c in s], dtype=float))
    ids = exports.by_value(cells, lambda s: np.array([parse(c)[1] for c in s], dtype=object))
    return amount, ids


def from_frame(frame: pd.DataFrame, rows: np.ndarray, filename: str, limits: Limits,
               warnings: list[str]) -> IngestResult:
    frame = exports.categories(frame[[c for c in frame.columns if wanted(str(c))]], NUMERIC)
    start_col, end_col, sku_col, qty_col, unit_col = exports.require(
        frame, filename, "Google Cloud billing", "usage_start_time", "usage_end_time",
        "sku.description", "usage.amount", "usage.unit")
    n = len(frame)
    cost_type = exports.column(frame, "cost_type")
    regular = (np.isin(exports.lowered(frame[cost_type]), ["regular", ""])
               if cost_type is not None else np.ones(n, dtype=bool))
    per_unit, _ = instances.hours_per_unit(frame[unit_col])
    texts = [frame[sku_col]] + [frame[c] for c in (exports.column(frame, "system_labels"),)
                                if c is not None]
    found = instances.first_match(texts)
    candidate = regular & (per_unit > 0) & found.per_gpu
    start, end, quantity, counted, problems = exports.charge_periods(
        frame, rows, start_col, end_col, qty_col, candidate, TIMES)
    gpu_hours = quantity * per_unit
    credits_col = exports.column(frame, "credits")
    credit, cud = (credit_info(frame[credits_col]) if credits_col is not None
                   else (np.zeros(n), np.full(n, "", dtype=object)))
    pricing = np.where(found.spot, "spot", np.where(cud != "", "committed", "on_demand"))
    pricing = pricing.astype(object)
    cost = exports.amounts(frame, "cost")
    currency_col = exports.column(frame, "currency")
    currency = exports.text(frame[currency_col]) if currency_col is not None else None
    net = cost + credit if cost is not None else None
    team = None
    for name in ("project.labels", "labels"):          # resource labels win over the project's
        col = exports.column(frame, name)
        if col is not None:
            values, _ = exports.tag_value(frame[col])
            team = values if team is None else np.where(pd.isna(values), team, values)
    if team is not None:
        team = np.where(pd.isna(team), "(no team)", team).astype(object)
    summary = {}
    sku = exports.lowered(frame[sku_col])
    fees = pd.Series(sku, dtype=object).str.startswith("commitment").to_numpy()
    if fees.any() and cost is not None and currency is not None:
        summary["commitment_fees"] = sums(currency[fees & np.isfinite(cost)],
                                          cost[fees & np.isfinite(cost)])
    usage_rows = GpuUsage(rows, counted, start, end, gpu_hours, pricing, team, cud, net,
                          currency, np.full(n, "Google Cloud", dtype=object))
    usage_rows.line = bill_lines.gcp(frame, ~counted)
    return finish(filename, FORMAT, "Google Cloud billing", usage_rows, problems, warnings,
                  summary)


read = exports.column_reader(wanted, from_frame, NUMERIC)
