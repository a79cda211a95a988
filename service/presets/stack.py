"""Presets that stack: a local context (a country's currency, VAT, exchange rate, electricity and
tax, service/presets/context.py) and a cloud price (provider, region, instance,
service/presets/gpu_prices.py), applied in either order.

Each preset changes only the fields it names, plus, for a context preset on a scenario still in
dollars, the money values it converts into its currency (``ContextPreset.apply`` says the rule).
The two kinds name different fields except the currency of cloud prices, which both set to
dollars, and a context never converts cloud prices: so a context and a price preset give the
same scenario in either order.

Two ways in, one rule: :func:`apply_all` fills scenario data (the form's page without
JavaScript, ``?preset=...&preset=...``); :func:`form_changes` answers the form's script with the
inputs a preset would change in the form as it is, typed values included, each new value
already rounded and written as the form shows it (percent as percent, money with separators).
"""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Union

from werkzeug.datastructures import MultiDict

from service import form_values as fv
from service.forms.fields import FormField, _unwrap, display_kind
from models.scenario import market_of
from service.forms.scenario import (TABLE_BY_PATH, _path_info, build_form, flatten,
                                    form_currency, form_to_data, label_for)
from service.i18n import _, ngettext
from service.presets.context import ContextPreset, load_context_presets
from service.presets.fields import set_at
from service.presets.gpu_prices import Preset, load_presets

AnyPreset = Union[Preset, ContextPreset]
ROW = re.compile(r"^(%s)\.([0-9]+)\.(.+)$" % "|".join(
    re.escape(path) for path in sorted(TABLE_BY_PATH, key=len, reverse=True)))


class UnknownPreset(KeyError):
    """A preset id that is neither a price nor a context preset."""


def all_presets() -> dict[str, AnyPreset]:
    return {**load_presets(), **load_context_presets()}


def chosen(ids: Iterable[str]) -> list[AnyPreset]:
    """The presets named, in order, empty names skipped; one of each kind (a later price
    preset replaces an earlier one, and so does a later context)."""
    known = all_presets()
    out: dict[str, AnyPreset] = {}
    for preset_id in ids:
        preset_id = (preset_id or "").strip()
        if not preset_id:
            continue
        if preset_id not in known:
            raise UnknownPreset(preset_id)
        preset = known[preset_id]
        out.pop(preset.kind, None)
        out[preset.kind] = preset
    return list(out.values())


def conversion_note(preset: ContextPreset) -> str:
    """What a value converted by a context preset says beside its field."""
    return _("converted from %(source)s at %(rate)s %(currency)s per %(source)s (as of "
             "%(as_of)s)", source=preset.converts_from, currency=preset.currency,
             rate=f"{preset.values['fx.rate']:,}", as_of=preset.as_of)


def converted_by(preset: AnyPreset, data: dict) -> list[str]:
    return preset.converted_paths(data) if isinstance(preset, ContextPreset) else []


def apply_all(data: dict, presets: Iterable[AnyPreset]) -> tuple[dict, dict[str, str]]:
    """Scenario data with the presets applied in order, and the note shown beside each field
    they set (its source) or converted (the rate). Raises ContextPresetError."""
    marks: dict[str, str] = {}
    for preset in presets:
        converted = converted_by(preset, data)
        data = preset.apply(data)
        marks.update({path: conversion_note(preset) for path in converted})
        marks.update(preset.marks(data))
    return data, marks


def provenance(presets: Iterable[AnyPreset]) -> list[dict]:
    """What a saved revision records of the presets applied (``Revision.preset``)."""
    return [preset.provenance() for preset in presets]


def changed_text(count: int) -> str:
    return ngettext("Changed: %(num)s value", "Changed: %(num)s values", count)


@dataclass
class Change:
    """One input a preset changes in the form."""

    name: str         # the input's name (a dotted path with the form's row numbers)
    label: str
    old: str          # the input's text before, and after (as the form shows values)
    new: str
    old_unit: str     # what the list of changes says after a number: a currency, "%"
    new_unit: str
    converted: bool   # a money value converted into the preset's currency, not replaced
    mark: str         # "Filled from preset: <source>" beside the field

    def said(self, text: str, unit: str) -> str:
        if not text.strip():
            return _("(empty)")
        return f"{text} {unit}" if unit else text

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "old_text": self.said(self.old, self.old_unit),
                "new_text": self.said(self.new, self.new_unit)}


