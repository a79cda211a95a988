"""Names of things the engine keys by identifier (strategies, cost lines), in the reader's
language. The English names are marked here once (``N_``) and translated where shown."""
from __future__ import annotations

import re

from models.scenario import OWNED_TYPE
from service import form_values as fv
from service.i18n import DEFAULT, N_, current_locale, gettext
from service.i18n.alert_words import sentence as alert_sentence

STRATEGY_LABELS = {"on_demand": N_("All on demand"), "cloud_only": N_("Cloud only (best mix)"),
                   "buy_for_peak": N_("Buy for peak"), "optimal": N_("Optimal mix"),
                   "proposed": N_("Proposed"), "best_with_servers": N_("Best plan with servers"),
                   "spot": N_("Spot"), "staged": N_("Staged plan"),
                   # issue 27: its figures are expected values over the demand scenarios
                   "robust": N_("Robust plan (expected over demand scenarios)")}


def strategy_label(name: str) -> str:
    return gettext(STRATEGY_LABELS[name]) if name in STRATEGY_LABELS else str(name)


def server_type_name(type_id: str) -> str:
    """A server type as a person reads it: its id, and the one type of a scenario without
    server types (``owned``, issue 36) as the word for owned servers in the current language."""
    return gettext("owned") if type_id == OWNED_TYPE else type_id


def assumption_label(row: dict) -> str:
    """A tornado row's assumption in words; a fleet's type-own row names its server type
    ("Server price (b200)", issue 26), the type's id being the user's own name for it."""
    label = gettext(row["label"])
    return gettext("%(label)s (%(server_type)s)", label=label,
                   server_type=row["server_type"]) if row.get("server_type") else label


# Cost lines (models/costs.py) as the workbook, page and CLI name them.
LINE_TITLES = {
    "capex": N_("Capex (purchase + install)"), "loan_payment": N_("Loan payments"),
    "energy": N_("Energy"), "space": N_("Space (colocation)"),
    "maintenance": N_("Maintenance"), "staff": N_("Staff"),
    "owned_storage": N_("Owned storage"), "owned_network": N_("Owned network (data out)"),
    "commitment_upfront": N_("Commitment upfront"), "commitment": N_("Commitment monthly"),
    "spot": N_("Spot"), "on_demand": N_("On demand"), "storage": N_("Cloud storage"),
    "egress": N_("Egress"), "cloud_setup": N_("Cloud setup fee"),
    "cloud_support": N_("Cloud support"), "tax_on_resale": N_("Tax on resale gain"),
    "resale_credit": N_("Resale credit (-)"), "tax_shield": N_("Tax shield (-)"),
}
# Values of the schema's Literal fields, as the select boxes show them.
OPTION_WORDS = {
    "straight_line": N_("straight-line"), "macrs_5": N_("MACRS 5-year"), "cash": N_("cash"),
    "loan": N_("loan"), "none": N_("none"), "partial": N_("partial"), "all": N_("all"),
    "triangular": N_("triangular"), "lognormal": N_("log-normal"),
    "liquidate": N_("liquidate"), "prorate": N_("prorate"), "allocated": N_("allocated"),
    "busy": N_("busy"),
}


def cost_line_label(name: str) -> str:
    return gettext(LINE_TITLES[name]) if name in LINE_TITLES else str(name)


ROLES = {"analyst": N_("analyst"), "reviewer": N_("reviewer"), "admin": N_("admin")}
STATUSES = {"approved": N_("approved"), "rejected": N_("rejected"),
            "unreviewed": N_("unreviewed"), "changes requested": N_("changes requested")}
DECISIONS = {"approve": N_("approved"), "reject": N_("rejected"), "comment": N_("commented"),
             "changes": N_("changes requested")}
