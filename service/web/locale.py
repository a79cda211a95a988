"""Flask side of the languages: Flask-Babel's locale selector, the language switch, filters.

The language of a page is the user's saved preference, else the one chosen with the switch in
this browser session (so the switch works before logging in, on /login too), else the
browser's Accept-Language, else English. API requests (bearer tokens, no browser session)
follow Accept-Language alone; their JSON keys stay English.
"""
from __future__ import annotations

import decimal
from typing import Optional

from flask import Blueprint, Flask, g, has_request_context, redirect, request, session, url_for
from babel.numbers import get_currency_precision
from flask_babel import Babel, get_locale
from jinja2 import pass_context
from markupsafe import Markup

from service.i18n import (DEFAULT, LANGUAGES, TRANSLATIONS, N_, _, current_locale, fitted,
                          formats, translations, use_request_locale)
from service.web.tables import User
from service.web.db import write_session
from service.web import cards
from service.i18n import ingest_refusals, labels, sentences
from service.i18n.labels import cost_line_label, strategy_label

bp = Blueprint("i18n", __name__)
babel = Babel()
SESSION_KEY = "lang"


def browser_language() -> str:
    return request.accept_languages.best_match(list(LANGUAGES)) or DEFAULT


def select_locale() -> str:
    if request.path.startswith("/api/"):
        return browser_language()
    user = g.get("user")
    if user is not None and getattr(user, "language", None) in LANGUAGES:
        return user.language
    if session.get(SESSION_KEY) in LANGUAGES:
        return session[SESSION_KEY]
    return browser_language()


def safe_next(target: str | None) -> str:
    if target and target.startswith("/") and not target.startswith("//"):
        return target
    return url_for("scenarios.index")


@bp.post("/language")
def switch():
    """Choose the language: kept in the session, and saved for a logged-in user ("" = follow
    the browser again)."""
    lang = request.form.get("lang", "")
    if lang and lang not in LANGUAGES:
        lang = DEFAULT
    if lang:
        session[SESSION_KEY] = lang
    else:
        session.pop(SESSION_KEY, None)
    if g.get("user") is not None:
        with write_session() as s:
            s.get(User, g.user.id).language = lang or None
    return redirect(safe_next(request.form.get("next")))


def _template_gettext(message: str) -> str:
    return translations(current_locale()).gettext(message)


def _template_ngettext(singular: str, plural: str, n: int) -> str:
    return translations(current_locale()).ngettext(singular, plural, n)


def _fitting(template_call):
    """A template's gettext whose result has its particles fitted to the filled-in words."""
    @pass_context
    def call(context, *args, **values):
        text = template_call(context, *args, **values)
        fitted_text = fitted(str(text), current_locale())
        return Markup(fitted_text) if isinstance(text, Markup) else fitted_text
    return call


FILTERS = {
    # a message that is data (a preset's label, an engine or ingest sentence) in the page's
    # language: its catalog entry or a reader's warning rebuilt from its parts, the test
    # is_translated applies. Jinja's _() reads what it returns as a format string, so a label
    # with "10 % VAT" was a 500; this never formats.
    "translated": lambda text: sentences.plain(text),
    # a usage file's refusal, rebuilt from its problems by row and column
    "refusal": lambda message, problems=(): ingest_refusals.refusal(message, problems),
    "money": lambda v, currency="USD", kind="total": formats.money(v, currency, kind),
    # whole cents (models/variance.py, models/forecast.py) to the cent, in the currency
    "cents": lambda v, currency="USD": formats.DASH if v is None else formats.money(
        decimal.Decimal(int(v)).scaleb(-2), currency, "exact"),
    "minor_digits": lambda currency: get_currency_precision(str(currency or "USD")),
    "percent": lambda v, digits=1: formats.percent(v, digits),
    "number": lambda v, digits=None: formats.number(v, digits),
    "months": formats.months,
    "servers": formats.servers,
    "server_total": formats.server_total,
    "strategy": strategy_label,
    # a plan's strategies as (name, entry), the recommended one first (its card first)
    "recommended_first": cards.recommended_first,
    # a limit of the scenario a strategy breaks (models/plan_limits.py), in words
    "breach": lambda b, currency="USD": sentences.breach_text(b, currency),
    "cost_line": cost_line_label,
    "role": labels.vocabulary(labels.ROLES),
    "status": labels.vocabulary(labels.STATUSES),
    "decision": labels.vocabulary(labels.DECISIONS),
    "audit_action": labels.vocabulary(labels.AUDIT_ACTIONS),
    "period": labels.vocabulary(labels.PERIODS),
    "period_unit": labels.vocabulary(labels.PERIOD_UNITS),
    "revision_note": labels.revision_note,
    "when": labels.timestamp,
    "option_word": labels.option_word,
    "offer": labels.offer_name,
    "audit_details": labels.audit_details,
    "job_state": labels.vocabulary(labels.JOB_STATES),
    "actor": labels.actor_name,      # a commitment offer by its term, from the scenario's offers
    "quarter": lambda q: sentences.format_param(str(q)),   # "2027-Q2" -> "2027년 2분기"
    "payback": labels.payback_month,
    "breakeven_reasons": sentences.breakeven_reasons,
    "direction": sentences.direction_text,
    # whether a sentence from elsewhere (the ingest) has a translation: else lang="en"
    "is_translated": lambda text: sentences.is_translated(str(text or "")),
}