@dataclass
class FormChanges:
    changes: list[Change]
    units: dict[str, str]   # input name -> the unit shown beside it now, where it changes

    @property
    def summary(self) -> str:
        return changed_text(len(self.changes))


def typed(data: dict) -> dict:
    """Form data (numbers as the typed text pydantic would read) with each number that reads
    as one made a number, so that a preset can convert it; other text stays as it is."""
    for path, value in flatten(data).items():
        if not isinstance(value, str):
            continue
        info = _path_info(path)[1]
        inner = _unwrap(info.annotation)[0] if info is not None else None
        if inner not in (int, float):
            continue
        try:
            number = float(value)
        except ValueError:
            continue
        if math.isfinite(number):
            set_at(data, path, int(number) if inner is int and number.is_integer() else number)
    return data


class RowNames:
    """Form input names of data paths: the n-th kept row of a table is the form row that
    row_maps says; a row the preset adds takes a blank row of the form, then a new index."""

    def __init__(self, raw: MultiDict, row_maps: dict[str, list[int]]):
        self.raw, self.row_maps = raw, row_maps
        self.extra: dict[str, list[int]] = {}

    def free(self, table: str) -> list[int]:
        if table not in self.extra:
            used = set(self.row_maps.get(table, []))
            posted = sorted({int(m.group(2)) for key in self.raw
                             if (m := ROW.match(key)) and m.group(1) == table})
            after = max(posted, default=-1) + 1
            self.extra[table] = [i for i in posted if i not in used] + \
                list(range(after, after + 20))
        return self.extra[table]

    def __call__(self, path: str) -> str:
        m = ROW.match(path)
        if not m:
            return path
        table, position, rest = m.group(1), int(m.group(2)), m.group(3)
        rows = self.row_maps.get(table, [])
        if position < len(rows):
            return f"{table}.{rows[position]}.{rest}"
        return f"{table}.{self.free(table)[position - len(rows)]}.{rest}"


def field_text(spec: FormField) -> str:
    if spec.kind == "checkbox":
        return "true" if spec.checked else "false"
    return spec.value


def short_unit(path: str, spec: FormField | None, currency: dict[str, str]) -> str:
    """What follows a number in the list of changes: its currency or "%" (the label names
    the rest: "Server price: 300,000 USD -> 426,648,000 KRW")."""
    display = spec.display if spec is not None else fv.PLAIN
    if display == fv.MONEY:
        return currency[market_of(path)]
    return "%" if display == fv.PERCENT else ""


def form_changes(preset: AnyPreset, raw: MultiDict) -> FormChanges:
    """The inputs ``preset`` changes in the posted form, with their new text.

    The form's values go through the same rule as saved data (:func:`apply_all`): read as the
    scenario reads them, the preset applied, and each value it names or converts written back
    as its input shows it. Values the preset neither names nor converts are not touched, typed
    or not. Raises ContextPresetError (a scenario in a currency the preset cannot convert).
    """
    before = {f.name: f for s in build_form({}, raw) for f in s.all_fields}
    data, row_maps = form_to_data(raw)
    data = typed(data)
    converted = converted_by(preset, data)
    after = preset.apply(data)
    marks = {path: conversion_note(preset) for path in converted}
    marks.update(preset.marks(after))
    values = flatten(after)
    name_of = RowNames(raw, row_maps)
    posted = MultiDict(raw)
    found: list[tuple[str, str, str, str]] = []
    named = preset.paths(after)
    for path in dict.fromkeys([*named, *converted]):
        name = name_of(path)
        info = _path_info(path)[1]
        if info is None:
            continue
        spec = before.get(name)
        value = values.get(path)
        new = fv.show(value, spec.display if spec is not None else display_kind(info))
        old = field_text(spec) if spec is not None else ""
        if fv.same_value(old, new):
            continue
        posted.setlist(name, [new])
        found.append((path, name, old, new))
    now = {f.name: f for s in build_form({}, posted) for f in s.all_fields}
    order = {name: i for i, name in enumerate(now)}
    currency = form_currency({}, raw), form_currency({}, posted)
    changes = [Change(name, label_for(path), old, new,
                      short_unit(path, now.get(name), currency[0]),
                      short_unit(path, now.get(name), currency[1]),
                      path in converted and path not in named,
                      _("Filled from preset: %(preset)s", preset=marks[path])
                      if path in marks else "")
               for path, name, old, new in found]
    changes.sort(key=lambda c: order.get(c.name, len(order)))
    units = {name: spec.unit for name, spec in now.items()
             if name in before and before[name].unit != spec.unit}
    return FormChanges(changes, units)
