"""AWS Cost and Usage Report (legacy CUR) exports: EC2 GPU instance-hours.

A row counts when ``lineItem/LineItemType`` is Usage, DiscountedUsage (reserved) or
SavingsPlanCoveredUsage, its ``lineItem/UsageType`` is an instance-hour type (BoxUsage,
SpotUsage, DedicatedUsage, HostUsage) and ``product/instanceType`` is a GPU instance of
instance_gpus.csv. GPU-hours = lineItem/UsageAmount x GPUs per instance. Spot usage types are
spot, reserved and Savings Plan lines committed, the rest on demand. A team comes from a
``resourceTags/...team`` column.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from service.ingest import exports, instances
from service.ingest.core import IngestResult, Limits
from service.ingest.table import normalise

FORMAT = "aws_cur"
HEADERS = {"lineitemusagestartdate", "lineitemusageamount"}
USED = {normalise(n) for n in (
    "lineItem/UsageStartDate", "lineItem/UsageEndDate", "lineItem/UsageAmount",
    "lineItem/LineItemType", "lineItem/UsageType", "product/instanceType", "pricing/term")}
INSTANCE_HOURS = r"BoxUsage|SpotUsage|DedicatedUsage|HostUsage"
USAGE_LINES = {"usage", "discountedusage", "savingsplancoveredusage"}


def wanted(header: str) -> bool:
    name = normalise(header)
    return name in USED or (header.lower().startswith("resourcetags") and name.endswith("team"))


def from_frame(frame: pd.DataFrame, rows: np.ndarray, filename: str, limits: Limits,
               warnings: list[str]) -> IngestResult:
    frame = exports.as_text(frame[[c for c in frame.columns if wanted(str(c))]])
    start_col, end_col, qty_col, type_col = exports.require(
        frame, filename, "AWS CUR", "lineItem/UsageStartDate", "lineItem/UsageEndDate",
        "lineItem/UsageAmount", "product/instanceType")
    n = len(frame)
    usage = np.ones(n, dtype=bool)
    line_col = exports.column(frame, "lineItem/LineItemType")
    line = (frame[line_col].fillna("").str.strip().str.lower() if line_col is not None
            else pd.Series([""] * n))
    if line_col is not None:
        usage &= line.isin(USAGE_LINES).to_numpy()
    usage_type_col = exports.column(frame, "lineItem/UsageType")
    usage_type = (frame[usage_type_col].fillna("") if usage_type_col is not None
                  else pd.Series(["BoxUsage"] * n))
    usage &= usage_type.str.contains(INSTANCE_HOURS).to_numpy()
    _, gpus = instances.gpus_per_instance(frame[type_col])
    candidate = usage & (gpus > 0)
    start, end, quantity, gpu_rows, problems = exports.charge_periods(
        frame, rows, start_col, end_col, qty_col, candidate)
    pricing = np.where(usage_type.str.contains("SpotUsage").to_numpy(), "spot",
                       np.where(line.isin({"discountedusage", "savingsplancoveredusage"})
                                .to_numpy(), "committed", "on_demand")).astype(object)
    team_col = next((c for c in frame.columns if str(c).lower().startswith("resourcetags")),
                    None)
    team = (frame[team_col].fillna("(no team)").to_numpy(dtype=object)
            if team_col is not None else None)
    return exports.finish(filename, FORMAT, "AWS CUR", rows, gpu_rows, start, end, quantity,
                          gpus, pricing, team, problems, warnings)


read = exports.column_reader(wanted, from_frame)
