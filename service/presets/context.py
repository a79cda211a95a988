"""Local-context presets: a country's currency, taxes and utility prices, dated and sourced.

A GPU preset (service/presets/gpu_prices.py) fills in cloud prices; a context preset moves a scenario into
a country's setting. The Korean one reports in won, keeps AWS prices in dollars (how AWS bills
accounts in Korea), sets 10 % VAT on cloud bills, the 2025 exchange rate and KEPCO's industrial
tariff. Applied to a scenario in dollars it first converts every owned-market and reporting
money value into won at the preset's rate, so a server that cost 300,000 USD costs
426,648,000 KRW: the scenario means the same thing, in the new currency.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from babel.numbers import get_currency_precision

from models.fields import field_meta
from models.scenario import market_of
from service.forms.scenario import _path_info, flatten
from service.i18n import _
from service.paths import CONTEXT_PRESETS

PREFIX = "context/"


class ContextPresetError(ValueError):
    """The scenario is in a currency the preset cannot convert from."""


@dataclass(frozen=True)
class ContextPreset:
    id: str
    label: str               # English; shown through the catalog (label_text)
    currency: str            # the reporting currency it moves a scenario into
    converts_from: str       # the currency whose money values it can convert
    as_of: str
    values: dict[str, Any]   # dotted path -> value
    sources: dict[str, str]  # dotted path -> where the value comes from

    kind = "context"

    @property
    def label_text(self) -> str:
        """The label in the reader's language (service/i18n/extract.py extracts the JSON)."""
        return _(self.label)

    @property
    def source(self) -> str:
        return _("dated %(as_of)s; each value's source is shown beside it", as_of=self.as_of)

    @property
    def note(self) -> str:
        return ""

    def provenance(self) -> dict:
        return {"id": self.id, "label": self.label, "as_of": self.as_of,
                "sources": self.sources, "fields": sorted(self.values)}

    def marks(self, data: dict) -> dict[str, str]:
        return {path: _("%(source)s (as of %(as_of)s)", source=_(text), as_of=self.as_of)
                for path, text in self.sources.items()}

    def apply(self, data: dict) -> dict:
        """Scenario data moved into the preset's currency and filled with its values."""
        data = json.loads(json.dumps(data))     # a deep copy of plain JSON data
        finance = data.setdefault("finance", {})
        reporting = finance.get("currency") or "USD"
        if reporting != self.currency:
            if reporting != self.converts_from:
                raise ContextPresetError(_(
                    "The %(preset)s preset converts a scenario in %(from)s; this one reports "
                    "in %(reporting)s.", preset=self.label_text, **{"from": self.converts_from},
                    reporting=reporting))
            owned = (data.get("owned") or {}).get("currency")
            if owned not in (None, "", reporting):
                raise ContextPresetError(_(
                    "Owned costs are in %(owned)s: the preset converts %(reporting)s only.",
                    owned=owned, reporting=reporting))
            rate = self.values["fx.rate"]
            digits = get_currency_precision(self.currency)   # won: whole numbers
            for path, value in flatten(data).items():
                if _is_money(path, value) and market_of(path) != "cloud":
                    _set(data, path, converted(value, rate, digits))
            finance["currency"] = self.currency
        cloud = (data.get("cloud_terms") or {}).get("currency")
        if cloud not in (None, "", reporting, self.values.get("cloud_terms.currency")):
            raise ContextPresetError(_(
                "Cloud prices are in %(cloud)s: the preset bills the cloud in %(billed)s.",
                cloud=cloud, billed=self.values.get("cloud_terms.currency")))
        for path, value in self.values.items():
            _set(data, path, value)
        return data


def converted(value: float, rate: float, digits: int) -> float:
    """A money value at the rate, rounded to the new currency's minor unit: 184.06 USD per
    kW-month x 1,422.16 = 261,762.7696 -> 261,763 KRW (a field's precision: won have no
    decimals); a value under one unit keeps two significant digits."""
    out = value * rate
    if abs(out) >= 10 ** -digits:
        return float(round(out, digits))
    return float(f"{out:.2g}")


def _is_money(path: str, value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    info = _path_info(path)[1]
    return info is not None and field_meta(info)["kind"] == "money"


def _set(data: dict, path: str, value: Any) -> None:
    node: Any = data
    parts = path.split(".")
    for part in parts[:-1]:
        node = node[int(part)] if part.isdigit() else node.setdefault(part, {})
    node[parts[-1]] = value


@functools.cache
def load_context_presets() -> dict[str, ContextPreset]:
    with open(CONTEXT_PRESETS, encoding="utf-8") as handle:
        raw = json.load(handle)
    return {PREFIX + key: ContextPreset(PREFIX + key, item["label"], item["currency"],
                                        item["converts_from"], item["as_of"], item["values"],
                                        item["sources"])
            for key, item in raw.items()}