# Words the page scripts (static/js/form.js, progress.js) write themselves; base.html hands
# them over translated as JSON (#script-words), so the scripts hold no English of their own
# beyond fallbacks. %(name)s placeholders are filled in by the script.
SCRIPT_WORDS = {
    "changed_one": N_("%(count)s value differs from the defaults"),
    "changed_many": N_("%(count)s values differ from the defaults"),
    "problems_one": N_("%(count)s problem to fix before saving."),
    "problems_many": N_("%(count)s problems to fix before saving."),
    "fix_to_update": N_("Fix the values marked in the form to update the plan."),
    "updated": N_("Updated for the values in the form (not saved)."),
    # shown meanwhile: the last solved optima and staged schedule priced at these values
    "reoptimizing": N_("Updated for the form's values (not saved), the last optimum re-priced; "
                       "re-optimizing..."),
    "reoptimized": N_("Updated for the values in the form (not saved), re-optimized."),
    "job_waiting": N_("Waiting for a worker (%(state)s)..."),
    "job_running": N_("Computing: %(stage)s, %(seconds)s s..."),
    "job_failed": N_("The computation failed: %(reason)s"),
    "progress": N_("Progress"),
    "uploading": N_("Uploading: %(loaded)s of %(total)s bytes"),
    "uploaded": N_("Uploaded; waiting for the server..."),
    "opening_preview": N_("Done: opening the preview..."),
    "read": N_("Read."),
    "not_accepted": N_("The file was not accepted."),
    "upload_failed": N_("The upload failed (status %(status)s)."),
    "connection_lost": N_("The upload failed: the connection was lost."),
    # static/js/rows.js: the scenario form's tables of rows
    "add_row": N_("Add a row: %(table)s"),
    "remove_row": N_("Remove"),
    "remove_row_label": N_("Remove %(table)s row %(number)s"),
    "row_removed": N_("%(table)s: row removed, %(count)s left."),
    "row_added": N_("%(table)s: row %(number)s added."),
    "at_most_rows": N_("At most %(count)s rows"),
    # static/js/presets.js: the preset choosers applied in the page
    "preset_applying": N_("Applying the preset..."),
    "preset_failed": N_("The preset could not be applied (status %(status)s)."),
    "preset_cancelled": N_("The preset was not applied: nothing changed."),
}


def script_words() -> dict[str, str]:
    return {key: _(text) for key, text in SCRIPT_WORDS.items()}


def request_language() -> Optional[str]:
    """The language Flask-Babel chose for the request being served, None outside one."""
    locale = get_locale() if has_request_context() else None
    return locale.language if locale else None


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT)
    babel.init_app(app, locale_selector=select_locale)
    use_request_locale(request_language)
    # One catalog path for templates and Python code (service.i18n.translations).
    app.jinja_env.install_gettext_callables(_template_gettext, _template_ngettext,
                                            newstyle=True)
    # Korean particles are fitted once the values are in (service.i18n.particles).
    for name in ("gettext", "_", "ngettext"):
        app.jinja_env.globals[name] = _fitting(app.jinja_env.globals[name])
    app.jinja_env.filters.update(FILTERS)
    app.register_blueprint(bp)

    @app.context_processor
    def languages():
        return {"languages": LANGUAGES, "current_language": current_locale(),
                "script_words": script_words}

    # Fail at start, not on the first Korean page, when the catalogs were never compiled.
    for lang in LANGUAGES:
        translations(lang)
