"""FOCUS 1.0 billing exports (FinOps Open Cost and Usage Specification): GPU instance-hours.

A row counts when it is a usage charge (ChargeCategory Usage, not an unused commitment) whose
ConsumedUnit is hours and whose text (ChargeDescription, SkuId, ResourceType, provider ``x_``
columns) names a GPU instance type of instance_gpus.csv. GPU-hours = ConsumedQuantity x GPUs
per instance. PricingCategory Standard / Committed / Dynamic = on demand / committed / spot.
A team comes from a tag whose key ends in "team" in the JSON ``Tags`` column.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from service.ingest import exports, instances
from service.ingest.core import IngestResult, Limits
from service.ingest.table import normalise

FORMAT = "focus"
HEADERS = {"chargeperiodstart", "consumedquantity"}
USED = {normalise(n) for n in (
    "ChargePeriodStart", "ChargePeriodEnd", "ConsumedQuantity", "ConsumedUnit", "ChargeCategory",
    "ChargeClass", "CommitmentDiscountStatus", "ResourceType", "ServiceName", "ChargeDescription",
    "SkuId", "PricingCategory", "Tags")}
TEXT = ("ChargeDescription", "SkuId", "ResourceType")
PRICING = {"standard": "on_demand", "committed": "committed", "dynamic": "spot"}


def wanted(header: str) -> bool:
    return normalise(header) in USED or header.lower().startswith("x_")


def from_frame(frame: pd.DataFrame, rows: np.ndarray, filename: str, limits: Limits,
               warnings: list[str]) -> IngestResult:
    frame = exports.as_text(frame[[c for c in frame.columns if wanted(str(c))]])
    start_col, end_col, qty_col, unit_col = exports.require(
        frame, filename, "FOCUS", "ChargePeriodStart", "ChargePeriodEnd", "ConsumedQuantity",
        "ConsumedUnit")
    n = len(frame)
    usage = np.ones(n, dtype=bool)
    for name, bad in (("ChargeCategory", lambda s: s != "usage"),
                      ("ChargeClass", lambda s: s == "correction"),
                      ("CommitmentDiscountStatus", lambda s: s == "unused")):
        col = exports.column(frame, name)
        if col is not None:
            usage &= ~bad(frame[col].fillna("").str.strip().str.lower()).to_numpy()
    hourly = frame[unit_col].fillna("").str.lower().str.contains(r"hour|\bhrs?\b").to_numpy()
    text_cols = [c for c in (exports.column(frame, n) for n in TEXT) if c is not None]
    text_cols += [c for c in frame.columns if str(c).lower().startswith("x_")]
    text = frame[text_cols].fillna("").agg(" | ".join, axis=1) if text_cols else \
        pd.Series([""] * n)
    _, gpus = instances.gpus_per_instance(text)
    candidate = usage & hourly & (gpus > 0)
    start, end, quantity, gpu_rows, problems = exports.charge_periods(
        frame, rows, start_col, end_col, qty_col, candidate)
    pricing_col = exports.column(frame, "PricingCategory")
    pricing = np.full(n, "other", dtype=object)
    if pricing_col is not None:
        key = frame[pricing_col].fillna("").str.strip().str.lower()
        pricing = key.map(PRICING).fillna("other").to_numpy(dtype=object)
    team = None
    tags_col = exports.column(frame, "Tags")
    if tags_col is not None:
        team, unreadable = exports.team_from_tags(frame[tags_col])
        if unreadable and frame[tags_col].notna().any():
            warnings = warnings + [(f"{unreadable} distinct Tags cells are not JSON objects; "
                                   "their rows have no team")]
    return exports.finish(filename, FORMAT, "FOCUS", rows, gpu_rows, start, end, quantity, gpus,
                          pricing, team, problems, warnings)


read = exports.column_reader(wanted, from_frame)
