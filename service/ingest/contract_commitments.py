"""FOCUS 1.3 Contract Commitment dataset -> the GPU commitments a company holds.

Each row of the dataset (its own file, 13 columns) is one commitment term. A usage commitment
whose unit is time and that names a GPU instance type or GPU SKU (in its type, description or
id), or whose unit is GPU-hours, becomes a commitment record of the staged plan's
``position.commitments`` (issue 14)::

    {"id": str, "gpus": int, "start": "YYYY-MM", "term_months": int,
     "price_per_gpu_hour": float, "payment": "none" | "partial" | "all"}

gpus = committed GPU-hours / hours of the commitment period (rounded to whole GPUs; a warning
when that moves it by more than 1 %); price_per_gpu_hour = ContractCommitmentCost / (gpus x
period hours), so the record costs what the contract does; term_months = whole months from
ContractCommitmentPeriodStart to ContractCommitmentPeriodEnd. Payment comes from
ContractCommitmentPaymentModel (FOCUS 1.4 draft) or "No/Partial/All Upfront" in the type or
description; without either it is read as "none" with a warning. Spend commitments (money, not
GPUs) and usage commitments that are not GPU time are listed as skipped, with the reason.
Costs are in the row's BillingCurrency, reported beside each record.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from service.clip import clip_repr
from service.ingest import exports, instances
from service.ingest.commitment_record import (KEYS, CommitmentError, months_between,
                                             validate_commitment)
from service.ingest.core import Limits, fail, problem
from service.ingest.table import normalise

FORMAT = "focus_contract_commitment"
NUMERIC = frozenset(normalise(n) for n in ("ContractCommitmentQuantity",
                                           "ContractCommitmentCost"))
PAYMENT = (("all", re.compile(r"all[ _-]?upfront")),
           ("partial", re.compile(r"partial[ _-]?upfront")),
           ("none", re.compile(r"no[ _-]?upfront")))
ROUNDING = 0.01      # warn when whole GPUs differ from the committed average by more than 1 %
MAX_ID_CHARS = 500   # a commitment record's id (service.ingest.commitment_record)
# A quantity or cost past this is no contract's (a GPU-hour count or an amount 10^15): refused
# by row and column before any arithmetic; 1e308 overflowed into a 500 (issue 40)
MAX_AMOUNT = 1e15
# One row per commitment term: a company holds dozens (position.commitments keeps 50). A 60,000
# row file took 106 s in a request thread and answered a 36 MB page (issue 40): refused at once.
MAX_ROWS = 2_000


@dataclass
class ContractResult:
    """Commitment records (the position.commitments shape), what was skipped and why, and a
    JSON-ready preview."""

    commitments: list[dict]
    skipped: list[dict] = field(default_factory=list)     # {"row", "id", "reason"}
    warnings: list[str] = field(default_factory=list)
    summary: dict = field(default_factory=dict)
    problems: list[tuple] = field(default_factory=list)   # (row, record key, message)


def from_frame(frame: pd.DataFrame, rows: np.ndarray, filename: str, limits: Limits,
               warnings: list[str]) -> ContractResult:
    frame = exports.categories(frame, NUMERIC)
    cols = exports.require(frame, filename, "FOCUS Contract Commitment", "ContractCommitmentId",
                           "ContractCommitmentPeriodStart", "ContractCommitmentPeriodEnd",
                           "ContractCommitmentCategory", "ContractCommitmentQuantity",
                           "ContractCommitmentUnit", "ContractCommitmentCost")
    id_col, start_col, end_col, category_col, qty_col, unit_col, cost_col = cols
    n = len(frame)
    if n == 0:     # answered "0 commitments" as if the file had been read (issue 40)
        raise fail(filename, [problem(1, None, "the file has a header but no data rows")])
    if n > MAX_ROWS:
        raise fail(filename, [problem(None, None, f"a Contract Commitment file has at most "
                                      f"{MAX_ROWS:,} rows (one per commitment term); this one "
                                      f"has {n:,}: export the GPU commitments only")])
    everything = np.ones(n, dtype=bool)
    ids = exports.text(frame[id_col])
    start, problems = exports.times(frame[start_col], rows, start_col, everything)
    end, found = exports.times(frame[end_col], rows, end_col, everything)
    problems += found
    category = exports.lowered(frame[category_col])
    quantity = _number(frame, qty_col, rows, problems, "quantity")
    cost = _number(frame, cost_col, rows, problems, "cost")
    unit = exports.text(frame[unit_col])
    seen: dict[str, int] = {}
    for i in range(n):
        row = int(rows[i])
        if ids[i] == "":
            problems.append(problem(row, id_col, "missing commitment id (empty or NULL)"))
        elif len(ids[i]) > MAX_ID_CHARS:
            problems.append(problem(row, id_col, f"a commitment id has at most {MAX_ID_CHARS} "
                                    f"characters; this one {len(ids[i]):,}"))
        elif ids[i] in seen:
            problems.append(problem(row, id_col, f"commitment id {clip_repr(ids[i])} repeats row "
                                    f"{seen[ids[i]]}"))
        else:
            seen[ids[i]] = row
        if not np.isnat(start[i]) and not np.isnat(end[i]) and end[i] <= start[i]:
            problems.append(problem(row, end_col, "the commitment period ends before it starts"))
        if category[i] not in ("spend", "usage"):
            problems.append(problem(row, category_col, f"expected Spend or Usage, got "
                                    f"{clip_repr(exports.text(frame[category_col])[i])}"))
        if np.isfinite(quantity[i]) and unit[i] == "":
            problems.append(problem(row, unit_col, "a quantity needs its unit"))
        if not np.isfinite(quantity[i]) and not np.isfinite(cost[i]):
            problems.append(problem(row, cost_col, "neither a quantity nor a cost is given"))
        for col, value, what in ((qty_col, quantity[i], "quantity"), (cost_col, cost[i], "cost")):
            if np.isfinite(value) and value > MAX_AMOUNT:
                problems.append(problem(row, col, f"a {what} of {value:.3g} is past any "
                                        f"contract's (at most {MAX_AMOUNT:.0e})"))
    if problems:
        raise fail(filename, problems)
    result = _records(frame, rows, ids, start, end, category, quantity, cost, unit, warnings)
    if result.problems:      # a record past the position's own bounds (too many GPUs ...)
        raise fail(filename, [problem(row, {"gpus": qty_col, "price_per_gpu_hour": cost_col,
                                            "term_months": end_col, "start": start_col}
                                      .get(key), message)
                              for row, key, message in result.problems])
    return result


def _number(frame, col, rows, problems, what) -> np.ndarray:
    values, found = exports.numbers(frame[col], rows, col, np.ones(len(frame), dtype=bool), what)
    missing = frame[col].isna().to_numpy()
    problems += [p for p, i in zip(found, np.flatnonzero(
        (~np.isfinite(values) | (values < 0)))) if not missing[i]]
    return values


def _records(frame, rows, ids, start, end, category, quantity, cost, unit, warnings):
    per_unit, gpu_time = instances.hours_per_unit(frame[exports.column(
        frame, "ContractCommitmentUnit")])
    texts = [frame[c] for c in (exports.column(frame, t) for t in (
        "ContractCommitmentType", "ContractCommitmentDescription", "ContractCommitmentId"))
        if c is not None] + [frame[c] for c in frame.columns if str(c).lower().startswith("x_")]
    found = instances.first_match(texts)
    words = np.array([" ".join(t) for t in zip(*(exports.lowered(x) for x in texts))],
                     dtype=object) if texts else np.full(len(ids), "", dtype=object)
    payment_col = exports.column(frame, "ContractCommitmentPaymentModel")
    stated = exports.lowered(frame[payment_col]) if payment_col is not None else words
    currency_col = exports.column(frame, "BillingCurrency")
    currency = exports.text(frame[currency_col]) if currency_col is not None else \
        np.full(len(ids), "", dtype=object)
    records, skipped, details, unstated, problems = [], [], [], [], []
    for i in range(len(ids)):
        reason = _skip_reason(category[i], per_unit[i], gpu_time[i], found.gpus[i], cost[i],
                              unit[i])
        hours = (end[i] - start[i]).astype("int64") / 3600.0
        gpu_hours = quantity[i] * per_unit[i] * (1.0 if gpu_time[i] else found.gpus[i])
        if reason is None and not np.isfinite(gpu_hours):
            reason = "it commits no quantity of GPU time"
        average = gpu_hours / hours if reason is None else 0.0
        gpus = int(round(average))
        if reason is None and gpus < 1:
            reason = (f"commits {gpu_hours:,.1f} GPU-hours over {hours:,.0f} hours: fewer than "
                      "one GPU")
        if reason is not None:
            skipped.append({"row": int(rows[i]), "id": ids[i], "reason": reason})
            continue
        if abs(average - gpus) > ROUNDING * gpus:
            warnings = warnings + [f"{ids[i]}: commits {average:,.2f} GPUs on average over its "
                                   f"term; read as {gpus}"]
        payment = next((p for p, rx in PAYMENT if rx.search(stated[i])), None)
        if payment is None:
            unstated.append(ids[i])
        record = {"id": ids[i], "gpus": gpus, "start": str(start[i].astype("datetime64[M]")),
                  "term_months": months_between(start[i], end[i]),
                  "price_per_gpu_hour": float(cost[i] / (gpus * hours)),
                  "payment": payment or "none"}
        try:
            validate_commitment(record)
        except CommitmentError as exc:
            key = next((k for k in KEYS if f": {k} must be" in str(exc)), None)
            problems.append((int(rows[i]), key, str(exc)))
            continue
        records.append(record)
        details.append({**record, "row": int(rows[i]), "currency": currency[i],
                        "end": str(end[i]), "instance": found.name[i] or None,
                        "gpu_type": found.accelerator[i] or None,
                        "gpu_hours": float(gpu_hours), "cost": float(cost[i])})
    if unstated:
        many = len(unstated) > 1
        warnings = warnings + [f"{len(unstated)} commitment{'s state' if many else ' states'} "
                               "no payment terms "
                               f"({', '.join(unstated[:5])}{'...' if len(unstated) > 5 else ''})"
                               ": read as paid monthly, no upfront"]
    summary = {"format": FORMAT, "rows": len(ids), "commitments": len(records),
               "skipped": len(skipped), "gpus": sum(r["gpus"] for r in records),
               "currencies": sorted({d["currency"] for d in details if d["currency"]}),
               "details": details}
    return ContractResult(records, skipped, warnings, summary, problems)


def _skip_reason(category, per_unit, gpu_time, gpus, cost, unit) -> str | None:
    if category == "spend":
        return "a spend commitment (an amount of money, not GPUs)"
    if per_unit <= 0:
        return (f"its unit {clip_repr(unit)} is not time" if unit
                else "it commits no quantity of time")
    if not gpu_time and gpus <= 0:
        return "it names no GPU instance type or GPU SKU we know"
    if not np.isfinite(cost):
        return "it has no cost, so its price per GPU-hour is unknown"
    return None


read = exports.column_reader(lambda header: True, from_frame, NUMERIC)
