"""Pydantic's validation messages in the reader's language.

Pydantic writes its messages in English; each error also carries a ``type`` and a ``ctx`` with
the bound or pattern, from which the message is rebuilt here. The schema's own rules
(models/scenario.py validators) are matched by their wording. Anything else stays as pydantic
wrote it.
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Optional

from service.i18n import DEFAULT, N_, current_locale, gettext
from service import form_values as fv

BY_TYPE = {
    "greater_than_equal": N_("Input should be greater than or equal to %(ge)s"),
    "greater_than": N_("Input should be greater than %(gt)s"),
    "less_than_equal": N_("Input should be less than or equal to %(le)s"),
    "less_than": N_("Input should be less than %(lt)s"),
    "float_parsing": N_("Input should be a valid number"),
    "float_type": N_("Input should be a valid number"),
    "int_parsing": N_("Input should be a valid integer"),
    "int_type": N_("Input should be a valid integer"),
    "int_from_float": N_("Input should be a whole number"),
    "finite_number": N_("Input should be a finite number"),
    "bool_parsing": N_("Input should be true or false"),
    "string_pattern_mismatch": N_("Input should match the pattern %(pattern)s"),
    "string_too_long": N_("Input should have at most %(max_length)s characters"),
    "string_type": N_("Input should be text"),
    "too_long": N_("At most %(max_length)s items are allowed"),
    "too_short": N_("At least %(min_length)s items are needed"),
    "literal_error": N_("Input should be %(expected)s"),
    "missing": N_("Field required"),
    "extra_forbidden": N_("Unknown field"),
    "union_tag_invalid": N_("Input should be %(expected_tags)s"),
}
# The schema's own rules, by their English wording.
RULES = [
    (re.compile(r"power_kw_idle \((?P<idle>[^)]*)\) must be <= power_kw_max \((?P<max>[^)]*)\)"),
     N_("power_kw_idle (%(idle)s) must be <= power_kw_max (%(max)s)")),
    (re.compile(r"each resale fraction must be between 0 and 1, got (?P<value>.*)"),
     N_("each resale fraction must be between 0 and 1, got %(value)s")),
    (re.compile(r"resale fractions must not increase with age"),
     N_("resale fractions must not increase with age")),
    (re.compile(r"commitment ids must be unique, got (?P<ids>.*)"),
     N_("commitment ids must be unique, got %(ids)s")),
    (re.compile(r"proposed\.committed_gpus names unknown offer (?P<offer>.*); offers are "
                r"(?P<ids>.*)"),
     N_("proposed.committed_gpus names unknown offer %(offer)s; offers are %(ids)s")),
    (re.compile(r"proposed\.committed_gpus\[(?P<offer>.*)\] = (?P<gpus>.*) must be a "
                r"non-negative multiple of block_gpus (?P<block>.*)"),
     N_("proposed.committed_gpus[%(offer)s] = %(gpus)s must be a non-negative multiple of "
        "block_gpus %(block)s")),
    (re.compile(r"position\.servers: (?P<total>.*) servers in all; at most (?P<limit>.*)"),
     N_("position.servers: %(total)s servers in all; at most %(limit)s")),
    (re.compile(r"proposed\.schedule has two decisions for the same month"),
     N_("proposed.schedule has two decisions for the same month")),
    (re.compile(r"proposed: give either a schedule or servers and committed_gpus"),
     N_("proposed: give either a schedule or servers and committed_gpus")),
    (re.compile(r"proposed\.schedule\[(?P<month>[^]]*)\]\.commit names unknown offer "
                r"(?P<offer>.*); offers are (?P<ids>.*)"),
     N_("proposed.schedule[%(month)s].commit names unknown offer %(offer)s; offers are "
        "%(ids)s")),
    (re.compile(r"proposed\.schedule\[(?P<month>[^]]*)\]\.commit\[(?P<offer>.*)\] = "
                r"(?P<gpus>.*) must be a non-negative multiple of block_gpus (?P<block>.*)"),
     N_("proposed.schedule[%(month)s].commit[%(offer)s] = %(gpus)s must be a non-negative "
        "multiple of block_gpus %(block)s")),
    (re.compile(r"proposed\.schedule\[(?P<month>[^]]*)\]: sell_from adds up to "
                r"(?P<total>.*), sell_servers is (?P<sell>.*)"),
     N_("proposed.schedule[%(month)s]: sell_from adds up to %(total)s, sell_servers is "
        "%(sell)s")),
    # two currencies (models/scenario.py Scenario._currencies)
    (re.compile(r"owned\.currency \((?P<owned>[^)]*)\) and cloud_terms\.currency "
                r"\((?P<cloud>[^)]*)\) both differ from the reporting currency "
                r"\((?P<reporting>[^)]*)\); one exchange rate converts one foreign currency"),
     N_("owned.currency (%(owned)s) and cloud_terms.currency (%(cloud)s) both differ from the "
        "reporting currency (%(reporting)s); one exchange rate converts one foreign currency")),
    (re.compile(r"fx\.rate is required: prices in (?P<foreign>\w+) are converted into the "
                r"reporting currency (?P<reporting>\w+) \(units of \w+ per \w+\)"),
     N_("fx.rate is required: prices in %(foreign)s are converted into the reporting currency "
        "%(reporting)s (units of %(reporting)s per %(foreign)s)")),
    # uncertainty ranges by path (models/ranges.py Ranges._known_paths)
    (re.compile(r"unknown range path (?P<path>.*); the paths that have a range are "
                r"(?P<paths>.*)"),
     N_("unknown range path %(path)s; the paths that have a range are %(paths)s")),
]


def _plain(value: Any) -> str:
    """A bound as pydantic writes it: 1.0 -> "1"."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def error_message(item: Mapping[str, Any]) -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) in the current language."""
    msg = str(item.get("msg", "")).removeprefix("Value error, ")
    if current_locale() == DEFAULT:
        return msg  # pydantic's own words are the English text
    kind = item.get("type")
    if kind in BY_TYPE:
        ctx = {k: _plain(v) for k, v in (item.get("ctx") or {}).items()}
        try:
            return gettext(BY_TYPE[kind], **ctx) if ctx else gettext(BY_TYPE[kind])
        except KeyError:  # a context value the template does not expect
            return msg
    for pattern, template in RULES:
        match = pattern.fullmatch(msg)
        if match:
            return gettext(template, **match.groupdict()) if match.groupdict() else \
                gettext(template)
    return msg


def bound_message(item: Mapping[str, Any], display: str) -> Optional[str]:
    """A bound error of a field shown in percent, in the unit people typed ("at most 100 %"),
    in the current language; None for other errors (service.form_values.bound_message)."""
    english = fv.bound_message(dict(item), display)
    if english is None or current_locale() == DEFAULT:
        return english
    kind = item.get("type")
    key = {"greater_than_equal": "ge", "greater_than": "gt", "less_than_equal": "le",
           "less_than": "lt"}[kind]
    limit = (item.get("ctx") or {})[key]
    return gettext(BY_TYPE[kind], **{key: f"{fv.show_number(limit, fv.PERCENT)} %"})
