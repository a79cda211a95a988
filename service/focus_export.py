"""A stored plan document's owned fleet as a FOCUS 1.3 or 1.4 Cost and Usage CSV (issue 43,
item 1; the figures are models/owned_focus.py).

The owned servers are an internal provider billing itself: ServiceProviderName,
HostProviderName, InvoiceIssuerName and the deprecated ProviderName (still written, for tools
that read FOCUS 1.0-1.2) are ``Owned fleet (internal)``; ServiceCategory Compute,
ServiceSubcategory ``Virtual Machines`` (the spec says it spans bare-metal servers);
ChargeCategory Usage, ChargeFrequency Usage-Based, PricingCategory Standard. A row's unit is a
server-hour (ConsumedUnit = PricingUnit = Hours) and ``SkuPriceDetails`` gives its ``GpuCount``
(the FOCUS-defined key: GPUs per pricing unit), so a reader gets GPU-hours = ConsumedQuantity x
GpuCount, as it does for a cloud instance. ListUnitPrice = ContractedUnitPrice = the price per
GPU-hour x GpuCount; the price per GPU-hour and the GPU-hours are also in the custom columns
``x_PricePerGpuHour`` and ``x_GpuHours``; the server type in ``x_OwnedServerType`` and
ResourceName. Texts the usage readers match against instance names (ChargeDescription, SkuId,
SkuPriceDetails) name no GPU model, so GpuCount alone says how many GPUs a row holds.

Columns: those of FOCUS 1.3's Cost and Usage dataset that apply (as samples/focus_1.3_sample.csv
has them, less the allocation, capacity reservation, commitment discount and contract columns,
which are null for these rows and conditional); 1.4 adds InvoiceDetailId (mandatory, nullable:
null, no invoice is issued) and CommitmentProgramEligibilityDetails (null: no commitment program
covers owned servers). Sources: the FOCUS specification's column pages
(FinOps-Open-Cost-and-Usage-Spec/FOCUS_Spec, CC BY 4.0).
"""
from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from fractions import Fraction
from typing import Any, Mapping

from models.owned_focus import SINGLE, OwnedExport, owned_export

VERSIONS = ("1.3", "1.4")
PROVIDER = "Owned fleet (internal)"
COLUMNS_1_3 = (
    "AvailabilityZone", "BilledCost", "BillingAccountId", "BillingAccountName",
    "BillingAccountType", "BillingCurrency", "BillingPeriodEnd", "BillingPeriodStart",
    "ChargeCategory", "ChargeClass", "ChargeDescription", "ChargeFrequency", "ChargePeriodEnd",
    "ChargePeriodStart", "ConsumedQuantity", "ConsumedUnit", "ContractedCost",
    "ContractedUnitPrice", "EffectiveCost", "HostProviderName", "InvoiceId", "InvoiceIssuerName",
    "ListCost", "ListUnitPrice", "PricingCategory", "PricingCurrency",
    "PricingCurrencyContractedUnitPrice", "PricingCurrencyEffectiveCost",
    "PricingCurrencyListUnitPrice", "PricingQuantity", "PricingUnit", "ProviderName",
    "PublisherName", "RegionId", "RegionName", "ResourceId", "ResourceName", "ResourceType",
    "ServiceCategory", "ServiceName", "ServiceProviderName", "ServiceSubcategory", "SkuId",
    "SkuMeter", "SkuPriceDetails", "SkuPriceId", "SubAccountId", "SubAccountName",
    "SubAccountType", "Tags")
ADDED_1_4 = ("CommitmentProgramEligibilityDetails", "InvoiceDetailId")
CUSTOM = ("x_GpuHours", "x_OwnedServerType", "x_PricePerGpuHour")


def columns(version: str) -> tuple[str, ...]:
    """The CSV's header of a FOCUS version (FOCUS columns in alphabetical order, then ours)."""
    base = COLUMNS_1_3 + (ADDED_1_4 if version == "1.4" else ())
    return tuple(sorted(base)) + CUSTOM


def gpus_per_server(scenario: Mapping[str, Any]) -> dict[str, int]:
    """GPUs per server by type id (``owned`` for a plan of one type) from a document's
    scenario: a type's own ``gpus_per_server``, else the ``owned`` section's."""
    base = int((scenario.get("owned") or {}).get("gpus_per_server") or 8)
    types = scenario.get("server_types") or []
    if not types:
        return {SINGLE: base}
    return {str(t["id"]): int(t.get("gpus_per_server") or base) for t in types}


