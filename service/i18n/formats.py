"""Numbers, money, percentages and durations in the reader's locale, through Babel (CLDR).

Every money figure a page, the CLI or a sentence shows goes through :func:`money`, which takes
the amount's own currency: KRW has no minor unit, so won are shown without decimals and with
the ₩ sign, prices per unit too (₩121 per kWh, issue 24); dollars get $ (US$ in Korean, as
CLDR writes it). Prices per unit (per GPU-hour, per kWh) keep two more decimals than the
currency's own, so $2.2036 stays meaningful; totals of 100 or more are shown whole.

One rounding rule for every amount: half away from zero on the decimal value the reader
would write (3,850,000 is $3.9M in every sentence and on every card). Babel
rounds half to even in the current decimal context, and a float's binary value can sit
either side of a tie, so one amount read "$3.9M" in one place and "$3.8M" in another.
"""
from __future__ import annotations

import decimal
import math
from typing import Any, Optional

from babel.numbers import (format_compact_currency, format_currency, format_decimal,
                           format_percent, get_currency_precision)

from models.scenario import OWNED_TYPE
from service.i18n import current_locale, ngettext, using_locale

DASH = "-"


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def _decimal(value: Any) -> decimal.Decimal:
    """The amount as the decimal a person would write: a float through its shortest repr,
    so 1234.565 is a tie at the cent and not 1234.56499999... ."""
    return value if isinstance(value, decimal.Decimal) else decimal.Decimal(repr(float(value)))


def _half_away():
    """Babel rounds in the current decimal context; decimal's HALF_UP is half away from zero."""
    context = decimal.getcontext().copy()
    context.rounding = decimal.ROUND_HALF_UP
    return decimal.localcontext(context)


def money(value: Any, currency: str = "USD", kind: str = "total",
          locale: Optional[str] = None) -> str:
    """``value`` [currency] as text: kind "total" (whole when >= 100), "rate" (a price per
    unit: up to two extra decimals), "exact" (to the minor unit, however large), "short" (compact, for sentences: $1.2M, ₩12.3억) or
    "card" (a card's headline: in Korean 1억 and more in 억, ₩172.2억; else a total)."""
    if _missing(value):
        return DASH
    locale = locale or current_locale()
    digits = get_currency_precision(currency)
    value = _decimal(value)
    with _half_away():
        return _money(value, currency, kind, locale, digits)


def _money(value: decimal.Decimal, currency: str, kind: str, locale: str, digits: int) -> str:
    if kind == "short" and abs(value) >= 1000:
        return format_compact_currency(value, currency, locale=locale, fraction_digits=1)
    if kind == "card" and locale == "ko" and abs(value) >= 100_000_000:   # 억: a card's headline
        return format_compact_currency(value, currency, locale=locale, fraction_digits=1)
    if kind == "exact":       # to the minor unit, always (a variance adds up to the cent)
        pattern = "¤#,##0" + ("." + "0" * digits if digits else "")
    elif kind == "rate":
        pattern = "¤#,##0" + ("." + "0" * digits + "##" if digits else "")
    elif abs(value) >= 100 or digits == 0:
        pattern = "¤#,##0"
    else:
        pattern = "¤#,##0." + "0" * digits
    return format_currency(value, currency, format=pattern, locale=locale,
                           currency_digits=False)


def percent(value: Any, digits: int = 1, locale: Optional[str] = None) -> str:
    """A fraction as a percentage: 0.256 -> 25.6%."""
    if _missing(value):
        return DASH
    pattern = "#,##0" + ("." + "0" * digits if digits else "") + "%"
    return format_percent(float(value), format=pattern, locale=locale or current_locale())


def number(value: Any, digits: Optional[int] = None, locale: Optional[str] = None) -> str:
    """A count or quantity with grouped thousands; ints whole, floats with one decimal unless
    ``digits`` says otherwise."""
    if _missing(value):
        return DASH
    if digits is None:
        digits = 0 if isinstance(value, int) else 1
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(float(value), format=pattern, locale=locale or current_locale())


def servers(value: Any, locale: Optional[str] = None) -> str:
    """Servers of a plan: a count, or counts per server type (issue 26) as ``4 h100 + 2 b200``
    (types with none left out; ``0`` when there are none). The type ``owned``, the owned servers
    section of a scenario without server types (issue 36), is not named: ``8``."""
    if isinstance(value, dict):
        return " + ".join(number(n, 0, locale) if k == OWNED_TYPE else
                          f"{number(n, 0, locale)} {k}" for k, n in value.items() if n) or \
            number(0, 0, locale)
    return number(value, 0, locale)


def server_total(value: Any) -> int:
    """All servers of a count or of counts per type [servers]."""
    if isinstance(value, dict):
        return int(sum(value.values()))
    return int(value or 0)


def months(count: Any, locale: Optional[str] = None) -> str:
    """A duration: 12 -> "1 year" / "1년", 18 -> "18 months" / "18개월"."""
    if _missing(count):
        return DASH
    n = int(count)
    with using_locale(locale or current_locale()):
        if n and n % 12 == 0:
            return ngettext("%(num)d year", "%(num)d years", n // 12)
        return ngettext("%(num)d month", "%(num)d months", n)