AUDIT_ACTIONS = {
    "login": N_("logged in"), "user.create": N_("user created"),
    "token.create": N_("API token created"), "token.revoke": N_("API token revoked"),
    "scenario.create": N_("scenario created"), "revision.create": N_("revision saved"),
    "usage.upload": N_("usage file uploaded"), "api.plan": N_("plan computed through the API"),
    "review.approve": N_("revision approved"), "review.reject": N_("revision rejected"),
    "review.comment": N_("review comment"), "review.changes": N_("changes requested"),
    "download": N_("downloaded"), "plan.cancel": N_("computation cancelled"),
    "api.cancel": N_("job cancelled through the API"),
    "actuals.upload": N_("actual bills uploaded"),
    "alert.breach": N_("alert threshold crossed"), "alert.settings": N_("alert settings saved"),
}
# Notes the service itself writes on revisions (scenarios.py, revisions.py).
NOTES = {"created": N_("created"), "assumptions edited": N_("assumptions edited"),
         "saved through the API": N_("saved through the API"),
         "created through the API": N_("created through the API")}
# States of a plan job (service/plans/jobs/records.py), as a page says them.
JOB_STATES = {"waiting": N_("waiting for a worker"), "queued": N_("queued"),
              "running": N_("running"), "done": N_("done"), "failed": N_("failed"),
              "cancelled": N_("cancelled")}
PERIODS = {"hour": N_("hourly"), "day": N_("daily"), "month": N_("monthly")}
PERIOD_UNITS = {"hour": N_("hour"), "day": N_("day"), "month": N_("month")}


def vocabulary(table: dict[str, str]):
    """A Jinja filter: the translated word of a known key, other values unchanged."""
    return lambda key: gettext(table[key]) if key in table else key


def revision_note(note: str | None) -> str:
    if not note:
        return ""
    if note in NOTES:
        return gettext(NOTES[note])
    if note.startswith("created from "):      # service/scenarios/views.py new_from_file
        return gettext("created from %(file)s", file=note[len("created from "):])
    if note.startswith("usage "):
        return gettext("usage %(file)s", file=note[len("usage "):])
    if note.startswith("commitments held, from "):   # service/scenarios/contract_attach.py
        return gettext("commitments held, from %(file)s",
                       file=note[len("commitments held, from "):])
    replanned = re.fullmatch(r"re-planned from r(\d+) with actuals to (\d{4}-\d{2})", note)
    if replanned:                                    # service/plans/replan.py
        return gettext("re-planned from r%(number)s with actuals to %(month)s",
                       number=replanned.group(1), month=replanned.group(2))
    return note


def timestamp(value) -> str:
    """2026-12-01T12:42:07Z -> 2026-12-01 12:42:07 (pages say UTC in their headers);
    midnight of a date-only period start is left out."""
    text = str(value or "").replace("T", " ").removesuffix("Z")
    return text.removesuffix(" 00:00:00") if len(text) > 10 else text


def display_unit(unit: str, kind: str, currency: str) -> str:
    """The unit beside an input in the reader's language: "fraction per year" shown in percent
    -> "% per year" (Korean "연간 %"), "currency per server" -> "USD per server" ("서버당 USD").
    The translated unit names its quantity with the translation of "fraction" / "currency",
    which is replaced here as form_values.display_unit does for English."""
    if current_locale() == DEFAULT or not unit:
        return fv.display_unit(unit, kind, currency)
    text = gettext(unit)
    if kind == fv.PERCENT and unit.startswith("fraction"):
        word = gettext("fraction")
        return text.replace(word, "%", 1) if word in text else f"% ({text})"
    if kind == fv.MONEY and unit.startswith("currency"):
        word = gettext("currency")
        return text.replace(word, currency, 1) if word in text else f"{currency} ({text})"
    return text


def option_word(value) -> str:
    """A value of a Literal field (payment "partial", financing "loan") as select boxes show it."""
    return gettext(OPTION_WORDS[value]) if value in OPTION_WORDS else str(value)


def payback_month(month) -> str:
    """A payback month of the plan document: "month 14", or "never"."""
    return gettext("never") if month is None else gettext("month %(month)s", month=month)


