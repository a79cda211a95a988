"""Pydantic's validation messages in the reader's language.

Pydantic writes its messages in English; each error also carries a ``type`` and a ``ctx`` with
the bound or pattern, from which the message is rebuilt here. The schema's own rules
(models/scenario.py validators) are matched by their wording. Anything else stays as pydantic
wrote it.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Mapping, Optional

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
    "decimal_parsing": N_("Input should be a valid number"),
    "decimal_max_places": N_("Input should have no more than %(decimal_places)s decimal places"),
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


def rule(template: str) -> tuple[re.Pattern, str]:
    """The pattern that recognises a rule's English message, and the template to translate it
    with: each %(name)s part matches the value the message quotes (a name that comes back
    matches the same text again)."""
    parts = re.split(r"%\((\w+)\)s", template)
    pattern, seen = [], set()
    for i, part in enumerate(parts):
        if i % 2 == 0:
            pattern.append(re.escape(part))
        elif part in seen:
            pattern.append(f"(?P={part})")
        else:
            seen.add(part)
            pattern.append(f"(?P<{part}>.*?)")
    return re.compile("".join(pattern)), template


# The schema's own rules (models/scenario.py validators), each written once: its English
# wording, whose %(name)s parts are the values it quotes.
RULES = [
    rule(N_("power_kw_idle (%(idle)s) must be <= power_kw_max (%(max)s)")),
    rule(N_("each resale fraction must be between 0 and 1, got %(value)s")),
    rule(N_("resale fractions must not increase with age")),
    rule(N_("commitment ids must be unique, got %(ids)s")),
    rule(N_("proposed.committed_gpus names unknown offer %(offer)s; offers are %(ids)s")),
    rule(N_("proposed.committed_gpus[%(offer)s] = %(gpus)s must be a non-negative multiple of "
           "block_gpus %(block)s")),
    rule(N_("position.servers: %(total)s servers in all; at most %(limit)s")),
    rule(N_("proposed.schedule has two decisions for the same month")),
    rule(N_("proposed: give either a schedule or servers and committed_gpus")),
    rule(N_("proposed.schedule[%(month)s].commit names unknown offer %(offer)s; offers are "
           "%(ids)s")),
    rule(N_("proposed.schedule[%(month)s].commit[%(offer)s] = %(gpus)s must be a non-negative "
           "multiple of block_gpus %(block)s")),
    rule(N_("proposed.schedule[%(month)s]: sell_from adds up to %(total)s, sell_servers is "
           "%(sell)s")),
    # two currencies (models/scenario.py Scenario._currencies)
    rule(N_("owned.currency (%(owned)s) and cloud_terms.currency (%(cloud)s) both differ from the "
           "reporting currency (%(reporting)s); one exchange rate converts one foreign currency")),
    rule(N_("fx.rate is required: prices in %(foreign)s are converted into the reporting currency "
           "%(reporting)s (units of %(reporting)s per %(foreign)s)")),
    # demand scenarios of the robust plan (models/scenario.py Staging._demand_scenarios)
    rule(N_("staging.demand_scenarios: names must be unique, got %(names)s")),
    rule(N_("staging.demand_scenarios: the probabilities add up to %(total)s, not 1 (off by "
           "%(off)s)")),
    # server types of a fleet (models/scenario.py Scenario._server_types)
    rule(N_("server_types: ids must be unique, got %(ids)s")),
    rule(N_("server_types[%(type)s].currency %(currency)s: one foreign currency, with fx.rate, "
           "for the whole plan")),
    rule(N_("server_types[%(type)s].successor names unknown type %(successor)s; types are "
           "%(ids)s")),
    rule(N_("server_types[%(type)s]: available_until %(end)s is before available_from "
           "%(start)s")),
    rule(N_("%(where)s names unknown server type %(type)s; server_types are %(ids)s")),
    rule(N_("proposed: give servers or servers_by_type, not both (and no schedule with them)")),
    rule(N_("proposed.hold_only: keeping only what is held proposes no servers, commitments "
           "or schedule; clear them or untick it")),
    rule(N_("proposed.schedule[%(month)s]: give buy/sell by type or buy_servers/sell_servers, "
           "not both")),
    rule(N_("position.commitments: contract %(id)s is in %(currency)s, prices are in "
           "%(reporting)s and %(foreign)s; one exchange rate converts one foreign currency")),
    # uncertainty ranges by path (models/ranges.py Ranges._known_paths)
    rule(N_("unknown range path %(path)s; the paths that have a range are %(paths)s")),
]


def _plain(value: Any) -> str:
    """A bound as pydantic writes it: 1.0 -> "1"."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def error_message(item: Mapping[str, Any],
                  field_label: Optional[Callable[[str], str]] = None) -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) in the current language;
    ``field_label`` names a field a rule quotes by its path (service.forms.scenario.label_for,
    which imports this module)."""
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
            quoted = match.groupdict()
            if "where" in quoted and field_label is not None:
                # a field the rule names by its path ("position.servers[0].type"), by its label
                quoted["where"] = field_label(re.sub(r"\[(\d+)\]", r".\1", quoted["where"]))
            return gettext(template, **quoted) if quoted else gettext(template)
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
