"""The scenario's settings page (issue 43): alert thresholds and the webhook, for its owner (or
an admin). Saving them makes no revision: they are not a plan input (service.plans.alerts).
The form is made from models.thresholds.Thresholds's fields (bounds, label, unit)."""
from __future__ import annotations

from typing import Any, Optional

from flask import flash, g, redirect, render_template, request, url_for
from pydantic import ValidationError

from models.thresholds import KINDS, Thresholds
from service.plans import webhook
from service.plans.alerts import (CLEAR, KEEP, deployment_webhook, local_allowed,
                                    save_settings, settings_row)
from service.i18n import N_, _
from service.i18n.alert_words import LABELS, UNITS
from service.i18n.validation import error_message
from service.scenarios import bp
from service.web import idempotency
from service.web.access import editable_scenario
from service.web.tables import User
from service.web.users import login_required

WEBHOOK_REFUSED = N_("The webhook URL must be an https:// address on the internet, without a "
                     "user name or password (no loopback, private or reserved address).")


def fields(values: dict[str, str], errors: dict[str, str]) -> list[dict[str, Any]]:
    """The form's threshold inputs: name, label, unit, bounds (from the pydantic field), the
    value shown and its error."""
    out = []
    for name in KINDS:
        info = Thresholds.model_fields[name]
        bounds = {type(m).__name__: m for m in info.metadata}
        out.append({"name": name, "label": _(LABELS[name]), "unit": _(UNITS[name]),
                    "min": bounds["Ge"].ge, "max": bounds["Le"].le,
                    "value": values.get(name, ""), "error": errors.get(name)})
    return out


def settings_page(scenario, values: Optional[dict[str, str]] = None,
                  errors: Optional[dict[str, str]] = None, status: int = 200):
    row = settings_row(scenario.id)
    if values is None:
        values = {k: (getattr(row, k) or "") if row is not None else "" for k in KINDS}
    return render_template(
        "scenarios/alerts.html", scenario=scenario, fields=fields(values, errors or {}),
        own_webhook=bool(row is not None and row.webhook_url),
        deployment_webhook=bool(deployment_webhook()), errors=errors or {},
        webhook_error=(errors or {}).get("webhook")), status


def read_form() -> tuple[Optional[Thresholds], str, dict[str, str], dict[str, str]]:
    """(thresholds or None, webhook choice, the values typed, errors by field)."""
    values = {k: request.form.get(k, "").strip() for k in KINDS}
    errors: dict[str, str] = {}
    thresholds = None
    try:
        thresholds = Thresholds(**{k: v for k, v in values.items() if v})
    except ValidationError as exc:
        for item in exc.errors():
            name = str(item["loc"][0]) if item.get("loc") else ""
            errors.setdefault(name, error_message(item))
    url = request.form.get("webhook_url", "").strip()
    choice = KEEP
    if request.form.get("webhook_remove"):
        choice = CLEAR
    elif url:
        try:
            webhook.check_url(url, local_allowed())
            choice = url
        except webhook.WebhookRefused:
            errors["webhook"] = _(WEBHOOK_REFUSED)
    return (None if errors else thresholds), choice, values, errors


@bp.route("/<int:scenario_id>/alerts", methods=("GET", "POST"))
@login_required
@idempotency.idempotent
def alert_settings(scenario_id: int):
    """Alert thresholds and webhook of a scenario (GET and POST: its owner or an admin; a
    refusal is the page again, 422, nothing saved)."""
    scenario = editable_scenario(g.user, scenario_id)
    if request.method == "GET":
        return settings_page(scenario)
    thresholds, choice, values, errors = read_form()
    if thresholds is None:
        return settings_page(scenario, values, errors, 422)
    target = url_for("scenarios.alert_settings", scenario_id=scenario_id)
    with idempotency.transaction() as s:
        save_settings(s, s.get(User, g.user.id), scenario, thresholds, choice)
        idempotency.remember(s, location=target)
    flash(_("Alert settings saved. They apply from the next upload of actual bills."))
    return redirect(target)
