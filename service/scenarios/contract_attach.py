"""Commitments from a FOCUS 1.3 Contract Commitment file into a scenario's position (issue 17).

The upload preview (templates/scenarios/_contracts.html) lists the file's GPU commitments, each
with a checkbox whose value is its record as JSON (the file itself is not stored: it is not
usage). Posting the checked ones makes a new revision whose ``position.commitments`` holds them
(service.ingest.attach_commitments_to_scenario: same id replaces, new ids append); the plan
page then shows them as held. A record keeps its currency (``position.commitments[].currency``):
a dollar contract in a plan in won is converted at each month's rate, like the cloud's prices.
The preview checks beforehand only the contracts that fit the scenario (a currency it can
convert, the GPU type it plans) and says why the others are not checked.
"""
from __future__ import annotations

import json
import re

from flask import abort, flash, g, redirect, request, url_for
from pydantic import ValidationError

from models.refusals import Refusal
from models.scenario import Scenario
from service.web import idempotency
from service.web.db import get_session
from service.web.access import editable_scenario
from service.web.users import login_required
from service.clip import clip, clip_message
from service.i18n import _, ngettext
from service.i18n.validation import error_message
from service.web.tables import Revision, ScenarioRecord, UsageFile, User
from service.ingest import CommitmentError, attach_commitments_to_scenario
from service.ingest.commitment_record import validate_commitment
from service.plans.revisions import add_revision, preflight
from service.plans.stored import ensure_plan
from service.scenarios import bp
from service.scenarios.contract_choices import currency_fits

MAX_RECORD_CHARS = 2_000      # one record's JSON; a real one is under 200
MAX_RECORDS = 50              # position.commitments' own limit
ID_CHARS = re.compile(r"[^A-Za-z0-9_.:/-]")


class AttachError(ValueError):
    """A posted commitment that cannot be attached (shown to the user)."""


def position_id(text: str) -> str:
    """A FOCUS commitment id in the characters position.commitments allows (at most 80)."""
    return ID_CHARS.sub("-", text)[:80] or "contract"


def posted_records(values: list[str], model: Scenario) -> list[dict]:
    if not values:
        raise AttachError(_("Choose at least one commitment to attach."))
    if len(values) > MAX_RECORDS:
        raise AttachError(_("At most %(limit)s commitments can be held; %(count)s were chosen.",
                            limit=MAX_RECORDS, count=len(values)))
    records = []
    for text in values:
        if len(text) > MAX_RECORD_CHARS:
            raise AttachError(_("A posted commitment is too long to be one of the preview's."))
        try:
            item = json.loads(text)
        except ValueError:
            raise AttachError(_("A posted commitment is not one of the preview's.")) from None
        if not isinstance(item, dict):
            raise AttachError(_("A posted commitment is not one of the preview's."))
        theirs = str(item.pop("currency", "") or "").upper()
        if theirs and theirs != model.market_currency("cloud"):
            refused = currency_fits(model, theirs)
            if refused:
                raise AttachError(_("Commitment %(id)s is %(why)s.", id=clip(str(item.get("id"))),
                                    why=refused))
            item["currency"] = theirs   # converted at the rate (Scenario.commitment_market)
        if isinstance(item.get("id"), str):
            item["id"] = position_id(item["id"])
        try:
            records.append(validate_commitment(item))
        except CommitmentError as exc:
            raise AttachError(_(str(exc))) from None   # ingest reasons: English unless listed
    return records


@bp.post("/<int:scenario_id>/commitments")
@login_required
@idempotency.idempotent
def attach_commitments(scenario_id: int):
    scenario = editable_scenario(g.user, scenario_id)
    latest = scenario.latest
    current = Scenario.model_validate_json(latest.assumptions)
    try:
        records = posted_records(request.form.getlist("attach"), current)
        model = Scenario.model_validate(
            attach_commitments_to_scenario(latest.assumptions_dict, records))
    except AttachError as exc:
        abort(422, str(exc))
    except ValidationError as exc:
        abort(422, clip_message(_("These commitments do not fit the scenario: %(reasons)s",
                                  reasons="; ".join(error_message(e) for e in exc.errors()))))
    if model == current:
        flash(_("These commitments are already held: no new revision."))
        return redirect(url_for("scenarios.show", scenario_id=scenario.id))
    usage = latest.usage_file
    try:
        preflight(model, usage)
    except Refusal as exc:
        abort(422, clip_message(_("The engine cannot plan with these commitments: %(reason)s",
                                  reason=exc)))
    filename = clip(request.form.get("filename", "a contract file"))
    with idempotency.transaction() as s:
        revision = add_revision(s, s.get(ScenarioRecord, scenario.id), s.get(User, g.user.id),
                                model, s.get(UsageFile, usage.id) if usage else None,
                                note=f"commitments held, from {filename}")
        target = (url_for("plans.show", scenario_id=scenario.id, number=revision.number)
                  + "#schedule" if usage else
                  url_for("scenarios.show", scenario_id=scenario.id))
        idempotency.remember(s, location=target)
    ensure_plan(get_session().get(Revision, revision.id))
    flash(ngettext("%(num)s commitment held from revision %(number)s on.",
                   "%(num)s commitments held from revision %(number)s on.", len(records),
                   number=revision.number))
    return redirect(target)
