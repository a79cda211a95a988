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
    """A money amount in short English, for sentences (tables show full figures).

    Parameters
    ----------
    x : Money
        The amount [currency] and its ISO 4217 code.

    Returns
    -------
    str
        One decimal with k, M or B above a thousand; ``$`` for USD, else the code.

    Examples
    --------
    >>> english_money(Money(1_234_567, "USD"))
    '$1.2M'
    >>> english_money(Money(350_000, "KRW"))
    'KRW 350.0k'
    """
    sign, v = ("-" if x.value < 0 else ""), abs(x.value)
    symbol = "$" if x.currency == "USD" else f"{x.currency} "
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if v >= size:
            return f"{sign}{symbol}{v / size:.1f}{suffix}"
    return f"{sign}{symbol}{v:,.0f}"


def english_months(x: Months) -> str:
    """A duration in English: whole years as years, else months.

    Parameters
    ----------
    x : Months
        The duration [months].

    Returns
    -------
    str
        "1 year", "18 months".

    Examples
    --------
    >>> english_months(Months(24)), english_months(Months(18))
    ('2 years', '18 months')
    """
    n = x.value
    if n % 12 == 0:
        years = n // 12
        return f"{years} year{'s' if years != 1 else ''}"
    return f"{n} month{'s' if n != 1 else ''}"


def english(value: Param) -> str:
    """The English rendering of one parameter.

    Parameters
    ----------
    value : Money, Percent, Number, Months, str or int
        Parameter to render.

    Returns
    -------
    str
        The text; a percent from a fraction (0.25 -> "25%").

    Examples
    --------
    >>> english(Percent(0.25))
    '25%'
    """
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
        """The sentence, with each parameter formatted.

        Parameters
        ----------
        template : str, optional
            A translation of the template; our own English one when None.
        formatter : callable, default english
            Formats one parameter for the language.

        Returns
        -------
        str
            The sentence.

        Examples
        --------
        >>> m = Message("Buy {n} servers in {quarter}.", {"n": Number(3), "quarter": "2027-Q2"})
        >>> m.render()
        'Buy 3 servers in 2027-Q2.'
        """
        values = {k: formatter(v) for k, v in self.params.items()}
        return (template or self.template).format(**values)

    @classmethod
    def plain(cls, text: str) -> "Message":
        """A sentence with no parameters whose text may contain braces (e.g. read from a file).

        Parameters
        ----------
        text : str
            The sentence.

        Returns
        -------
        Message
            The braces escaped, so that rendering gives the text back.
        """
        return cls(text.replace("{", "{{").replace("}", "}}"))

    @property
    def text(self) -> str:
        """The English sentence."""
        return self.render()

    def as_json(self) -> dict[str, Any]:
        """JSON-ready form: the template, typed parameters and the English text.

        Returns
        -------
        dict
            ``template``, ``text`` and ``params`` (each as :func:`param_json` writes it).
        """
        return {"template": self.template, "text": self.text,
                "params": {k: param_json(v) for k, v in self.params.items()}}


def param_json(value: Param) -> Any:
    """JSON-ready form of one parameter.

    Parameters
    ----------
    value : Money, Percent, Number, Months, str or int
        Parameter of a message.

    Returns
    -------
    object
        A string or integer as is; a typed value as ``{"kind", "value"}`` with ``currency``
        (money) or ``digits`` (percent, number).
    """
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
    """The inverse of :func:`param_json`.

    Parameters
    ----------
    value : object
        A parameter as :func:`param_json` writes it.

    Returns
    -------
    Money, Percent, Number, Months, str or int
        The typed parameter.

    Raises
    ------
    ValueError
        An unknown ``kind``.
    """
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
    """The inverse of :meth:`Message.as_json` (the text is derived, so it is not read).

    Parameters
    ----------
    data : Mapping
        ``template`` and optional ``params``.

    Returns
    -------
    Message
        The message.
    """
    return Message(data["template"], {k: param_from_json(v)
                                      for k, v in data.get("params", {}).items()})
