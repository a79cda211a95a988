"""Azure cost details exports (Cost Management, CSV; actual or amortized cost): GPU VM hours.

Column names follow the Enterprise Agreement (``Date``, ``MeterCategory``, ``Quantity``, ``Cost``)
and Microsoft Customer Agreement (``date``, ``meterCategory``, ``quantity``,
``costInBillingCurrency``) layouts; headers match ignoring case. A row counts when its
``chargeType`` is Usage, its unit of measure is time ("1 Hour", "10 Hours") and its meter name,
meter subcategory, product or ``additionalInfo`` ServiceType names an NC, ND or NV size of
instance_gpus.csv. GPU-hours = quantity x hours per unit x GPUs per VM (a fraction for partial-GPU
sizes). ``pricingModel`` OnDemand / Reservation or SavingsPlan / Spot = on demand / committed
(the reservation or benefit id is its commitment) / spot; "Spot" or "Low Priority" meters are
spot. UnusedReservation and UnusedSavingsPlan rows (amortized files) are idle commitment cost.
Rows are daily (``date``, US month/day/year or ISO).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from service.ingest import bill_lines, exports, instances
from service.ingest.core import IngestResult, Limits
from service.ingest.gpu_usage import GpuUsage, finish, idle_by_commitment, sums
from service.ingest.table import normalise

FORMAT = "azure"
HEADERS = {"date", "metercategory", "quantity"}
USED = {normalise(n) for n in (
    "date", "quantity", "unitOfMeasure", "meterCategory", "meterSubCategory", "meterName",
    "ProductName", "Product", "additionalInfo", "chargeType", "pricingModel", "reservationId",
    "benefitId", "costInBillingCurrency", "Cost", "billingCurrency", "billingCurrencyCode",
    "pricingCurrency", "pricingCurrencyCode", "costInPricingCurrency", "tags")}
NUMERIC = frozenset(normalise(n) for n in (
    "quantity", "costInBillingCurrency", "Cost", "costInPricingCurrency"))
TEXT = ("meterName", "meterSubCategory", "ProductName", "Product", "additionalInfo")
PRICING = {"ondemand": "on_demand", "on demand": "on_demand", "reservation": "committed",
           "savingsplan": "committed", "savings plan": "committed", "spot": "spot"}
DATES = ("ISO8601", "%m/%d/%Y")
DAY = np.timedelta64(86400, "s")


def wanted(header: str) -> bool:
    return normalise(header) in USED


def from_frame(frame: pd.DataFrame, rows: np.ndarray, filename: str, limits: Limits,
               warnings: list[str]) -> IngestResult:
    frame = exports.categories(frame[[c for c in frame.columns if wanted(str(c))]], NUMERIC)
    date_col, qty_col, unit_col = exports.require(frame, filename, "Azure cost details",
                                                  "date", "quantity", "unitOfMeasure")
    n = len(frame)
    charge = exports.lowered_column(frame, "chargeType", n)
    category = exports.column(frame, "meterCategory")
    licence = np.zeros(n, dtype=bool) if category is None else exports.by_value(
        frame[category], lambda s: s.str.lower().str.contains("licen").to_numpy(dtype=bool))
    usage = np.isin(charge, ["usage", ""]) & ~licence
    per_unit, gpu_time = instances.hours_per_unit(frame[unit_col])
    texts = [frame[c] for c in (exports.column(frame, t) for t in TEXT) if c is not None]
    found = instances.first_match(texts) if texts else None
    gpus = found.gpus if found is not None else np.zeros(n)
    candidate = usage & (per_unit > 0) & (gpus > 0)
    start, _, quantity, counted, problems = exports.charge_periods(
        frame, rows, date_col, None, qty_col, candidate, DATES)
    gpu_hours = quantity * per_unit * np.where(gpu_time, 1.0, gpus)
    model = exports.lowered_column(frame, "pricingModel", n)
    model_col = exports.column(frame, "pricingModel")
    pricing = np.full(n, "on_demand", dtype=object) if model_col is None else exports.by_value(
        frame[model_col], lambda s: s.str.strip().str.lower().map(PRICING).fillna("on_demand")
        .to_numpy(dtype=object))
    if found is not None:
        pricing[(pricing == "on_demand") & found.spot] = "spot"
    ids = _commitment_ids(frame, n)
    cost, currency = _money(frame, n)
    team = None
    tags = exports.column(frame, "tags")
    if tags is not None:
        team, unreadable = exports.team_from_tags(frame[tags])
        if unreadable:
            warnings = warnings + [f"{unreadable} distinct tags cells are not JSON; their rows "
                                   "have no team"]
    summary = {"cost_basis": _basis(charge, model)}
    unused = np.isin(charge, ["unusedreservation", "unusedsavingsplan"])
    if unused.any() and cost is not None:
        valid = unused & np.isfinite(cost)
        summary["idle_commitment_cost"] = sums(currency[valid], cost[valid])
        idle_hours = np.nan_to_num(exports.numbers(frame[qty_col], rows, qty_col,
                                                   np.zeros(n, bool))[0]) * per_unit * gpus
        summary["idle_commitments"] = idle_by_commitment(ids, valid, cost, currency,
                                                         idle_hours)
        costs = ", ".join(f"{v:,.2f} {c}" for c, v in summary["idle_commitment_cost"].items())
        warnings = warnings + [f"unused reservations and savings plans cost {costs}: idle "
                               "commitment cost, paid for and not used; not counted as usage"]
    usage_rows = GpuUsage(rows, counted, start, start + DAY, gpu_hours, pricing, team, ids,
                          cost, currency, np.full(n, "Microsoft", dtype=object))
    usage_rows.line = bill_lines.azure(frame, ~counted & ~unused)
    return finish(filename, FORMAT, "Azure cost details", usage_rows, problems, warnings,
                  summary)


def _commitment_ids(frame: pd.DataFrame, n: int) -> np.ndarray:
    ids = np.full(n, "", dtype=object)
    for name in ("reservationId", "benefitId"):
        col = exports.column(frame, name)
        if col is not None:
            ids = np.where(ids == "", exports.text(frame[col]), ids)
    return ids


def _money(frame: pd.DataFrame, n: int):
    cost = exports.amounts(frame, "costInBillingCurrency")
    if cost is None:
        cost = exports.amounts(frame, "Cost")
    currency_col = exports.column(frame, "billingCurrency", "billingCurrencyCode")
    if cost is None or currency_col is None:
        return None, None
    currency = exports.text(frame[currency_col])
    priced = exports.amounts(frame, "costInPricingCurrency")
    pricing_col = exports.column(frame, "pricingCurrency", "pricingCurrencyCode")
    if priced is not None and pricing_col is not None:
        own = (exports.text(frame[pricing_col]) != "") & np.isfinite(priced)
        cost = np.where(own, priced, cost)
        currency = np.where(own, exports.text(frame[pricing_col]), currency)
    return cost, currency


def _basis(charge: np.ndarray, model: np.ndarray) -> str:
    """Amortized files spread purchases over usage and show unused commitments; actual-cost
    files show the purchases themselves."""
    if np.isin(charge, ["unusedreservation", "unusedsavingsplan"]).any():
        return "amortized"
    if ((charge == "purchase") & np.isin(model, ["reservation", "savingsplan"])).any():
        return "actual"
    return "actual or amortized (no purchase or unused commitment rows tell them apart)"


read = exports.column_reader(wanted, from_frame, NUMERIC)
