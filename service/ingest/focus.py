"""FOCUS 1.0-1.3 billing exports (FinOps Open Cost and Usage Specification): GPU usage.

The version is recognised from the columns present (focus_columns.ADDED). A row counts when it
is a usage charge (ChargeCategory Usage, not an unused commitment or capacity reservation, not a
correction) whose
ConsumedUnit is time and whose text (ChargeDescription, SkuId, ResourceType, SkuMeter,
SkuPriceDetails, ``x_`` columns) names a GPU instance type or per-GPU SKU of instance_gpus.csv,
or else whose SkuPriceDetails gives a ``GpuCount`` (GPUs per unit; focus_columns.gpu_counts).
GPU-hours = ConsumedQuantity x hours per unit x GPUs per unit. PricingCategory Standard /
Committed / Dynamic = on demand / committed / spot; committed usage carries its commitment
(CommitmentDiscountId, else the 1.3 ContractApplied commitment). Unused commitment rows are idle
commitment cost, not usage. Costs are read in the currency each row carries: PricingCurrency
with PricingCurrencyEffectiveCost (1.2+), else BillingCurrency with EffectiveCost. A team comes
from a tag whose key ends in "team", in AllocatedTags (1.3) before Tags.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from service.ingest import bill_lines, exports, focus_columns, instances
from service.ingest.core import IngestResult, Limits
from service.ingest.gpu_usage import GpuUsage, finish, idle_by_commitment, sums
from service.ingest.table import normalise

FORMAT = "focus"
HEADERS = {"chargeperiodstart", "consumedquantity"}
USED = {normalise(n) for n in (
    "ChargePeriodStart", "ChargePeriodEnd", "ConsumedQuantity", "ConsumedUnit", "ChargeCategory",
    "ChargeClass", "CommitmentDiscountStatus", "CommitmentDiscountId", "ResourceType",
    "CapacityReservationStatus", "ChargeDescription", "SkuId", "SkuMeter", "SkuPriceDetails",
    "PricingCategory", "PricingQuantity", "PricingUnit", "Tags", "AllocatedTags", "ContractApplied",
    "BillingCurrency", "PricingCurrency", "EffectiveCost", "BilledCost",
    "PricingCurrencyEffectiveCost", "ProviderName", "ServiceProviderName", "ServiceCategory",
    "ServiceSubcategory", "ServiceName")}
NUMERIC = frozenset(normalise(n) for n in (
    "ConsumedQuantity", "PricingQuantity", "EffectiveCost", "BilledCost",
    "PricingCurrencyEffectiveCost"))
TEXT = ("ChargeDescription", "SkuId", "SkuMeter", "ResourceType", "SkuPriceDetails")
PRICING = {"standard": "on_demand", "committed": "committed", "dynamic": "spot"}


# Provider x_ columns that can name an instance type or SKU (AWS x_UsageType, Azure
# x_SkuMeterName / x_SkuDetails, ...); the others (resource groups, invoice sections) are not read.
X_TEXT = ("sku", "usagetype", "instance", "meter", "machine", "product", "servicetype",
          "details", "operation")


def is_x_text(header: str) -> bool:
    name = normalise(header)
    return header.lower().startswith("x_") and any(k in name for k in X_TEXT)


def wanted(header: str) -> bool:
    return normalise(header) in USED or is_x_text(header)


def _is(frame: pd.DataFrame, name: str, value: str, n: int) -> np.ndarray:
    """bool per row: the column's text is ``value`` (ignoring case); False without the column."""
    col = exports.column(frame, name)
    if col is None:
        return np.zeros(n, dtype=bool)
    return exports.by_value(frame[col], lambda s: (s.str.strip().str.lower() == value)
                            .to_numpy(dtype=bool))


