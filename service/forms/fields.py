"""One input of the scenario form, generated from one pydantic field.

The widget comes from the field's annotation (int, float, Literal, bool, tuple, str), the unit,
bounds, help, source and essential marker from ``models.fields.field_meta``, and how numbers are
shown (percent, money) from ``service.form_values``.
"""
from __future__ import annotations

import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Optional

from werkzeug.datastructures import MultiDict

from models.fields import field_meta
from models.scenario import market_of
from service import form_values as fv
from service.clip import clip
from service.i18n import N_, gettext as _
from service.i18n.labels import OPTION_WORDS, display_unit  # noqa: F401 (OPTION_WORDS kept here for callers)

# The schema's default scenario name (models/scenario.py, Scenario.name), marked for the catalog;
# tests/web/test_korean_everywhere.py checks that the two stay the same words.
DEFAULT_NAME = N_("Built-in defaults: 8x H100 vs AWS p5 on demand")
SHOWN_INPUT = 1_000  # characters of a posted value shown again (names allow 200)


@dataclass
class FormField:
    name: str            # dotted path, also the HTML name: "owned.pue", "commitments.0.id"
    label: str
    unit: str = ""       # as shown beside the input: "% per year", "USD per server"
    help: str = ""
    source: str = ""
    bounds: str = ""
    kind: str = "text"   # widget: text | number | money | select | checkbox | list | pairs
    display: str = fv.PLAIN  # percent | money | plain (service.form_values)
    options: tuple = ()
    optional: bool = False
    essential: bool = False
    value: str = ""
    checked: bool = False
    default: str = ""    # the default's input text ("" for none)
    error: str = ""
    preset: str = ""     # source of a value a preset just filled in
    attrs: dict = field(default_factory=dict)  # min, max, step, pattern, maxlength

    @property
    def choices(self) -> list[tuple[str, str]]:
        """(value, shown text) of a select box's options."""
        return [(str(o), _(OPTION_WORDS[o]) if o in OPTION_WORDS else str(o))
                for o in self.options]

    @property
    def changed(self) -> bool:
        if self.kind == "checkbox":
            return self.checked != (self.default == "true")
        return not fv.same_value(self.value, self.default)


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """(inner type, optional?) of ``Optional[X]``, ``X`` without its ``Annotated`` metadata
    (a server type's override of an ``owned`` field is ``Optional[Annotated[float, ...]]``:
    kept, its percent field read as a plain number)."""
    optional = False
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            annotation, optional = args[0], True
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation, optional



def format_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(v) for v in value)
    return str(value)



def bounds_text(meta: dict, display: str = fv.PLAIN) -> str:
    """The bounds a person is shown beside an input, where they guide: a share's 0-100 %, a
    horizon's 240 months. Not money's (zero goes without saying, the upper bounds only keep
    absurd amounts out, in dollars scaled for small currency units), nor the other bounds the
    schema marks as guards (``models.fields.field``'s ``guard``)."""
    if display == fv.MONEY or meta.get("kind") == fv.MONEY:
        return ""
    parts = []
    suffix = " %" if display == fv.PERCENT else ""
    for key, symbol in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
        if key in meta and key not in meta.get("guard", ()):
            parts.append(f"{symbol} {fv.show_number(meta[key], display)}{suffix}")
    return ", ".join(parts)



def input_kind(annotation: Any, display: str) -> tuple[str, tuple]:
    """(widget, options) from the field's annotation: the type decides, never the unit."""
    inner, _ = _unwrap(annotation)
    if typing.get_origin(inner) is Literal:
        return "select", typing.get_args(inner)
    if inner is bool:
        return "checkbox", ()
    if typing.get_origin(inner) is tuple:
        return "list", ()
    if typing.get_origin(inner) is dict:
        return "pairs", ()
    if inner is int:
        return "number", ()
    if inner is float:
        return ("money" if display == fv.MONEY else "number"), ()
    return "text", ()



def input_attrs(info, meta: dict, kind: str, display: str) -> dict:
    """HTML attributes that tell the browser (and assistive technology) what fits."""
    attrs: dict[str, str] = {}
    inner, _ = _unwrap(info.annotation)
    if kind == "number":
        attrs["step"] = "1" if inner is int else "any"
        for key, attr in (("ge", "min"), ("gt", "min"), ("le", "max"), ("lt", "max")):
            if key in meta:
                attrs[attr] = fv.show_number(meta[key], fv.PERCENT if display == fv.PERCENT
                                             else fv.PLAIN)
    if kind in ("money", "number", "list"):
        attrs["inputmode"] = "numeric" if inner is int else "decimal"
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    if extra.get("widget") == "slider" and "min" in attrs and "max" in attrs:
        attrs["data-slider"] = "true"        # drawn with a range input beside it
    for item in info.metadata:
        if getattr(item, "pattern", None) and kind == "text":
            attrs["pattern"] = item.pattern
        if getattr(item, "max_length", None) and kind == "text":
            attrs["maxlength"] = str(item.max_length)
    return attrs



def display_kind(info) -> str:
    """How the numbers of a field are shown and typed (service.form_values): percent, money or
    plain; anything that is not a number is plain text."""
    inner, _optional = _unwrap(info.annotation)
    numeric = inner in (int, float) or typing.get_origin(inner) in (tuple, dict)
    return field_meta(info)["kind"] if numeric else fv.PLAIN


def make_field(name: str, info, value: Any, raw: Optional[MultiDict], default: Any = None,
               currency: str | Mapping[str, str] = "USD") -> FormField:
    """One input; ``currency`` labels money inputs, by market (models.scenario.market_of)
    when it is a mapping of "reporting", "owned" and "cloud" to currency codes."""
    if not isinstance(currency, str):
        currency = currency[market_of(name)]
    meta = field_meta(info)
    inner, optional = _unwrap(info.annotation)
    display = display_kind(info)
    kind, options = input_kind(info.annotation, display)
    spec = FormField(name=name, label=_(meta["label"]) or name.rsplit(".", 1)[-1],
                     unit=display_unit(meta["unit"], display, currency),
                     help=_(meta["help"]), source=_(meta["source"]),
                     bounds=bounds_text(meta, display), optional=optional, kind=kind,
                     display=display, options=options, essential=meta["essential"],
                     default=fv.show(default, display),
                     attrs=input_attrs(info, meta, kind, display))
    if raw is not None:
        spec.value = clip(raw.get(name, ""), SHOWN_INPUT)   # a re-shown post, bounded
        spec.checked = raw.get(name) == "true"
    else:
        spec.value = fv.show(value, display)
        spec.checked = value is True
        if name == "name" and value == DEFAULT_NAME:
            # the schema's default name, stored in English, reads in the page's language; what
            # the reader saves is what the form showed
            spec.value = _(DEFAULT_NAME)
    return spec
