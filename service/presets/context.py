"""Local-context presets: a country's currency, taxes and utility prices, dated and sourced.

A GPU preset (service/presets/gpu_prices.py) fills in cloud prices; a context preset moves a
scenario into a country's setting; the two stack (service/presets/stack.py). The Korean one reports in won, keeps AWS prices in dollars (how AWS bills
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

from models.scenario import market_of
from service.forms.scenario import flatten
from service.presets.fields import get_at, is_money, set_at, market_currency, rounded
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

    def check(self, data: dict) -> None:
        """Raise ContextPresetError when the preset cannot move this scenario."""
        reporting = (data.get("finance") or {}).get("currency") or "USD"
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
        cloud = (data.get("cloud_terms") or {}).get("currency")
        if cloud not in (None, "", reporting, self.values.get("cloud_terms.currency")):
            raise ContextPresetError(_(
                "Cloud prices are in %(cloud)s: the preset bills the cloud in %(billed)s.",
                cloud=cloud, billed=self.values.get("cloud_terms.currency")))

    def converted_paths(self, data: dict) -> list[str]:
        """The money values :meth:`apply` converts in this scenario: every number of the owned
        and reporting markets when the scenario is not in the preset's currency yet (it is
        then in ``converts_from``: :meth:`check`)."""
        if ((data.get("finance") or {}).get("currency") or "USD") == self.currency:
            return []
        return [path for path, value in flatten(data).items()
                if is_money(path, value) and market_of(path) != "cloud"]

    def paths(self, data: dict) -> list[str]:
        """The fields the preset names: the reporting currency and each of its values."""
        return ["finance.currency", *flatten(json.loads(json.dumps(self.values)))]

    def apply(self, data: dict) -> dict:
        """Scenario data moved into the preset's currency and filled with its values.

        The conversion rule: a scenario in ``converts_from`` (dollars) has every money value
        of its owned and reporting markets multiplied by the preset's ``fx.rate`` and rounded
        to its field's precision in the new currency (``service.form_values.field_digits``):
        300,000 USD x 1,422.16 = 426,648,000 KRW per server, 184.06 x 1,422.16 = 261,762.7696
        -> 261,763 KRW per kW-month. Cloud prices are never converted: they stay in the
        currency the cloud bills in (``cloud_terms.currency``, dollars for AWS in Korea) and
        the plan converts them at the exchange rate, month by month. So a cloud price preset
        (dollars, service/presets/gpu_prices.py), which sets cloud prices only, gives the same
        scenario applied before or after this one.
        """
        self.check(data)
        data = json.loads(json.dumps(data))     # a deep copy of plain JSON data
        for path in self.converted_paths(data):
            set_at(data, path, rounded(path, get_at(data, path) * self.values["fx.rate"],
                                     self.currency))
        data.setdefault("finance", {})["currency"] = self.currency
        for path, value in self.values.items():
            set_at(data, path, value)
        for path, value in flatten(json.loads(json.dumps(self.values))).items():
            if isinstance(value, float):
                set_at(data, path, rounded(path, value, market_currency(data, path)))
        return data


@functools.cache
def load_context_presets() -> dict[str, ContextPreset]:
    with open(CONTEXT_PRESETS, encoding="utf-8") as handle:
        raw = json.load(handle)
    return {PREFIX + key: ContextPreset(PREFIX + key, item["label"], item["currency"],
                                        item["converts_from"], item["as_of"], item["values"],
                                        item["sources"])
            for key, item in raw.items()}
