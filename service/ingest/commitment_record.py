"""The commitment record of a scenario's ``position.commitments`` (issue 14), checked exactly,
and the step that puts records read from a Contract Commitment file into a scenario.

``attach_commitments_to_scenario`` works on the scenario's JSON (a dict) and leaves validating
the result to ``Scenario.model_validate``; the upload preview's "attach" posts to
service/scenarios/contract_attach.py, which does both.
"""
from __future__ import annotations

import copy
import math
import re

import numpy as np

from service.clip import clip_repr

KEYS = ("id", "gpus", "start", "term_months", "price_per_gpu_hour", "payment")
OPTIONAL = ("currency",)   # ISO 4217; without it, the currency of the scenario's cloud prices
CURRENCY = re.compile(r"^[A-Z]{3}$")
PAYMENTS = ("none", "partial", "all")
MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
MAX_TERM_MONTHS = 240
MAX_GPUS = 10_000_000


class CommitmentError(ValueError):
    """A commitment record that does not have the position.commitments shape."""


def validate_commitment(record: dict) -> dict:
    """``record`` itself when it has exactly the position.commitments shape, else an error
    naming the first wrong key."""
    if not isinstance(record, dict) or not set(KEYS) <= set(record) <= set(KEYS + OPTIONAL):
        found = sorted(record) if isinstance(record, dict) else type(record).__name__
        raise CommitmentError(f"a commitment has exactly the keys {', '.join(KEYS)} and "
                              f"optionally {', '.join(OPTIONAL)}; got {found}")
    checks = (
        ("id", isinstance(record["id"], str) and 0 < len(record["id"]) <= 500,
         "a non-empty text of at most 500 characters"),
        ("gpus", type(record["gpus"]) is int and 1 <= record["gpus"] <= MAX_GPUS,
         f"a whole number of GPUs from 1 to {MAX_GPUS:,}"),
        ("start", isinstance(record["start"], str) and bool(MONTH.match(record["start"])),
         "a month written YYYY-MM"),
        ("term_months", type(record["term_months"]) is int
         and 1 <= record["term_months"] <= MAX_TERM_MONTHS,
         f"whole months from 1 to {MAX_TERM_MONTHS}"),
        ("price_per_gpu_hour", isinstance(record["price_per_gpu_hour"], float)
         and math.isfinite(record["price_per_gpu_hour"]) and record["price_per_gpu_hour"] >= 0,
         "a finite number >= 0 (a float)"),
        ("payment", record["payment"] in PAYMENTS, "none, partial or all"),
        ("currency", "currency" not in record or (isinstance(record["currency"], str)
                                                  and bool(CURRENCY.match(record["currency"]))),
         "an ISO 4217 currency code of three capital letters"),
    )
    for key, ok, expected in checks:
        if not ok:
            raise CommitmentError(f"commitment {clip_repr(record.get('id'))}: {key} must be "
                                  f"{expected}, got {clip_repr(record.get(key))}")
    return record


def months_between(start: np.datetime64, end: np.datetime64) -> int:
    """Whole months of a commitment period: calendar months when the day of month is kept
    (2026-03-02 to 2027-03-02 = 12), else the length in average months, rounded."""
    s, e = np.datetime64(start, "D"), np.datetime64(end, "D")
    months = int((e.astype("datetime64[M]") - s.astype("datetime64[M]")).astype(int))
    if (e - e.astype("datetime64[M]").astype("datetime64[D]")) == \
            (s - s.astype("datetime64[M]").astype("datetime64[D]")):
        return months
    return int(round((e - s).astype(int) / 30.436875))


def attach_commitments_to_scenario(assumptions: dict, commitments: list[dict]) -> dict:
    """A copy of a scenario's JSON with ``commitments`` in ``position.commitments``: a record
    replaces the one with the same id, new ones are appended, other keys stay as they are.

    Validate the result with ``Scenario.model_validate`` (service/scenarios/contract_attach.py does).
    """
    records = [validate_commitment(dict(c)) for c in commitments]
    out = copy.deepcopy(assumptions)
    position = dict(out.get("position") or {})
    held = [dict(c) for c in position.get("commitments", [])]
    index = {c.get("id"): i for i, c in enumerate(held)}
    for record in records:
        if record["id"] in index:
            held[index[record["id"]]] = record
        else:
            index[record["id"]] = len(held)
            held.append(record)
    position["commitments"] = held
    out["position"] = position
    return out