def export_of(doc: Mapping[str, Any], strategy: str) -> OwnedExport:
    """The owned rows of one strategy of a plan document (OwnedExportError when it has none)."""
    currencies = doc.get("currencies") or {}
    currency = currencies.get("owned") or currencies.get("reporting") or "USD"
    if not currencies:      # a document of before ``currencies``: one currency, no rate
        currencies = {"reporting": currency, "fx": None}
    return owned_export(doc["strategies"][strategy]["monthly"], strategy,
                        gpus_per_server(doc.get("scenario") or {}), currencies, currency)


def _money(cents: int) -> str:
    return str(Decimal(cents).scaleb(-2).quantize(Decimal("0.01")))


def _decimal(x: Fraction, places: int = 6) -> str:
    return str((Decimal(x.numerator) / Decimal(x.denominator)).quantize(Decimal(1).scaleb(
        -places)))


def _next_month(month: str) -> str:
    y, m = int(month[:4]), int(month[5:7])
    return f"{y + m // 12:04d}-{m % 12 + 1:02d}"


def focus_csv(doc: Mapping[str, Any], strategy: str, version: str = "1.3",
              account_id: str = "buyrent", account_name: str | None = None) -> str:
    """The owned fleet of ``strategy`` as FOCUS CSV text.

    Parameters
    ----------
    doc : mapping
        A plan document (``buyrent plan --json``; a stored revision's plan).
    strategy : str
        One of its strategies.
    version : str
        ``"1.3"`` or ``"1.4"``.
    account_id, account_name : str
        BillingAccountId / SubAccountId and their names (default: the plan's scenario name).

    Returns
    -------
    str
        The CSV, one row per month with owned GPU-hours and per server type.
    """
    if version not in VERSIONS:
        raise ValueError(f"FOCUS version {version}: one of {', '.join(VERSIONS)}")
    out = export_of(doc, strategy)
    name = account_name or str((doc.get("scenario") or {}).get("name") or account_id)
    header = columns(version)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    price = out.price_per_gpu_hour
    for r in out.rows:
        start = f"{r.month}-01T00:00:00Z"
        end = f"{_next_month(r.month)}-01T00:00:00Z"
        unit_price = _decimal(price * r.gpus_per_server)
        cost = _money(r.cost_cents)
        sku = f"owned-{r.gpus_per_server}gpu-server"
        row = {
            "BilledCost": cost, "EffectiveCost": cost, "ListCost": cost, "ContractedCost": cost,
            "PricingCurrencyEffectiveCost": cost, "BillingCurrency": out.currency,
            "PricingCurrency": out.currency,
            "BillingAccountId": account_id, "BillingAccountName": name,
            "BillingAccountType": "Internal", "SubAccountId": account_id,
            "SubAccountName": name, "SubAccountType": "Internal",
            "BillingPeriodStart": start, "BillingPeriodEnd": end,
            "ChargePeriodStart": start, "ChargePeriodEnd": end,
            "ChargeCategory": "Usage", "ChargeFrequency": "Usage-Based",
            "ChargeDescription": f"Owned server of {r.gpus_per_server} GPUs, fully loaded "
                                 f"internal price {_decimal(price, 4)} {out.currency} per "
                                 "GPU-hour",
            "ConsumedQuantity": repr(r.server_hours), "ConsumedUnit": "Hours",
            "PricingQuantity": repr(r.server_hours), "PricingUnit": "Hours",
            "PricingCategory": "Standard",
            "ListUnitPrice": unit_price, "ContractedUnitPrice": unit_price,
            "PricingCurrencyListUnitPrice": unit_price,
            "PricingCurrencyContractedUnitPrice": unit_price,
            "HostProviderName": PROVIDER, "InvoiceIssuerName": PROVIDER,
            "ProviderName": PROVIDER, "PublisherName": PROVIDER,
            "ServiceProviderName": PROVIDER,
            "ServiceCategory": "Compute", "ServiceSubcategory": "Virtual Machines",
            "ServiceName": "Owned GPU servers",
            "ResourceId": f"owned/{r.server_type}", "ResourceName": r.server_type,
            "ResourceType": "Server", "RegionId": "on-premises", "RegionName": "On premises",
            "SkuId": sku, "SkuPriceId": f"{sku}-{out.currency}", "SkuMeter": "Server-Hours",
            "SkuPriceDetails": json.dumps({"GpuCount": r.gpus_per_server}),
            "Tags": json.dumps({"buyrent-strategy": strategy}),
            "x_GpuHours": repr(r.gpu_hours), "x_OwnedServerType": r.server_type,
            "x_PricePerGpuHour": _decimal(price),
        }
        writer.writerow({k: row.get(k, "") for k in header})
    return buffer.getvalue()
