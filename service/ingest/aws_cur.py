"""AWS Cost and Usage Report (legacy CUR) exports: EC2 GPU instance-hours.

A row counts when ``lineItem/LineItemType`` is Usage, DiscountedUsage (reserved) or
SavingsPlanCoveredUsage, its ``lineItem/UsageType`` is an instance-hour type (BoxUsage,
SpotUsage, DedicatedUsage, HostUsage) and ``product/instanceType`` is a GPU instance of
instance_gpus.csv. GPU-hours = lineItem/UsageAmount x GPUs per instance. Spot usage types are
spot, reserved and Savings Plan lines committed, the rest on demand. A team comes from a
``resourceTags/...team`` column.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from service.ingest import bill_lines, exports, instances
from service.ingest.core import IngestResult, Limits
from service.ingest.gpu_usage import GpuUsage, finish
from service.ingest.table import normalise

FORMAT = "aws_cur"
HEADERS = {"lineitemusagestartdate", "lineitemusageamount"}
USED = {normalise(n) for n in (
    "lineItem/UsageStartDate", "lineItem/UsageEndDate", "lineItem/UsageAmount",
    "lineItem/LineItemType", "lineItem/UsageType", "product/instanceType", "pricing/term",
    "reservation/ReservationARN", "savingsPlan/SavingsPlanARN", "lineItem/UnblendedCost",
    "lineItem/CurrencyCode", "lineItem/ProductCode", "product/ProductName", "product/productFamily",
    "lineItem/LineItemDescription")}
NUMERIC = frozenset(normalise(n) for n in ("lineItem/UsageAmount", "lineItem/UnblendedCost"))
INSTANCE_HOURS = r"BoxUsage|SpotUsage|DedicatedUsage|HostUsage"
USAGE_LINES = {"usage", "discountedusage", "savingsplancoveredusage"}


def wanted(header: str) -> bool:
    name = normalise(header)
    return name in USED or (header.lower().startswith("resourcetags") and name.endswith("team"))


def from_frame(frame: pd.DataFrame, rows: np.ndarray, filename: str, limits: Limits,
               warnings: list[str]) -> IngestResult:
    frame = exports.categories(frame[[c for c in frame.columns if wanted(str(c))]], NUMERIC)
    start_col, end_col, qty_col, type_col = exports.require(
        frame, filename, "AWS CUR", "lineItem/UsageStartDate", "lineItem/UsageEndDate",
        "lineItem/UsageAmount", "product/instanceType")
    n = len(frame)
    usage = np.ones(n, dtype=bool)
    line_col = exports.column(frame, "lineItem/LineItemType")
    line = exports.lowered(frame[line_col]) if line_col is not None else np.full(n, "")
    if line_col is not None:
        usage &= np.isin(line, list(USAGE_LINES))
    usage_type_col = exports.column(frame, "lineItem/UsageType")
    usage_type = (exports.text(frame[usage_type_col]) if usage_type_col is not None
                  else np.full(n, "BoxUsage", dtype=object))
    usage &= np.array([bool(re.search(INSTANCE_HOURS, t)) for t in usage_type], dtype=bool) \
        if usage_type_col is None else exports.by_value(
            frame[usage_type_col], lambda s: s.str.contains(INSTANCE_HOURS).to_numpy(bool))
    _, gpus = instances.gpus_per_instance(frame[type_col])
    candidate = usage & (gpus > 0)
    start, end, quantity, gpu_rows, problems = exports.charge_periods(
        frame, rows, start_col, end_col, qty_col, candidate)
    spot = np.char.find(usage_type.astype(str), "SpotUsage") >= 0
    pricing = np.where(spot, "spot", np.where(
        np.isin(line, ["discountedusage", "savingsplancoveredusage"]), "committed",
        "on_demand")).astype(object)
    team_col = next((c for c in frame.columns if str(c).lower().startswith("resourcetags")),
                    None)
    team = None
    if team_col is not None:
        team = exports.text(frame[team_col])
        team = np.where(team == "", "(no team)", team).astype(object)
    commitment = None
    for name in ("reservation/ReservationARN", "savingsPlan/SavingsPlanARN"):
        col = exports.column(frame, name)
        if col is not None:
            ids = exports.text(frame[col])
            commitment = ids if commitment is None else np.where(commitment == "", ids,
                                                                   commitment)
    cost = exports.amounts(frame, "lineItem/UnblendedCost")
    currency_col = exports.column(frame, "lineItem/CurrencyCode")
    currency = exports.text(frame[currency_col]) if currency_col is not None else None
    usage_rows = GpuUsage(rows, gpu_rows, start, end, quantity * gpus, pricing, team,
                          commitment, cost, currency)
    usage_rows.line = bill_lines.aws_cur(frame, ~gpu_rows)
    return finish(filename, FORMAT, "AWS CUR", usage_rows, problems, warnings)


read = exports.column_reader(wanted, from_frame, NUMERIC)
