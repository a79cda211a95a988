"""Languages of the service (issue 15): Korean and English.

One translation path for every caller: pages, flashes, API errors, the CLI and the workbook all
call :func:`gettext` (``_``). The language is, in this order, the one forced for a block of
work (:func:`using_locale`: the CLI's ``--lang``, a workbook written for whoever downloads it),
the web request's (service.web.locale picks it: saved preference, Accept-Language, English), else
English. Catalogs live in service/translations/<lang>/LC_MESSAGES/messages.po; the set-up
compiles them to .mo (``pybabel compile``), which is what is read here, by the standard
library's gettext: only gettext and ngettext are asked of a catalog, and babel (its number and
date formats, ``service.i18n.formats``) stays out of ``buyrent plan`` refusing a file.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
from gettext import GNUTranslations, NullTranslations
from pathlib import Path
from typing import Callable, Iterator, Optional

TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"
DOMAIN = "messages"
DEFAULT = "en"
LANGUAGES = {"en": "English", "ko": "한국어"}   # each named in its own language

_forced: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar("buyrent_locale",
                                                                         default=None)
# The web layer's language of the current request (service/web/locale.py registers it when an
# app is created; None outside a request). This package stays free of Flask: the CLI
# (``buyrent plan``) never loads it.
_request_locale: Optional[Callable[[], Optional[str]]] = None


def use_request_locale(provider: Callable[[], Optional[str]]) -> None:
    """Take the current request's language from ``provider`` (a language code, or None when
    no request is being served)."""
    global _request_locale
    _request_locale = provider


class CatalogMissing(RuntimeError):
    """A language has a .po catalog but no compiled .mo (the set-up was not run)."""


def normalize(lang: Optional[str]) -> str:
    """'ko-KR', 'ko_KR', 'KO' -> 'ko'; anything unsupported -> 'en'."""
    base = str(lang or "").replace("_", "-").split("-")[0].lower()
    return base if base in LANGUAGES else DEFAULT


@functools.lru_cache(maxsize=None)
def translations(lang: str) -> NullTranslations:
    """The compiled catalog of ``lang`` (English is the source language: no catalog)."""
    lang = normalize(lang)
    if lang == DEFAULT:
        return NullTranslations()
    mo = TRANSLATIONS / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if not mo.exists():
        raise CatalogMissing(f"{mo} is missing: run scripts/bootstrap "
                             f"(pybabel compile -d {TRANSLATIONS})")
    with mo.open("rb") as fp:
        return GNUTranslations(fp)


def current_locale() -> str:
    """The language of the work in progress: forced, else the web request's, else English."""
    forced = _forced.get()
    if forced:
        return forced
    return normalize(_request_locale() if _request_locale is not None else None)


@contextlib.contextmanager
def using_locale(lang: Optional[str]) -> Iterator[str]:
    """Run a block in ``lang`` (normalized), whatever the request says."""
    token = _forced.set(normalize(lang))
    try:
        yield _forced.get()
    finally:
        _forced.reset(token)


def gettext(message: str, **values) -> str:
    """``message`` in the current language, ``%(name)s`` placeholders filled from ``values``."""
    if not message:  # gettext("") would be the catalog's header
        return message
    text = translations(current_locale()).gettext(message)
    return text % values if values else text


def ngettext(singular: str, plural: str, n: int, **values) -> str:
    text = translations(current_locale()).ngettext(singular, plural, n)
    return text % {"num": n, **values}


def N_(message: str) -> str:
    """Marks a string for extraction; it is translated where it is shown (``_(value)``)."""
    return message


_ = gettext
