"""FOCUS versions by the columns they added, and the JSON cells FOCUS 1.3 introduced.

Sources: the FOCUS specification (FinOps-Open-Cost-and-Usage-Spec/FOCUS_Spec, CC BY 4.0), its
column pages and changelog for 1.1 (Nov 2024), 1.2 (Jun 2025) and 1.3 (ratified Dec 2025).
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from service.ingest.exports import by_value
from service.ingest.table import normalise

# Columns each version added to the Cost and Usage dataset (the ones that tell it apart).
ADDED = {
    "1.1": ("CapacityReservationId", "CapacityReservationStatus", "CommitmentDiscountQuantity",
            "CommitmentDiscountUnit", "ServiceSubcategory", "SkuMeter", "SkuPriceDetails"),
    "1.2": ("BillingAccountType", "InvoiceId", "PricingCurrency",
            "PricingCurrencyContractedUnitPrice", "PricingCurrencyEffectiveCost",
            "PricingCurrencyListUnitPrice", "SubAccountType"),
    "1.3": ("ServiceProviderName", "HostProviderName", "ContractApplied", "AllocatedMethodId",
            "AllocatedMethodDetails", "AllocatedResourceId", "AllocatedResourceName",
            "AllocatedTags"),
}
DEPRECATED = {"1.3": ("ProviderName", "PublisherName")}
# The Contract Commitment dataset (1.3), a file of its own.
CONTRACT_COMMITMENT = (
    "BillingCurrency", "ContractCommitmentId", "ContractId", "ContractPeriodStart",
    "ContractPeriodEnd", "ContractCommitmentPeriodStart", "ContractCommitmentPeriodEnd",
    "ContractCommitmentDescription", "ContractCommitmentType", "ContractCommitmentCategory",
    "ContractCommitmentUnit", "ContractCommitmentQuantity", "ContractCommitmentCost")
CONTRACT_HEADERS = {"contractcommitmentid", "contractcommitmentperiodstart"}


def version(headers) -> tuple[str, dict[str, list[str]]]:
    """The FOCUS version whose added columns are present (at least two of them, so that one
    provider-specific extra column does not promote a file), and the added columns found."""
    names = {normalise(h) for h in headers}
    found = {v: [c for c in cols if normalise(c) in names] for v, cols in ADDED.items()}
    found = {v: cols for v, cols in found.items() if cols}
    newest = "1.0"
    for v in ADDED:
        if len(found.get(v, [])) >= 2:
            newest = v
    return newest, found


def _elements(parsed) -> list[dict]:
    if isinstance(parsed, dict):
        for key, value in parsed.items():
            if normalise(key) == "elements" and isinstance(value, list):
                return [e for e in value if isinstance(e, dict)]
        return [parsed]
    if isinstance(parsed, list):
        return [e for e in parsed if isinstance(e, dict)]
    return []


def contract_ids(cells: pd.Series) -> np.ndarray:
    """The first Contract Commitment ID each ContractApplied cell names ('' when none).

    1.3 writes ``{"Elements": [{"ContractId": ..., "ContractCommitmentId": ...,
    "ContractCommitmentAppliedCost": ...}]}``; drafts wrote a bare list and ``...ID``.
    """
    def first(cell: str) -> str:
        try:
            parsed = json.loads(cell) if cell else None
        except ValueError:
            return ""
        for element in _elements(parsed):
            for key, value in element.items():
                if normalise(key) == "contractcommitmentid" and value not in (None, ""):
                    return str(value)
        return ""
    return by_value(cells, lambda s: np.array([first(c) for c in s], dtype=object))


def gpu_counts(cells: pd.Series) -> np.ndarray:
    """The ``GpuCount`` each SkuPriceDetails cell gives (0 when none, not a number or not
    above 0).

    GpuCount is the FOCUS-defined SKU price property "number of GPUs available", per pricing
    unit (FOCUS 1.1+); a provider whose instance names no table knows (an internal one, such
    as buyrent's owned-fleet export, service/focus_export.py) says its GPUs with it.
    """
    def count(cell: str) -> float:
        try:
            parsed = json.loads(cell) if cell else None
        except ValueError:
            return 0.0
        if not isinstance(parsed, dict):
            return 0.0
        for key, value in parsed.items():
            if normalise(key) == "gpucount" and isinstance(value, (int, float)) \
                    and not isinstance(value, bool):
                return float(value) if np.isfinite(value) and value > 0 else 0.0
        return 0.0
    return by_value(cells, lambda s: np.array([count(c) for c in s], dtype=float))
