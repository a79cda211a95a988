"""How a scenario value is typed and shown in the form, and read back.

The scenario keeps fractions (0.1) and plain numbers; people type percentages (10 %) and money
with thousands separators (300,000). The field's own metadata decides which is which
(``models.fields.field_meta``: ``kind`` is "percent", "money" or "plain"), so these rules are
written once for every field. Arithmetic goes through ``Decimal`` so that 29 % is stored as
0.29, never as 0.29000000000000004.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any, Optional

from babel.numbers import get_currency_precision

PERCENT, MONEY, PLAIN = "percent", "money", "plain"
HUNDRED = Decimal(100)
GROUPED = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$")  # 1,234,567.89 (groups of three only)
SPACES = re.compile(r"[\s\u00a0\u202f_]")


def plain_number(value: Decimal) -> str:
    """A Decimal without exponent or trailing zeros: 1E+2 -> "100", 0.2900 -> "0.29"."""
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def grouped(text: str) -> str:
    """Thousands separators in the integer part of a plain number: 300000.5 -> 300,000.5."""
    sign = "-" if text.startswith("-") else ""
    whole, _, frac = text.lstrip("-").partition(".")
    whole = f"{int(whole):,}" if whole.isdigit() else whole
    return sign + whole + ("." + frac if frac else "")


def show_number(value: Any, kind: str) -> str:
    """The text an input shows for one number of a field of this kind."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "" if value is None else str(value)
    number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if kind == PERCENT:
        return plain_number(number * HUNDRED)
    text = plain_number(number)
    return grouped(text) if kind == MONEY else text


def show(value: Any, kind: str) -> str:
    """The input text of a field value (numbers, lists of numbers, text, booleans)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ", ".join(show(v, kind) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {show(v, kind)}" for k, v in value.items())
    return show_number(value, kind)


def _decimal(text: str) -> Optional[Decimal]:
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def read_number(text: str, kind: str) -> str:
    """What pydantic gets for one typed number: percent divided by 100, money without its
    separators. Text that is not a number goes through unchanged, so that pydantic's own
    message ("Input should be a valid number") names the problem."""
    text = text.strip()
    if kind == PERCENT:
        text = text.removesuffix("%").strip()
    compact = SPACES.sub("", text)
    if GROUPED.match(compact):
        compact = compact.replace(",", "")
    number = _decimal(compact)
    if number is None:
        return text
    return plain_number(number / HUNDRED) if kind == PERCENT else compact


def read_list(text: str, kind: str) -> list[str]:
    """A comma-separated list of numbers; with separators inside numbers it cannot be told
    apart, so list items are plain numbers (or percentages) separated by commas."""
    return [read_number(part, kind) for part in text.split(",") if part.strip()]


def read_pairs(text: str, kind: str) -> dict[str, str]:
    """``key: number`` items separated by commas ("2025-01: 2, 2025-06: 1") as a mapping.
    An item without a colon keeps its text as the value, so that pydantic names the item it
    cannot read instead of the whole mapping disappearing."""
    out: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, colon, value = part.partition(":")
        out[key.strip()] = read_number(value, kind) if colon else part.strip()
    return out


def same_value(a: str, b: str) -> bool:
    """Whether two input texts mean the same value (300000 = 300,000 = 300000.0)."""
    a, b = a.strip(), b.strip()
    if a == b:
        return True
    if "," in a.replace(", ", "") or "," in b.replace(", ", ""):
        a, b = SPACES.sub("", a).replace(",", ""), SPACES.sub("", b).replace(",", "")
    da, db = _decimal(SPACES.sub("", a)), _decimal(SPACES.sub("", b))
    if da is not None and db is not None:
        return da == db
    return [p.strip() for p in a.split(",")] == [p.strip() for p in b.split(",")]


# Money per small quantity (a kWh, a GB, a GPU-hour) is quoted finer than the currency's minor
# unit: 0.0806 USD per kWh, 9.4944 USD per GPU-hour, 182.7 KRW per kWh.
FINE_UNITS = ("kWh", "GB", "GPU-hour")
PERCENT_DIGITS = 4   # of a fraction: hundredths of a percent (20.9 % = 0.209, 11.52 % = 0.1152)
PLAIN_DIGITS = 6


def field_digits(unit: str, kind: str, currency: str) -> int:
    """Decimal places a value of a field keeps when a preset fills it in (or converts it).

    Money takes its currency's minor unit (won: none, dollars: cents), two more for a price per
    small quantity (``FINE_UNITS``); a percent field keeps hundredths of a percent (four places
    of the fraction); any other number six places, which is only there to drop float noise.

    >>> [field_digits(unit, MONEY, "KRW") for unit in ("currency per server", "currency per kWh")]
    [0, 2]
    >>> field_digits("currency per GPU-hour", MONEY, "USD"), field_digits("fraction", PERCENT, "")
    (4, 4)
    """
    if kind == MONEY:
        minor = get_currency_precision(currency or "USD")
        return minor + 2 if any(word in unit for word in FINE_UNITS) else minor
    return PERCENT_DIGITS if kind == PERCENT else PLAIN_DIGITS


def round_to_field(value: float, unit: str, kind: str, currency: str) -> float:
    """A preset's number rounded to its field's precision (:func:`field_digits`): 184.06 USD per
    kW-month x 1,422.16 = 261,762.7696 -> 261,763 KRW; a value under one unit of that precision
    keeps two significant digits rather than becoming 0."""
    digits = field_digits(unit, kind, currency)
    if value == 0 or abs(value) >= 10 ** -digits:
        return float(round(value, digits))
    return float(f"{value:.2g}")


def display_unit(unit: str, kind: str, currency: str) -> str:
    """The unit shown beside an input: "fraction per year" -> "% per year", "currency per
    server" -> "USD per server"."""
    if kind == PERCENT:
        return "%" + unit[len("fraction"):]
    if kind == MONEY:
        return currency + unit[len("currency"):]
    return unit


def bound_message(item: dict, kind: str) -> Optional[str]:
    """Pydantic's bound message in the unit people typed (percent fields), else None."""
    if kind != PERCENT:
        return None
    phrases = {"greater_than_equal": ("ge", "greater than or equal to"),
               "greater_than": ("gt", "greater than"),
               "less_than_equal": ("le", "less than or equal to"),
               "less_than": ("lt", "less than")}
    if item.get("type") not in phrases:
        return None
    key, phrase = phrases[item["type"]]
    limit = (item.get("ctx") or {}).get(key)
    if not isinstance(limit, (int, float)):
        return None
    return f"Input should be {phrase} {show_number(limit, PERCENT)} %"
