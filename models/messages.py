"""Sentences of a plan as templates with typed parameters (issue 15).

The engine decides *what* to say (a recommendation, a warning, why a breakeven is missing); each
view decides *how*: in which language and with which number format. A :class:`Message` holds an
English template with ``{named}`` placeholders, which is also the message id of the translation
catalogs, and its parameters as typed values (money with its currency, a fraction shown as a
percentage, a count, a month, a duration). Templates are literal strings at the call site, so
``pybabel extract`` finds them (keyword ``Message``). Models never translate.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Union


@dataclass(frozen=True)
class Money:
    """An amount of money [currency]."""

    value: float
    currency: str


@dataclass(frozen=True)
class Percent:
    """A fraction shown as a percentage (0.25 -> 25 %) with ``digits`` decimals."""

    value: float
    digits: int = 0


@dataclass(frozen=True)
class Number:
    """A count or quantity with ``digits`` decimals (thousands grouped)."""

    value: float
    digits: int = 0


@dataclass(frozen=True)
class Months:
    """A duration in months (12 -> "1 year", 18 -> "18 months")."""

    value: int


Param = Union[Money, Percent, Number, Months, str, int]
KINDS = {Money: "money", Percent: "percent", Number: "number", Months: "months"}


def english_money(x: Money) -> str:
    """$1.2M, KRW 350k: short, for sentences (tables show full figures)."""
    sign, v = ("-" if x.value < 0 else ""), abs(x.value)
    symbol = "$" if x.currency == "USD" else f"{x.currency} "
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if v >= size:
            return f"{sign}{symbol}{v / size:.1f}{suffix}"
    return f"{sign}{symbol}{v:,.0f}"


def english_months(x: Months) -> str:
    n = x.value
    if n % 12 == 0:
        years = n // 12
        return f"{years} year{'s' if years != 1 else ''}"
    return f"{n} month{'s' if n != 1 else ''}"


def english(value: Param) -> str:
    """The English rendering of one parameter."""
    if isinstance(value, Money):
        return english_money(value)
    if isinstance(value, Percent):
        return f"{value.value:.{value.digits}%}"
    if isinstance(value, Number):
        return f"{value.value:,.{value.digits}f}"
    if isinstance(value, Months):
        return english_months(value)
    return str(value)


@dataclass(frozen=True)
class Message:
    """An English template with ``{named}`` placeholders and its typed parameters."""

    template: str
    params: Mapping[str, Param] = field(default_factory=dict)

    def render(self, template: str | None = None,
               formatter: Callable[[Param], str] = english) -> str:
        """The sentence, from ``template`` (a translation of ours) or our own, with each
        parameter formatted by ``formatter``."""
        values = {k: formatter(v) for k, v in self.params.items()}
        return (template or self.template).format(**values)

    @classmethod
    def plain(cls, text: str) -> "Message":
        """A sentence with no parameters whose text may contain braces (e.g. read from a
        file): the braces are escaped so that rendering gives the text back."""
        return cls(text.replace("{", "{{").replace("}", "}}"))

    @property
    def text(self) -> str:
        return self.render()

    def as_json(self) -> dict[str, Any]:
        """JSON-ready form: the template, typed parameters and the English text."""
        return {"template": self.template, "text": self.text,
                "params": {k: param_json(v) for k, v in self.params.items()}}


def param_json(value: Param) -> Any:
    kind = KINDS.get(type(value))
    if kind is None:
        return value
    out = {"kind": kind, "value": value.value}
    if isinstance(value, Money):
        out["currency"] = value.currency
    if isinstance(value, (Percent, Number)):
        out["digits"] = value.digits
    return out


def param_from_json(value: Any) -> Param:
    if not isinstance(value, dict):
        return value
    kind = value["kind"]
    if kind == "money":
        return Money(value["value"], value["currency"])
    if kind == "percent":
        return Percent(value["value"], value.get("digits", 0))
    if kind == "number":
        return Number(value["value"], value.get("digits", 0))
    if kind == "months":
        return Months(int(value["value"]))
    raise ValueError(f"unknown parameter kind {kind!r}")


def message_from_json(data: Mapping[str, Any]) -> Message:
    """The inverse of :meth:`Message.as_json` (the text is derived, so it is not read)."""
    return Message(data["template"], {k: param_from_json(v)
                                      for k, v in data.get("params", {}).items()})
