"""The engine's sentences in the reader's language (models/messages.py ``Message``).

The engine gives each recommendation and warning as an English template with typed
parameters. Here the template is looked up in the catalog (it is the message id; ``pybabel
extract`` finds it through the ``Message`` keyword) and every parameter is formatted for the
locale with Babel. Documents written before the engine gave messages still have their English
``explanation`` / ``warnings`` strings, which are shown as they are (or translated when a
catalog knows the exact sentence).
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Optional, Union

from babel.numbers import format_decimal

from models.breakeven_words import Direction
from models.limit_words import Breach, breach_words
from models.messages import Message, Money, Months, Number, Percent, message_from_json
from service.i18n import DEFAULT, N_, current_locale, fitted, gettext, using_locale
from service.i18n import formats
from service.i18n.labels import offer_name
from service.i18n.ingest_warnings import translate_warning

# Words the engine passes as plain string parameters that have a translation of their own.
WORDS = {
    "on_demand": N_("all on demand"), "cloud_only": N_("cloud only (best mix)"),
    "buy_for_peak": N_("buy for peak"), "optimal": N_("optimal mix"),
    "proposed": N_("proposed"), "best_with_servers": N_("the best plan with servers"),
    "none": N_("no"), "partial": N_("partial"), "all": N_("all"),
    "staged": N_("staged plan"), "robust": N_("robust plan"), "owned": N_("owned servers"), "spot": N_("spot"),
    "cheaper": N_("cheaper"), "dearer": N_("dearer"),
}

QUARTER = re.compile(r"(\d{4})-Q([1-4])")   # a quarter as models/schedules.py names it
MessageLike = Union[Message, Mapping[str, Any]]


def format_param(value: Any, locale: Optional[str] = None) -> str:
    """One typed parameter of a message, formatted for ``locale``."""
    locale = locale or current_locale()
    if isinstance(value, Money):
        return formats.money(value.value, value.currency, "short", locale)
    if isinstance(value, Percent):
        return formats.percent(value.value, value.digits, locale)
    if isinstance(value, Number):
        return formats.number(value.value, value.digits, locale)
    if isinstance(value, Months):
        return formats.months(value.value, locale)
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return format_decimal(value, locale=locale)
    if isinstance(value, str) and value in WORDS:
        with using_locale(locale):
            return gettext(WORDS[value])
    if isinstance(value, str) and locale != DEFAULT and value:
        reason = engine_reason(value, locale)
        if reason is not None:
            return reason
    quarter = QUARTER.fullmatch(value) if isinstance(value, str) else None
    if quarter and locale != DEFAULT:   # models/schedules.quarter: "2027-Q2"
        with using_locale(locale):
            return gettext("%(year)s Q%(quarter)s", year=quarter[1], quarter=quarter[2])
    return str(value)


# Sentences the engine no longer writes that stored plan documents still carry in their
# ``explanation_messages``: kept in the catalog so those plans still read in Korean. Issue 39
# (item 5) put the Monte Carlo's median and chance of costing more in this one's place.
RETIRED = (
    N_("It costs less than the best cloud-only plan in {probability} of {draws} Monte Carlo "
       "draws."),
    # issue 36: a type's sentence now says how busy its servers are, as one type's always did
    N_("Buy 1 {type} server ({gpus} GPUs) for the base load."),
    N_("Buy {servers} {type} servers ({gpus} GPUs) for the base load."),
)

# Why the engine found no staged plan (models/staged_problem.py StagedError), passed as {why}.
ENGINE_REASONS = (
    N_("a busy owned GPU-hour costs more than cloud overflow in some month: the staged "
       "optimum cannot be proven"),
    N_("spot costs more than on demand in some month"),
)
WITHOUT_SPOT = "; without spot: "


def engine_reason(text: str, locale: str) -> Optional[str]:
    """A known engine reason (or two joined by "; without spot: ") in ``locale``, else None."""
    parts = text.split(WITHOUT_SPOT)
    if not all(part in ENGINE_REASONS for part in parts):
        return None
    with using_locale(locale):
        return gettext("; without spot: ").join(gettext(part) for part in parts)


def as_message(item: MessageLike) -> Message:
    return item if isinstance(item, Message) else message_from_json(item)


def render(item: MessageLike, locale: Optional[str] = None) -> str:
    """The sentence of ``item`` (a Message or its JSON form) in ``locale``."""
    message = as_message(item)
    locale = locale or current_locale()
    with using_locale(locale):
        template = gettext(message.template)
    try:
        return fitted(message.render(template, lambda v: format_param(v, locale)), locale)
    except (KeyError, IndexError, ValueError):  # a broken translation: never lose the sentence
        return message.render(None, lambda v: format_param(v, locale))


def breach_text(data: Mapping[str, Any], currency: str, locale: Optional[str] = None) -> str:
    """A limit a strategy breaks (a plan document's ``breaches`` entry) in ``locale``: the
    engine's own sentence (models.explain.breach_words)."""
    return render(breach_words(Breach(**data), currency), locale)


def _plain(text: str, locale: str) -> str:
    """A plain English sentence in ``locale``: its catalog entry, else a reader's warning
    rebuilt from its parts (service.i18n.ingest_warnings), else the English text."""
    if locale == DEFAULT or not text:
        return text
    with using_locale(locale):
        translated = gettext(text)
        if translated == text:
            translated = translate_warning(text) or text
        return translated


def plain(text: str, locale: Optional[str] = None) -> str:
    """A plain English sentence (a preset's label, an ingest problem, a plan rule) in the
    current language or ``locale``; never read as a format string."""
    return _plain(str(text or ""), locale or current_locale())


def is_translated(text: str, locale: Optional[str] = None) -> bool:
    """Whether a plain English sentence has a translation in ``locale`` (or is English)."""
    locale = locale or current_locale()
    return locale == "en" or _plain(text, locale) != text


def explanation(doc: Mapping[str, Any], locale: Optional[str] = None) -> str:
    """The recommendation of a plan document (or a plan's extras) in ``locale``."""
    locale = locale or current_locale()
    items = doc.get("explanation_messages")
    if locale == DEFAULT and doc.get("explanation"):
        return doc["explanation"]   # the engine's own English words
    if items:
        return " ".join(render(m, locale) for m in items)
    return _plain(doc.get("explanation") or "", locale) if doc.get("explanation") else ""


def warning_items(texts: Iterable[str], items: Optional[Iterable[MessageLike]],
                  locale: Optional[str] = None, offers=()) -> list[tuple[str, bool]]:
    """(sentence, translated?) of each warning in ``locale``: each English text rendered from
    its message when there is one, messages with no text of their own added after; texts
    without a message (ingest warnings) are looked up in the catalog as they are, and stay
    English (translated = False) when it has no entry. An offer of ``offers`` (the
    scenario's) is named by its term, not its id ("약정 3y" was issue 39's)."""
    locale = locale or current_locale()
    if locale == DEFAULT:
        return [(text, True) for text in texts]   # the engine's own English words
    messages = [as_message(m) for m in items or []]
    by_text = {m.text: m for m in messages}      # matched by the engine's English text

    def said(message: Message) -> str:
        return render(offers_named(message, offers, locale), locale)
    out, used = [], set()
    for text in texts:
        message = by_text.get(text)
        if message is not None:
            used.add(text)
            out.append((said(message), True))
        else:
            out.append((_plain(text, locale), is_translated(text, locale)))
    out.extend((said(m), True) for m in messages if m.text not in used)
    return out


def warnings(texts: Iterable[str], items: Optional[Iterable[MessageLike]],
             locale: Optional[str] = None) -> list[str]:
    return [text for text, _ok in warning_items(texts, items, locale)]


def explanation_translated(doc: Mapping[str, Any], locale: Optional[str] = None) -> bool:
    """Whether :func:`explanation` is in ``locale`` (False: the English fallback)."""
    text = doc.get("explanation")
    return bool(doc.get("explanation_messages")) or not text or is_translated(text, locale)


def document_warnings(doc: Mapping[str, Any], locale: Optional[str] = None
                      ) -> list[tuple[str, bool]]:
    """(sentence, translated?) of each warning of a plan document, its offers by their terms."""
    offers = (doc.get("scenario") or {}).get("commitments") or ()
    return warning_items(doc.get("warnings") or [], doc.get("warning_messages"), locale,
                         offers)


def breakeven_reasons(breakeven: Optional[Mapping[str, Any]],
                      locale: Optional[str] = None, offers=()) -> dict[str, str]:
    """Why each missing breakeven is missing, by key, in ``locale`` (from the messages when the
    document has them, else the English text looked up in the catalog); an offer of
    ``offers`` (the scenario's) is named by its term, not its id."""
    breakeven = breakeven or {}
    items = breakeven.get("reason_messages") or {}
    out = {key: _plain(text, locale or current_locale())
           for key, text in (breakeven.get("reasons") or {}).items()}
    out.update({key: render(offers_named(m, offers, locale), locale)
                for key, m in items.items()})
    return out


def offers_named(item: Any, offers, locale: Optional[str]) -> Any:
    """A breakeven reason with its offer ("other" or "offer", an offer's id) named by its term."""
    if not offers:
        return item
    message = as_message(item)
    with using_locale(locale or current_locale()):
        params = {k: side_word(v, offers) if k in ("other", "offer") and isinstance(v, str)
                  and v not in SIDE_WORDS and v not in WORDS else v
                  for k, v in message.params.items()}
    return Message(message.template, params)


# The two sides of a breakeven are ways of running work, not strategies: "on demand", not the
# strategy "all on demand"; "owning servers", a subject that agrees with "is cheaper".
SIDE_WORDS = {"owned": N_("owning servers"), "on_demand": N_("on demand")}


def side_word(side: str, offers=()) -> str:
    """A side of a breakeven (``owned``, ``on_demand``, ``spot`` or an offer id) as words; an
    offer of ``offers`` (the scenario's) by its term."""
    if side in SIDE_WORDS:
        return gettext(SIDE_WORDS[side])
    if side not in WORDS and offers:
        return offer_name(side, offers)
    return gettext(WORDS.get(side, side))


def direction_text(direction: Any, locale: Optional[str] = None, offers=()) -> str:
    """A breakeven direction ("owning servers is cheaper than spot above this utilization")."""
    if not isinstance(direction, Mapping):
        return str(direction or "")
    if {"cheaper", "when", "other"} <= direction.keys():
        with using_locale(locale or current_locale()):
            cheaper, other = (side_word(side, offers) for side in (direction["cheaper"],
                                                                   direction["other"]))
        return render(Direction(cheaper, direction["when"], other).message(), locale)
    return str(direction.get("text", ""))