def from_frame(frame: pd.DataFrame, rows: np.ndarray, filename: str, limits: Limits,
               warnings: list[str]) -> IngestResult:
    version, added = focus_columns.version(frame.attrs.get("header", frame.columns))
    frame = exports.categories(frame[[c for c in frame.columns if wanted(str(c))]], NUMERIC)
    start_col, end_col, qty_col, unit_col = exports.require(
        frame, filename, "FOCUS", "ChargePeriodStart", "ChargePeriodEnd", "ConsumedQuantity",
        "ConsumedUnit")
    n = len(frame)
    unused = _is(frame, "CommitmentDiscountStatus", "unused", n)
    reserved_unused = _is(frame, "CapacityReservationStatus", "unused", n)
    usage = (_is(frame, "ChargeCategory", "usage", n) & ~_is(frame, "ChargeClass", "correction", n)
             & ~unused & ~reserved_unused)
    per_unit, gpu_time = instances.hours_per_unit(frame[unit_col])
    texts = [frame[c] for c in (exports.column(frame, t) for t in TEXT) if c is not None]
    texts += [frame[c] for c in frame.columns if is_x_text(str(c))]
    found = instances.first_match(texts) if texts else None
    gpus = found.gpus if found is not None else np.zeros(n)
    details = exports.column(frame, "SkuPriceDetails")
    if details is not None:     # no instance name known: the SKU's own GpuCount (per unit)
        gpus = np.where(gpus > 0, gpus, focus_columns.gpu_counts(frame[details]))
    candidate = usage & (per_unit > 0) & (gpus > 0)
    start, end, quantity, counted, problems = exports.charge_periods(
        frame, rows, start_col, end_col, qty_col, candidate)
    gpu_hours = quantity * per_unit * np.where(gpu_time, 1.0, gpus)
    commitment = _commitments(frame, n)
    pricing_col = exports.column(frame, "PricingCategory")
    pricing = np.full(n, "other", dtype=object) if pricing_col is None else exports.by_value(
        frame[pricing_col], lambda s: s.str.strip().str.lower().map(PRICING).fillna("other")
        .to_numpy(dtype=object))
    pricing[(pricing == "other") & (commitment != "")
            & _is(frame, "CommitmentDiscountStatus", "used", n)] = "committed"
    if found is not None:
        pricing[(pricing != "committed") & found.spot] = "spot"
    team, warnings = _teams(frame, warnings)
    cost, currency = _money(frame, n)
    summary = {"focus_version": version,
               "focus_columns": {v: cols for v, cols in added.items()}}
    summary.update(_idle(frame, unused, found, n))
    if reserved_unused.any():
        cost, currency = _money(frame, n)
        if cost is not None:
            idle = reserved_unused & np.isfinite(cost)
            summary["idle_capacity_reservation_cost"] = sums(currency[idle], cost[idle])
            warnings = warnings + [f"{int(reserved_unused.sum())} rows are unused capacity "
                                   "reservations: idle cost, not usage"]
    contract_col = exports.column(frame, "ContractApplied")
    if contract_col is not None:
        applied = focus_columns.contract_ids(frame[contract_col])
        mine = counted & (applied != "")
        summary["contract_commitments"] = sums(applied[mine], gpu_hours[mine])
    if summary.get("idle_commitment_cost"):
        costs = ", ".join(f"{v:,.2f} {c}" for c, v in summary["idle_commitment_cost"].items())
        warnings = warnings + [f"unused commitments cost {costs}: idle commitment cost, paid "
                               "for and not used; not counted as usage"]
    provider = exports.column(frame, "ServiceProviderName", "ProviderName")
    usage_rows = GpuUsage(rows, counted, start, end, gpu_hours, pricing, team, commitment, cost,
                          currency, exports.text(frame[provider]) if provider else None,
                          idle=unused, idle_start=start)   # start: every row's, parsed
    usage_rows.billed, usage_rows.billed_currency = _billed(frame)
    usage_rows.line = bill_lines.focus(frame, ~counted & ~unused & ~reserved_unused)
    return finish(filename, FORMAT, f"FOCUS {version}", usage_rows, problems, warnings, summary)


def _commitments(frame: pd.DataFrame, n: int) -> np.ndarray:
    ids = np.full(n, "", dtype=object)
    col = exports.column(frame, "CommitmentDiscountId")
    if col is not None:
        ids = exports.text(frame[col])
    contract = exports.column(frame, "ContractApplied")
    if contract is not None:
        applied = focus_columns.contract_ids(frame[contract])
        ids = np.where(ids == "", applied, ids)
    return ids


def _teams(frame: pd.DataFrame, warnings: list[str]):
    team = None
    for name in ("Tags", "AllocatedTags"):       # AllocatedTags (1.3) wins where it has a team
        col = exports.column(frame, name)
        if col is None:
            continue
        values, unreadable = exports.tag_value(frame[col])
        if unreadable:
            warnings = warnings + [f"{unreadable} distinct {name} cells are not JSON objects; "
                                   "their rows have no team from them"]
        team = values if team is None else np.where(pd.isna(values), team, values)
    if team is None:
        return None, warnings
    return np.where(pd.isna(team), "(no team)", team).astype(object), warnings


def _money(frame: pd.DataFrame, n: int):
    """Cost of each row and its currency: the pricing currency's amount where the row has one."""
    cost = exports.amounts(frame, "EffectiveCost")
    if cost is None:
        cost = exports.amounts(frame, "BilledCost")
    billing = exports.column(frame, "BillingCurrency")
    if cost is None or billing is None:
        return None, None
    currency = exports.text(frame[billing])
    priced = exports.amounts(frame, "PricingCurrencyEffectiveCost")
    pricing_col = exports.column(frame, "PricingCurrency")
    if priced is not None and pricing_col is not None:
        pricing_currency = exports.text(frame[pricing_col])
        own = (pricing_currency != "") & np.isfinite(priced)
        cost = np.where(own, priced, cost)
        currency = np.where(own, pricing_currency, currency)
    return cost, currency


def _billed(frame: pd.DataFrame):
    """Each row's billed amount (EffectiveCost, else BilledCost) and BillingCurrency, beside
    the pricing currency's amount that ``_money`` prefers: a row with both gives the rate
    actually paid (the FX part of plan against actual, service/actuals.py)."""
    cost = exports.amounts(frame, "EffectiveCost")
    if cost is None:
        cost = exports.amounts(frame, "BilledCost")
    billing = exports.column(frame, "BillingCurrency")
    if cost is None or billing is None:
        return None, None
    return cost, exports.text(frame[billing])


def _idle(frame: pd.DataFrame, unused: np.ndarray, found, n: int) -> dict:
    """Unused commitment rows: their cost per currency and per commitment (GPU-hours where the
    row names a GPU instance and prices by the hour)."""
    if not unused.any():
        return {}
    cost, currency = _money(frame, n)
    if cost is None:
        return {"idle_commitment_rows": int(unused.sum())}
    ids = _commitments(frame, n)
    quantity = exports.amounts(frame, "PricingQuantity")
    unit = exports.column(frame, "PricingUnit")
    per_unit = instances.hours_per_unit(frame[unit])[0] if unit is not None else np.zeros(n)
    gpus = found.gpus if found is not None else np.zeros(n)
    idle_hours = np.nan_to_num(quantity if quantity is not None else np.zeros(n)) * per_unit * gpus
    valid = unused & np.isfinite(cost)
    return {"idle_commitment_cost": sums(currency[valid], cost[valid]),
            "idle_commitments": idle_by_commitment(ids, valid, cost, currency, idle_hours)}


read = exports.column_reader(wanted, from_frame, NUMERIC)