def offer_name(offer_id: str, offers=()) -> str:
    """A commitment offer named by its term ("1-year commitment", "6-month commitment"), as a
    reader knows it, rather than by the id in the scenario file; the id follows in brackets
    only when two offers share a term, and an offer the scenario does not list keeps its id."""
    offers = [o if isinstance(o, dict) else o.model_dump() for o in offers or ()]
    terms = [o.get("term_months") for o in offers]
    term = next((o.get("term_months") for o in offers if o.get("id") == offer_id), None)
    if not isinstance(term, int) or term <= 0:
        return str(offer_id)
    name = (gettext("%(years)s-year commitment", years=term // 12) if term % 12 == 0 else
            gettext("%(months)s-month commitment", months=term))
    return name if terms.count(term) == 1 else f"{name} ({offer_id})"


AUDIT_DETAILS = {
    # what service/web/users.py, service/plans/revisions.py and service/plans/views.py store
    "user.create": re.compile(r"(?P<name>.*) \((?P<role>\w+)\)"),
    "revision.create": re.compile(r"revision (?P<number>\d+)(?:: (?P<note>.*))?", re.S),
    "usage.upload": re.compile(r"(?P<file>.*) sha256=(?P<digest>[0-9a-f]*)", re.S),
    "job": re.compile(r"job (?P<job>\d+)"),
    "review": re.compile(r"\[(?P<path>[\w.]+)\] (?P<comment>.*)", re.S),
    # service/plans/alerts.pyrecords.py
    "alert.breach": re.compile(r"(?P<month>\d{4}-\d{2}) (?P<kind>\w+): (?P<value>-?[\d.]+) % "
                               r"\(threshold (?P<threshold>[\d.]+) %\), upload \d+"),
    "alert.settings": re.compile(
        r"spend over plan above (?P<spend>-|[\d.]+ %); commitment utilization under "
        r"(?P<commitment>-|[\d.]+ %); owned server utilization under (?P<owned>-|[\d.]+ %); "
        r"webhook (?P<webhook>configured \(new\)|configured|not configured|removed)"),
}
# the webhook's state in an alert.settings event (service/plans/alerts.py; never the URL)
WEBHOOK_STATES = {"configured (new)": N_("a new webhook configured"),
                  "configured": N_("webhook configured"),
                  "not configured": N_("no webhook"), "removed": N_("webhook removed")}


def audit_details(details: str | None, action: str, field_label=None) -> str:
    """An audit row's details, stored in English as the service wrote them, in the reader's
    language: a role, a revision's note, a file's digest, a job and a review's assumption by
    their words (``field_label``: a scenario path's label); what a person typed stays as it is."""
    text = details or ""
    if action == "user.create" and (m := AUDIT_DETAILS[action].fullmatch(text)):
        return f"{m['name']} ({vocabulary(ROLES)(m['role'])})"
    if action == "revision.create" and (m := AUDIT_DETAILS[action].fullmatch(text)):
        head = gettext("revision %(number)s", number=m["number"])
        return f"{head}: {revision_note(m['note'])}" if m["note"] else head
    if action == "usage.upload" and (m := AUDIT_DETAILS[action].fullmatch(text)):
        return gettext("%(file)s (SHA-256 %(digest)s)", file=m["file"], digest=m["digest"])
    if action == "alert.breach" and (m := AUDIT_DETAILS[action].fullmatch(text)):
        return alert_sentence(m["kind"], m["month"], m["value"], m["threshold"])
    if action == "alert.settings" and (m := AUDIT_DETAILS[action].fullmatch(text)):
        said = [gettext(phrase, value=m[key]) for key, phrase in (
            ("spend", N_("spend over plan above %(value)s")),
            ("commitment", N_("commitment utilization under %(value)s")),
            ("owned", N_("owned server utilization under %(value)s"))) if m[key] != "-"]
        return "; ".join((said or [gettext("no thresholds")])
                         + [gettext(WEBHOOK_STATES[m["webhook"]])])
    if (m := AUDIT_DETAILS["job"].fullmatch(text)):
        return gettext("job %(job)s", job=m["job"])
    if action.startswith("review.") and field_label and (
            m := AUDIT_DETAILS["review"].fullmatch(text)):
        return f"[{field_label(m['path'])}] {m['comment']}"
    return text


def actor_name(actor: str) -> str:
    """Who acted: a user's name, or the service itself ("system" in the stored row)."""
    return gettext("system") if actor == "system" else actor
