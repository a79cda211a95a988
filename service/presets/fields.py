"""Scenario data by dotted path for the presets: read and write a value, the currency a field
is entered in, and a preset's number rounded to its field's precision."""
from __future__ import annotations

from typing import Any

from models.fields import field_meta
from models.scenario import market_of
from service.form_values import round_to_field
from service.forms.scenario import _path_info


def is_money(path: str, value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    info = _path_info(path)[1]
    return info is not None and field_meta(info)["kind"] == "money"


def get_at(data: dict, path: str) -> Any:
    node: Any = data
    for part in path.split("."):
        node = node[int(part)] if part.isdigit() and isinstance(node, list) else node[part]
    return node


def market_currency(data: dict, path: str) -> str:
    """The currency the field at ``path`` of this scenario data is entered in: its market's,
    else the reporting currency."""
    reporting = (data.get("finance") or {}).get("currency") or "USD"
    section = {"owned": "owned", "cloud": "cloud_terms"}.get(market_of(path))
    return ((data.get(section) or {}).get("currency") if section else None) or reporting


def rounded(path: str, value: float, currency: str) -> float:
    """A preset's number rounded to the precision of the field at ``path`` in ``currency``
    (service.form_values.field_digits picks it from the field's unit)."""
    info = _path_info(path)[1]
    if info is None:
        return value
    meta = field_meta(info)
    return round_to_field(value, meta["unit"], meta["kind"], currency)


def set_at(data: dict, path: str, value: Any) -> None:
    node: Any = data
    parts = path.split(".")
    for part in parts[:-1]:
        node = node[int(part)] if part.isdigit() else node.setdefault(part, {})
    node[parts[-1]] = value
